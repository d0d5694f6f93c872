// Package dispatch is the pipeline's last stage: the Scheduler runs a
// batch of queries on executors (devices, harness JVMs, simulators) in
// parallel across executors, and turns the output names they report into
// symbols of the output alphabet.
package dispatch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/droidstar/droidstar/internal/backend"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/oracle"
)

// Scheduler spreads batches over its executors. When every executor takes
// batches (backend.BatchExecutor), each gets its share of a batch in one
// call (or a few, see RequestTime), so that a device costs one round trip
// per batch rather than one per query; otherwise the
// queries go one at a time to whichever executor is free. It records, per
// executor, what ran and the assumption violations the executors report.
// Executors must answer in the output alphabet's names (a mapper in front
// of a backend translates the backend's own callback names).
type Scheduler struct {
	Executors []backend.Executor
	Inputs    *mealy.Alphabet
	Outputs   *mealy.Alphabet
	Sem       mealy.Semantics
	Recorder  *oracle.Recorder
	// Stop, when closed, ends dispatching: no query or share starts after
	// it, the ones already running finish (their context is not
	// cancelled), and Ask fails with ErrStopped. A stop on a signal uses
	// it to keep what the device is doing instead of throwing it away.
	Stop <-chan struct{}
	// RequestTime, when positive, caps the device time of one
	// ExecuteBatch call: a harness answers a run request only once all of
	// it has run, so a stop whose grace period ends in the middle of a
	// request loses the whole request, and a stop waits for it. An
	// executor's share then goes in requests of as many queries as take
	// about RequestTime at the executor's mean device time per query so
	// far (one query alone while it has run none), and a stop starts no
	// further request.
	RequestTime time.Duration
	// serials names the executors, described once.
	serials []string
	once    sync.Once
}

// ErrStopped is Ask's failure once Stop is closed.
var ErrStopped = errors.New("dispatching stopped")

func (s *Scheduler) stopped() bool {
	select {
	case <-s.Stop:
		return true
	default:
		return false
	}
}

// round is one Ask in progress: the answers so far and the first failure.
type round struct {
	queries  []mealy.Word
	answers  []oracle.Answer
	answered []bool // each index is written by one goroutine only
	cancel   context.CancelFunc

	mu  sync.Mutex
	err error
}

// fail records the round's first failure and stops the other executors:
// their own errors, caused by the cancellation, come later and are not
// the reason.
func (r *round) fail(err error) {
	r.mu.Lock()
	if r.err == nil {
		r.err = err
	}
	r.mu.Unlock()
	r.cancel()
}

func (r *round) set(q int, a oracle.Answer) {
	r.answers[q], r.answered[q] = a, true
}

// Ask implements oracle.Oracle. When it fails after some queries were
// answered, the error is an *oracle.PartialError holding those answers.
func (s *Scheduler) Ask(ctx context.Context, queries []mealy.Word) ([]oracle.Answer, error) {
	if len(s.Executors) == 0 {
		return nil, errors.New("scheduler: no executors")
	}
	s.once.Do(func() {
		for _, ex := range s.Executors {
			s.serials = append(s.serials, ex.Describe().Serial)
		}
	})
	if s.stopped() {
		return nil, ErrStopped
	}
	execs, serials := s.Executors, s.serials
	if want, ok := oracle.PinnedDevice(ctx); ok {
		// A device that is not one of ours (an earlier run's, from the
		// store) pins nothing.
		if k := slices.Index(s.serials, want); k >= 0 {
			execs, serials = execs[k:k+1], serials[k:k+1]
		}
	}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := &round{queries: queries, answers: make([]oracle.Answer, len(queries)), answered: make([]bool, len(queries)), cancel: cancel}
	if batchers := batchers(execs); batchers != nil {
		s.askShares(ctx, r, batchers, serials)
	} else {
		s.askEach(ctx, r, execs, serials)
	}
	err := r.err
	if err == nil {
		err = parent.Err()
	}
	if err == nil && slices.Contains(r.answered, false) && s.stopped() {
		err = ErrStopped
	}
	if err == nil {
		return r.answers, nil
	}
	for _, ok := range r.answered {
		if ok {
			return nil, &oracle.PartialError{Answers: r.answers, Answered: r.answered, Err: err}
		}
	}
	return nil, err
}

