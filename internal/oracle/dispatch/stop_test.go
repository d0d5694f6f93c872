package dispatch_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/droidstar/droidstar/internal/backend"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/oracle"
	"github.com/droidstar/droidstar/internal/oracle/dispatch"
	"github.com/droidstar/droidstar/internal/query"
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

func (h *holding) Execute(ctx context.Context, in []string) (query.Result, error) {
	rs, err := h.run(ctx, [][]string{in})
	if err != nil {
		return query.Result{}, err
	}
	return rs[0], nil
}

func (h *holding) run(ctx context.Context, qs [][]string) ([]query.Result, error) {
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
	out := make([]query.Result, len(qs))
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

func (b batchHolding) ExecuteBatch(ctx context.Context, qs [][]string) ([]query.Result, error) {
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

// timed takes batches, each query costing a second of device time per
// symbol, and records the size of each request. The call carrying its
// hold-th query (0: none) says so on running and finishes once released.
type timed struct {
	hold     int
	running  chan struct{}
	release  chan struct{}
	requests []int
	ran      int
}

func (e *timed) Execute(context.Context, []string) (query.Result, error) {
	panic("timed takes batches")
}

func (e *timed) ExecuteBatch(ctx context.Context, qs [][]string) ([]query.Result, error) {
	e.requests = append(e.requests, len(qs))
	first := e.ran + 1
	e.ran += len(qs)
	if e.hold >= first && e.hold <= e.ran {
		e.running <- struct{}{}
		<-e.release
		if err := ctx.Err(); err != nil {
			// The grace period ended: the harness's reply never came.
			return nil, err
		}
	}
	out := make([]query.Result, len(qs))
	for k, q := range qs {
		out[k].Device = time.Duration(len(q)) * time.Second
		for range q {
			out[k].Outputs = append(out[k].Outputs, "ok")
		}
	}
	return out, nil
}

func (e *timed) Describe() model.DeviceInfo { return model.DeviceInfo{Serial: "t"} }
func (e *timed) Close() error               { return nil }

// With RequestTime, an executor's share goes in requests of about that
// much device time (one query first, to measure): a stop starts no
// further request, and a grace period that ends during one (the context
// cancelled) loses that request only; the answers of the earlier ones are
// handed on.
func TestSchedulerRequestTime(t *testing.T) {
	in, out := alphabets(t)
	var qs []mealy.Word
	for range 10 {
		qs = append(qs, in.MustWord("start", "wait")) // 2 s each
	}
	cases := []struct {
		name        string
		requestTime time.Duration
		hold        int  // the query during whose request the stop comes (0: none)
		cancel      bool // the grace period ends during that request
		requests    string
		answered    int
		err         string
	}{
		{name: "whole share", requests: "[10]", answered: 10},
		{name: "sized", requestTime: 7 * time.Second, requests: "[1 3 3 3]", answered: 10},
		{name: "sized, shorter than a query", requestTime: time.Second, requests: "[1 1 1 1 1 1 1 1 1 1]", answered: 10},
		{name: "a stop during the second request", requestTime: 7 * time.Second, hold: 3, requests: "[1 3]", answered: 4, err: "dispatching stopped"},
		{name: "the grace period ends during the third request", requestTime: 7 * time.Second, hold: 5, cancel: true, requests: "[1 3 3]", answered: 4,
			err: "t: 3 queries (start wait, start wait, start wait): context canceled"},
		{name: "unsized, the grace period ends", hold: 5, cancel: true, requests: "[10]", answered: 0, err: "t: 10 queries (start wait, start wait, start wait and 7 more): context canceled"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := &timed{hold: c.hold, running: make(chan struct{}), release: make(chan struct{})}
			stop := make(chan struct{})
			s := &dispatch.Scheduler{Executors: []backend.Executor{e}, Inputs: in, Outputs: out,
				Sem: mealy.ClosureSemantics(in, out), Recorder: &oracle.Recorder{}, Stop: stop, RequestTime: c.requestTime}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if c.hold > 0 {
				go func() {
					<-e.running
					close(stop)
					if c.cancel {
						cancel()
					}
					e.release <- struct{}{}
				}()
			}
			ans, err := s.Ask(ctx, qs)
			if got := fmt.Sprint(e.requests); got != c.requests {
				t.Errorf("requests %s, want %s", got, c.requests)
			}
			answered := make([]bool, len(qs))
			switch {
			case c.err == "":
				if err != nil {
					t.Fatal(err)
				}
				for k := range answered {
					answered[k] = true
				}
			case c.answered == 0:
				if err == nil || err.Error() != c.err {
					t.Fatalf("error %v, want %s", err, c.err)
				}
			default:
				var pe *oracle.PartialError
				if !errors.As(err, &pe) || err.Error() != c.err {
					t.Fatalf("error %v (%T), want a partial error %s", err, err, c.err)
				}
				ans, answered = pe.Answers, pe.Answered
			}
			n := 0
			for k, ok := range answered {
				if ok {
					n++
					if got := out.Format(ans[k].Outputs); got != "ok ok" || ans[k].Device != "t" {
						t.Errorf("answer %d: %q on %q", k, got, ans[k].Device)
					}
				}
			}
			if n != c.answered {
				t.Errorf("%d answered, want %d", n, c.answered)
			}
		})
	}
}
