package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/oracle"
	"github.com/droidstar/droidstar/internal/oracle/cache"
)

// Stage is the pipeline stage between the cache and the scheduler:
//
//	… → cache.Cache → store.Stage → dispatch.Scheduler → …
//
// A query the cache misses is answered from what earlier runs stored when
// they ran it (or a longer query it is a prefix of); the rest go on, and
// their answers are written to the store before the cache sees them.
type Stage struct {
	Next            oracle.Oracle
	Bucket          *Bucket
	Inputs, Outputs *mealy.Alphabet
	Recorder        *oracle.Recorder
	// Now stamps the records (time.Now when nil).
	Now func() time.Time
	// Quiet, when set, is the current timeouts of a run that calibrates
	// them (--timeout auto): a stored quiet answered under less than its
	// wait's is never reused (see Calibrate).
	Quiet oracle.QuietTimeouts

	// prior indexes the earlier runs' answers; it is never asked to run
	// anything, and never answers a re-run (oracle.AsRerun): a vote or a
	// final check on a resumed run must hear the device again.
	prior *cache.Cache
	// disputed are the words on which stored answers disagree.
	disputed []mealy.Word
}

// NewStage indexes what the bucket holds from earlier runs. Records whose
// symbols are not in the alphabets cannot be there (the alphabet is part
// of the fingerprint) and are reported as a damaged store. Where stored
// answers disagree (a flaky answer and the re-runs that outvoted it), no
// stored answer is trusted: a query through the disputed word runs again,
// and the cache above votes on it afresh if it disagrees once more.
func NewStage(next oracle.Oracle, b *Bucket, inputs, outputs *mealy.Alphabet, sem mealy.Semantics, rec *oracle.Recorder) (*Stage, error) {
	s := &Stage{Next: next, Bucket: b, Inputs: inputs, Outputs: outputs, Recorder: rec}
	if err := s.index(sem); err != nil {
		return nil, err
	}
	return s, nil
}

// Calibrate makes the stage serve a run whose quiescence timeout is
// calibrated (--timeout auto) and now current: the earlier runs' answers
// are indexed again with how long each quiet waited, and one that waited
// less than its wait's current timeout is never reused, so a resumed run
// asks it again.
func (s *Stage) Calibrate(current oracle.QuietTimeouts) error {
	s.Quiet = current
	return s.index(s.prior.Sem)
}

// index builds the prior cache from the bucket's records.
func (s *Stage) index(sem mealy.Semantics) error {
	b := s.Bucket
	s.prior = cache.New(nil, s.Inputs, s.Outputs, sem, nil)
	s.prior.Quiet = s.Quiet
	s.disputed = nil
	for k, r := range b.Prior() {
		w, a, err := s.decode(r)
		if err != nil {
			return &DamagedError{Path: b.s.path, Reason: fmt.Sprintf("record %d of %s: %v", k+1, b.fp, err)}
		}
		var nd *oracle.NondeterminismError
		if err := s.prior.Add(w, a); errors.As(err, &nd) {
			s.disputed = append(s.disputed, nd.Query)
		} else if err != nil {
			return err
		}
	}
	return nil
}

func (s *Stage) decode(r Record) (mealy.Word, oracle.Answer, error) {
	if len(r.Outputs) != len(r.Query) {
		return nil, oracle.Answer{}, fmt.Errorf("%d outputs for %d inputs", len(r.Outputs), len(r.Query))
	}
	w, err := s.Inputs.Word(r.Query...)
	if err != nil {
		return nil, oracle.Answer{}, err
	}
	outs, err := s.Outputs.Word(r.Outputs...)
	if err != nil {
		return nil, oracle.Answer{}, err
	}
	// The step times go along for a calibrated run's prior cache, which
	// keeps how long each quiet waited.
	var steps []time.Duration
	if len(r.MS) == len(r.Query) {
		steps = make([]time.Duration, len(r.MS))
		for k, ms := range r.MS {
			steps[k] = time.Duration(math.Round(ms*1e3)) * time.Microsecond
		}
	}
	return w, oracle.Answer{Outputs: outs, ErrAt: r.ErrAt, Err: r.Err, Device: r.Device, Steps: steps}, nil
}

func (s *Stage) record(w mealy.Word, a oracle.Answer, at time.Time) Record {
	r := Record{Query: s.Inputs.Strings(w), Outputs: s.Outputs.Strings(a.Outputs), ErrAt: a.ErrAt, Err: a.Err, Device: a.Device, At: at.UTC()}
	for _, d := range a.Steps {
		r.MS = append(r.MS, float64(d.Microseconds())/1e3)
	}
	return r
}