// batchers returns the executors as batch executors when all of them are.
func batchers(execs []backend.Executor) []backend.BatchExecutor {
	out := make([]backend.BatchExecutor, len(execs))
	for k, ex := range execs {
		b, ok := ex.(backend.BatchExecutor)
		if !ok {
			return nil
		}
		out[k] = b
	}
	return out
}

// askEach feeds the queries one at a time to whichever executor is free,
// so a fast executor takes more of them.
func (s *Scheduler) askEach(ctx context.Context, r *round, execs []backend.Executor, serials []string) {
	next := make(chan int)
	var wg sync.WaitGroup
	for k, ex := range execs {
		wg.Add(1)
		go func(ex backend.Executor, serial string) {
			defer wg.Done()
			for q := range next {
				a, err := s.run(ctx, ex, serial, r.queries[q])
				if err != nil {
					r.fail(err)
					return
				}
				r.set(q, a)
			}
		}(ex, serials[k])
	}
feed:
	for k := range r.queries {
		if s.stopped() {
			break // a free executor and a stop both ready: the stop wins
		}
		select {
		case next <- k:
		case <-ctx.Done():
			break feed
		case <-s.Stop:
			break feed
		}
	}
	close(next)
	wg.Wait()
}

func (s *Scheduler) run(ctx context.Context, ex backend.Executor, serial string, q mealy.Word) (oracle.Answer, error) {
	s.Recorder.Busy(serial, true)
	res, err := ex.Execute(ctx, s.Inputs.Strings(q))
	s.Recorder.Busy(serial, false)
	if err != nil {
		return oracle.Answer{}, fmt.Errorf("%s: query %s: %w", serial, s.Inputs.Format(q), err)
	}
	return s.record(ctx, serial, q, res)
}

// askShares gives each executor its share of the batch in one call.
func (s *Scheduler) askShares(ctx context.Context, r *round, execs []backend.BatchExecutor, serials []string) {
	var wg sync.WaitGroup
	for k, share := range Split(r.queries, len(execs)) {
		if len(share) == 0 || s.stopped() {
			continue
		}
		wg.Add(1)
		go func(ex backend.BatchExecutor, serial string, share []int) {
			defer wg.Done()
			s.runShare(ctx, r, ex, serial, share)
		}(execs[k], serials[k], share)
	}
	wg.Wait()
}

// runShare runs an executor's share in requests of RequestTime's size.
func (s *Scheduler) runShare(ctx context.Context, r *round, ex backend.BatchExecutor, serial string, share []int) {
	for len(share) > 0 {
		n := s.requestSize(serial, len(share))
		if !s.runRequest(ctx, r, ex, serial, share[:n]) {
			return
		}
		share = share[n:]
		if len(share) > 0 && (s.stopped() || ctx.Err() != nil) {
			return
		}
	}
}

// requestSize is how many of the left queries the next request to the
// executor serial carries.
func (s *Scheduler) requestSize(serial string, left int) int {
	if s.RequestTime <= 0 {
		return left
	}
	for _, d := range s.Recorder.Devices() {
		if d.Serial != serial || d.Executed == 0 {
			continue
		}
		if d.DeviceSecs <= 0 {
			return left
		}
		n := s.RequestTime.Seconds() / (d.DeviceSecs / float64(d.Executed))
		return max(1, min(left, int(n)))
	}
	return 1
}

// runRequest runs part of a share in one call, and says whether all of
// it was answered.
func (s *Scheduler) runRequest(ctx context.Context, r *round, ex backend.BatchExecutor, serial string, share []int) bool {
	inputs := make([][]string, len(share))
	for i, q := range share {
		inputs[i] = s.Inputs.Strings(r.queries[q])
	}
	s.Recorder.Busy(serial, true)
	results, err := ex.ExecuteBatch(ctx, inputs)
	s.Recorder.Busy(serial, false)
	if len(results) > len(share) {
		r.fail(fmt.Errorf("%s: backend answered %d results for a batch of %d queries", serial, len(results), len(share)))
		return false
	}
	for i, res := range results {
		q := r.queries[share[i]]
		a, cerr := s.record(ctx, serial, q, res)
		if cerr != nil {
			r.fail(cerr)
			return false
		}
		r.set(share[i], a)
	}
	if err == nil && len(results) < len(share) {
		err = fmt.Errorf("backend answered %d results for a batch of %d queries", len(results), len(share))
	}
	if err != nil {
		r.fail(s.shareError(serial, r.queries, share[len(results):], err))
		return false
	}
	return true
}

