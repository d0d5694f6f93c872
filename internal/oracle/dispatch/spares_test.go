package dispatch_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/droidstar/droidstar/internal/backend"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/oracle"
	"github.com/droidstar/droidstar/internal/oracle/dispatch"
)

// spareLog collects the spares that ran, by index, as the scheduler's
// goroutines report them.
type spareLog struct {
	mu  sync.Mutex
	ran map[int]string
	out *mealy.Alphabet
}

func (l *spareLog) answered(words []mealy.Word, in *mealy.Alphabet) func(int, oracle.Answer) {
	return func(k int, a oracle.Answer) {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.ran == nil {
			l.ran = map[int]string{}
		}
		l.ran[k] = in.Format(words[k]) + " -> " + l.out.Format(a.Outputs)
	}
}

func (l *spareLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	keys := make([]int, 0, len(l.ran))
	for k := range l.ran {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, l.ran[k])
	}
	return strings.Join(parts, "|")
}

// measured is a scheduler over the executors that has measured every
// kind of clocked's steps (see TestSchedulerStartsLongestPredictedFirst).
func measured(t *testing.T, execs []backend.Executor, virtual bool) (*dispatch.Scheduler, *oracle.Recorder) {
	t.Helper()
	in, out := alphabets(t)
	rec := &oracle.Recorder{}
	s := &dispatch.Scheduler{Executors: execs, Inputs: in, Outputs: out, Sem: mealy.ClosureSemantics(in, out), Recorder: rec, Virtual: virtual}
	if _, err := s.Ask(context.Background(), words(t, in, "start wait wait", "wait wait", "start")); err != nil {
		t.Fatal(err)
	}
	return s, rec
}

// The spares run on the lanes that wait for the batch's last query, in
// the asker's order, each only when its predicted time fits before the
// batch ends; the asker's answers are only its own, and the estimated
// wall time stays the batch's.
//
// Predicted blind (outputs unknown), a step takes the longest of its
// outputs seen: a wait 4 s (quiet), but nothing right after a quiet; the
// reset 1 s. The batch is wait, predicted 5 s (it runs 5 s on lane a); lane
// b is free from 0 on: start (predicted 1 s) runs [0,1]; wait start wait
// (9 s) does not fit; start start (1 s) runs [1,2]; start wait start wait
// (9 s, it would run 3 s) does not fit. Told by the cache that this last
// word answers ok fired ok fired, the scheduler predicts it 3 s, and it
// runs.
func TestSchedulerRunsSparesInTheLanesWait(t *testing.T) {
	in, out := alphabets(t)
	for _, kind := range []string{"virtual", "real", "batch"} {
		t.Run(kind, func(t *testing.T) {
			lanes := []*clocked{{serial: "a"}, {serial: "b"}}
			var execs []backend.Executor
			for _, l := range lanes {
				if kind == "batch" {
					execs = append(execs, &clockedBatch{clocked: l})
				} else {
					execs = append(execs, l)
				}
			}
			s, rec := measured(t, execs, kind == "virtual")
			before := rec.EstimatedWall()
			spares := words(t, in, "start", "wait start wait", "start start", "start wait start wait")
			log := &spareLog{out: out}
			ctx := oracle.WithSpares(context.Background(), oracle.Spares{Words: spares, Answered: log.answered(spares, in)})
			got, err := s.Ask(ctx, words(t, in, "wait"))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || out.Format(got[0].Outputs) != "quiet" {
				t.Fatalf("answers %v, want the one query's quiet", got)
			}
			want := "start -> ok|start start -> ok ok"
			if log.String() != want {
				t.Errorf("spares ran %s, want %s", log, want)
			}
			if kind != "real" {
				if wall := rec.EstimatedWall() - before; wall != 5*time.Second {
					t.Errorf("the batch's estimated wall time %s, want 5s (its query's)", wall)
				}
			}

			// What the cache above knows of a word's outputs counts.
			log = &spareLog{out: out}
			spares = spares[3:]
			known := func(w mealy.Word) mealy.Word {
				if in.Format(w) == "start wait start wait" {
					return out.MustWord("ok", "fired", "ok", "fired")
				}
				return nil
			}
			ctx = oracle.WithKnown(oracle.WithSpares(context.Background(), oracle.Spares{Words: spares, Answered: log.answered(spares, in)}), known)
			if _, err := s.Ask(ctx, words(t, in, "wait")); err != nil {
				t.Fatal(err)
			}
			if want := "start wait start wait -> ok fired ok fired"; log.String() != want {
				t.Errorf("with the cache's knowledge, spares ran %q, want %q", log, want)
			}
		})
	}
}

// One lane never runs a spare: there is no other lane to wait.
func TestSchedulerRunsNoSpareOnOneLane(t *testing.T) {
	in, out := alphabets(t)
	for _, virtual := range []bool{false, true} {
		e := &clocked{serial: "a"}
		s, _ := measured(t, []backend.Executor{e}, virtual)
		e.ran = nil
		spares := words(t, in, "start")
		log := &spareLog{out: out}
		ctx := oracle.WithSpares(context.Background(), oracle.Spares{Words: spares, Answered: log.answered(spares, in)})
		if _, err := s.Ask(ctx, words(t, in, "wait")); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(e.ran, "|"); got != "wait" || log.String() != "" {
			t.Errorf("virtual=%v: ran %s and spares %q, want only wait", virtual, got, log)
		}
	}
}

// Spares with no one to tell their answers to (an asker's, before the
// cache takes them) do not run, and a cut-off batch runs none.
func TestSchedulerRunsNoSpareUnasked(t *testing.T) {
	in, out := alphabets(t)
	lanes := []*clocked{{serial: "a"}, {serial: "b"}}
	s, _ := measured(t, []backend.Executor{lanes[0], lanes[1]}, true)
	lanes[0].ran, lanes[1].ran = nil, nil
	ctx := oracle.WithSpares(context.Background(), oracle.Spares{Words: words(t, in, "start")})
	if _, err := s.Ask(ctx, words(t, in, "wait")); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(append(lanes[0].ran, lanes[1].ran...), "|"); got != "wait" {
		t.Errorf("ran %s, want only wait", got)
	}

	// wait answers fired where quiet is predicted: a surprise at 2 s on
	// each lane, so the start does not run.
	odd := map[string]bool{"wait": true}
	lanes[0].odd, lanes[1].odd = odd, odd
	spares := words(t, in, "start start")
	log := &spareLog{out: out}
	ctx = oracle.WithSpares(context.Background(), oracle.Spares{Words: spares, Answered: log.answered(spares, in)})
	ctx = oracle.WithExpectation(ctx, oracle.Expectation{Outputs: predictClocked(in, out), CutOff: true})
	if _, err := s.Ask(ctx, words(t, in, "wait", "wait", "start")); !errors.Is(err, oracle.ErrCutOff) {
		t.Fatalf("error %v, want a cut-off", err)
	}
	if log.String() != "" {
		t.Errorf("a cut-off batch ran spares %s", log)
	}
}
