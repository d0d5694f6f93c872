package dispatch_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/droidstar/droidstar/internal/backend"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/oracle"
	"github.com/droidstar/droidstar/internal/oracle/dispatch"
)

// holding answers every input ok. The call running its hold-th query (0:
// none), one query at a time or a batch holding it, says so on running
// and finishes only once released; it records each query it ran and
// whether the context of that call was cancelled when it finished.
type holding struct {
	hold     int
	batches  bool
	running  chan struct{}
	release  chan struct{}
	mu       sync.Mutex
	ran      []string
	canceled []bool
}

func (h *holding) Execute(ctx context.Context, in []string) (backend.Result, error) {
	rs, err := h.run(ctx, [][]string{in})
	if err != nil {
		return backend.Result{}, err
	}
	return rs[0], nil
}

func (h *holding) run(ctx context.Context, qs [][]string) ([]backend.Result, error) {
	h.mu.Lock()
	first := len(h.ran) + 1
	for _, q := range qs {
		h.ran = append(h.ran, strings.Join(q, " "))
	}
	h.mu.Unlock()
	if h.hold >= first && h.hold < first+len(qs) {
		h.running <- struct{}{}
		<-h.release
	}
	out := make([]backend.Result, len(qs))
	for k, q := range qs {
		for range q {
			out[k].Outputs = append(out[k].Outputs, "ok")
		}
	}
	h.mu.Lock()
	h.canceled = append(h.canceled, ctx.Err() != nil)
	h.mu.Unlock()
	return out, nil
}

func (h *holding) Describe() model.DeviceInfo { return model.DeviceInfo{Serial: "h"} }
func (h *holding) Close() error               { return nil }

// batchHolding is holding taking batches.
type batchHolding struct{ *holding }

func (b batchHolding) ExecuteBatch(ctx context.Context, qs [][]string) ([]backend.Result, error) {
	return b.run(ctx, qs)
}

// Closing Stop ends dispatching: nothing starts after it, what runs
// finishes with its context intact and its answers are handed on, and the
// Ask fails with ErrStopped unless every query was answered; every later
// Ask fails at once.
func TestSchedulerStop(t *testing.T) {
	in, out := alphabets(t)
	qs := []mealy.Word{in.MustWord("start"), in.MustWord("start", "wait"), in.MustWord("wait")}
	cases := []struct {
		name    string
		batches bool
		// hold is the query (1-based, 0: none) during which Stop closes;
		// without one it closes before the Ask.
		hold     int
		ran      string
		answered []bool // nil: no answer handed on
		err      error  // nil: the Ask succeeds
	}{
		{name: "one at a time, before the ask", err: dispatch.ErrStopped},
		{name: "one at a time, while the first query runs", hold: 1, ran: "start", answered: []bool{true, false, false}, err: dispatch.ErrStopped},
		{name: "one at a time, while the second query runs", hold: 2, ran: "start | start wait", answered: []bool{true, true, false}, err: dispatch.ErrStopped},
		{name: "one at a time, while the last query runs", hold: 3, ran: "start | start wait | wait", answered: []bool{true, true, true}},
		{name: "batches, before the ask", batches: true, err: dispatch.ErrStopped},
		{name: "batches, while the batch runs", batches: true, hold: 2, ran: "start | start wait | wait", answered: []bool{true, true, true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := &holding{hold: c.hold, running: make(chan struct{}), release: make(chan struct{})}
			var ex backend.Executor = h
			if c.batches {
				ex = batchHolding{h}
			}
			stop := make(chan struct{})
			rec := &oracle.Recorder{}
			s := &dispatch.Scheduler{Executors: []backend.Executor{ex}, Inputs: in, Outputs: out,
				Sem: mealy.ClosureSemantics(in, out), Recorder: rec, Stop: stop}
			if c.hold == 0 {
				close(stop)
			} else {
				go func() {
					<-h.running
					close(stop)
					h.release <- struct{}{}
				}()
			}
			ans, err := s.Ask(context.Background(), qs)
			if got := strings.Join(h.ran, " | "); got != c.ran {
				t.Errorf("ran %q, want %q", got, c.ran)
			}
			for k, cancelled := range h.canceled {
				if cancelled {
					t.Errorf("call %d finished with its context cancelled", k)
				}
			}
			var pe *oracle.PartialError
			switch {
			case c.err == nil:
				if err != nil || len(ans) != len(qs) {
					t.Fatalf("Ask: %d answers, %v; want all, no error", len(ans), err)
				}
			case c.answered == nil:
				if err != c.err {
					t.Fatalf("Ask: %v (%T), want exactly %v", err, err, c.err)
				}
			default:
				if !errors.As(err, &pe) || pe.Err != c.err || err.Error() != c.err.Error() {
					t.Fatalf("Ask: %v (%T), want a partial error of %v", err, err, c.err)
				}
				if !slices.Equal(pe.Answered, c.answered) {
					t.Errorf("answered %v, want %v", pe.Answered, c.answered)
				}
				ans = pe.Answers
			}
			for k, ok := range c.answered {
				want := strings.TrimSpace(strings.Repeat("ok ", len(qs[k])))
				if got := out.Format(ans[k].Outputs); ok && (got != want || ans[k].Device != "h") {
					t.Errorf("answer %d: %q on %q, want %q on h", k, got, ans[k].Device, want)
				}
			}
			executed := 0
			for _, ok := range c.answered {
				if ok {
					executed++
				}
			}
			if l, _ := rec.Snapshot(); l.Executed != executed {
				t.Errorf("recorded %d executed, want %d", l.Executed, executed)
			}
			// A stopped scheduler starts nothing more.
			before := len(h.ran)
			if _, err := s.Ask(context.Background(), qs); err != dispatch.ErrStopped || len(h.ran) != before {
				t.Errorf("the next Ask: %v after running %d more; want %v and none", err, len(h.ran)-before, dispatch.ErrStopped)
			}
		})
	}
}