// shareError names what failed: the query a *backend.QueryError blames,
// else the queries of the share left without an answer.
func (s *Scheduler) shareError(serial string, queries []mealy.Word, left []int, err error) error {
	var qe *backend.QueryError
	if errors.As(err, &qe) && qe.Index >= 0 && len(left) > 0 {
		return fmt.Errorf("%s: query %s: %w", serial, s.Inputs.Format(queries[left[0]]), qe.Err)
	}
	if len(left) == 1 {
		return fmt.Errorf("%s: query %s: %w", serial, s.Inputs.Format(queries[left[0]]), err)
	}
	const show = 3
	names := make([]string, 0, show)
	for _, q := range left[:min(len(left), show)] {
		names = append(names, s.Inputs.Format(queries[q]))
	}
	more := ""
	if len(left) > show {
		more = fmt.Sprintf(" and %d more", len(left)-show)
	}
	return fmt.Errorf("%s: %d queries (%s%s): %w", serial, len(left), strings.Join(names, ", "), more, err)
}

// record accounts one result an executor ran to the end and converts it.
func (s *Scheduler) record(ctx context.Context, serial string, q mealy.Word, res backend.Result) (oracle.Answer, error) {
	s.Recorder.Executed(ctx, serial, len(res.Outputs), res.Device)
	s.Recorder.Warn(res.Warnings...)
	a, err := s.convert(q, res)
	if err != nil {
		return oracle.Answer{}, fmt.Errorf("%s: query %s: %w", serial, s.Inputs.Format(q), err)
	}
	a.Device = serial
	if len(res.Steps) <= len(q) {
		a.Steps = res.Steps
	}
	return a, nil
}

// Split divides a batch into n shares of about equal cost, a query
// costing its length plus one (the reset): the longest queries are placed
// first, each on the share with the least cost so far. Each share lists
// query indices in batch order.
func Split(queries []mealy.Word, n int) [][]int {
	shares := make([][]int, n)
	if n == 0 {
		return shares
	}
	order := make([]int, len(queries))
	for k := range order {
		order[k] = k
	}
	sort.SliceStable(order, func(a, b int) bool { return len(queries[order[a]]) > len(queries[order[b]]) })
	load := make([]int, n)
	for _, q := range order {
		least := 0
		for k := range load {
			if load[k] < load[least] {
				least = k
			}
		}
		shares[least] = append(shares[least], q)
		load[least] += len(queries[q]) + 1
	}
	for _, sh := range shares {
		sort.Ints(sh)
	}
	return shares
}

// convert turns a result's output names into symbols; the outputs after
// the first err are err (the executor may stop there).
func (s *Scheduler) convert(q mealy.Word, res backend.Result) (oracle.Answer, error) {
	a := oracle.Answer{Outputs: make(mealy.Word, len(q)), ErrAt: -1}
	if len(res.Outputs) > len(q) {
		return a, fmt.Errorf("backend answered %d outputs for %d inputs", len(res.Outputs), len(q))
	}
	for k, name := range res.Outputs {
		o, ok := s.Outputs.Index(name)
		if !ok {
			return a, fmt.Errorf("backend answered %q, which is not an output (outputs: %s)", name, strings.Join(s.Outputs.Names(), ", "))
		}
		a.Outputs[k] = o
		if s.Sem.Closure && o == s.Sem.Err {
			a.ErrAt, a.Err = k, res.Err
			if a.Err == nil {
				a.Err = &model.ErrInfo{Kind: model.ErrUnknown}
			}
			s.Sem.ErrFrom(a.Outputs, k+1)
			return a, nil
		}
	}
	if len(res.Outputs) < len(q) {
		return a, fmt.Errorf("backend stopped after %d of %d inputs without an err", len(res.Outputs), len(q))
	}
	return a, nil
}