// isDisputed says whether stored answers disagree somewhere along q.
// Disputes are few (one per vote of an earlier run), so a scan does.
func (s *Stage) isDisputed(q mealy.Word) bool {
	for _, d := range s.disputed {
		if len(d) <= len(q) && q[:len(d)].Equal(d) {
			return true
		}
	}
	return false
}

// Ask implements oracle.Oracle.
func (s *Stage) Ask(ctx context.Context, queries []mealy.Word) ([]oracle.Answer, error) {
	answers := make([]oracle.Answer, len(queries))
	var miss []int
	rerun := oracle.IsRerun(ctx)
	for k, q := range queries {
		if a, ok := s.lookup(q); ok && !rerun && !s.isDisputed(q) {
			answers[k] = a
		} else {
			miss = append(miss, k)
		}
	}
	if s.Recorder != nil {
		s.Recorder.Stored(ctx, len(queries)-len(miss))
	}
	if len(miss) == 0 {
		return answers, nil
	}
	run := make([]mealy.Word, len(miss))
	for k, i := range miss {
		run[k] = queries[i]
	}
	ctx, spares := s.spares(ctx, rerun)
	got, err := s.Next.Ask(ctx, run)
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	at := now()
	spareRecs := spares.records(s, at)
	if err != nil {
		var pe *oracle.PartialError
		if !errors.As(err, &pe) || len(pe.Answers) != len(run) || len(pe.Answered) != len(run) {
			return nil, err
		}
		// Keep what the devices ran before the failure, and hand the
		// cache every answer this batch has.
		recs := spareRecs
		answered := make([]bool, len(queries))
		for k := range queries {
			answered[k] = true
		}
		for k, i := range miss {
			answered[i] = pe.Answered[k]
			if pe.Answered[k] {
				answers[i] = pe.Answers[k]
				recs = append(recs, s.record(run[k], pe.Answers[k], at))
			}
		}
		if serr := s.Bucket.Append(recs); serr != nil {
			err = errors.Join(err, serr)
		}
		return nil, &oracle.PartialError{Answers: answers, Answered: answered, Err: err}
	}
	recs := make([]Record, len(run), len(run)+len(spareRecs))
	for k, i := range miss {
		answers[i] = got[k]
		recs[k] = s.record(run[k], got[k], at)
	}
	recs = append(recs, spareRecs...)
	if err := s.Bucket.Append(recs); err != nil {
		return nil, err
	}
	return answers, nil
}

// spareRun is what ran of the spares a batch took down (oracle.Spares).
type spareRun struct {
	words    []mealy.Word
	mu       sync.Mutex
	answered []int
	answers  []oracle.Answer
}

// spares answers the cache's spares that earlier runs answered at once,
// and passes the rest down with their answers noted, so that a spare that
// ran is written to the store like any query.
func (s *Stage) spares(ctx context.Context, rerun bool) (context.Context, *spareRun) {
	sp, ok := oracle.SparesOf(ctx)
	if !ok || sp.Answered == nil || rerun {
		return ctx, nil
	}
	run := &spareRun{}
	var index []int // run.words[j] is sp.Words[index[j]]
	for k, w := range sp.Words {
		if a, ok := s.lookup(w); ok && !s.isDisputed(w) {
			sp.Answered(k, a)
			continue
		}
		run.words, index = append(run.words, w), append(index, k)
	}
	if stored := len(sp.Words) - len(run.words); stored > 0 && s.Recorder != nil {
		s.Recorder.Stored(ctx, stored)
	}
	return oracle.WithSpares(ctx, oracle.Spares{Words: run.words, Answered: func(j int, a oracle.Answer) {
		run.mu.Lock()
		run.answered, run.answers = append(run.answered, j), append(run.answers, a)
		run.mu.Unlock()
		sp.Answered(index[j], a)
	}}), run
}

// records are the store's records of the spares that ran.
func (r *spareRun) records(s *Stage, at time.Time) []Record {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	recs := make([]Record, len(r.answered))
	for k, j := range r.answered {
		recs[k] = s.record(r.words[j], r.answers[k], at)
	}
	return recs
}

// lookup answers q from the earlier runs' answers.
func (s *Stage) lookup(q mealy.Word) (oracle.Answer, bool) {
	if s.Quiet == nil {
		return s.prior.Lookup(q)
	}
	return s.prior.LookupFresh(q)
}
