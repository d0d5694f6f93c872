package dispatch_test

import (
	"context"
	"errors"
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

// clocked answers a query as a small device would, measuring each step: a
// start is ok at no cost; a wait is fired when a start came before it
// and no wait since (latency 1 s), else quiet (the 4 s quiescence
// timeout, but nothing right after a quiet, as the harness answers that
// at once); each query also costs a 1 s reset. Queries listed in odd
// answer fired where quiet is due, at the same cost. It records the
// order it ran queries in.
type clocked struct {
	serial string
	odd    map[string]bool
	mu     sync.Mutex
	ran    []string
}

func (e *clocked) Execute(_ context.Context, in []string) (query.Result, error) {
	name := strings.Join(in, " ")
	e.mu.Lock()
	e.ran = append(e.ran, name)
	e.mu.Unlock()
	res := query.Result{Device: time.Second}
	armed, prev := false, ""
	for _, s := range in {
		out, cost := "ok", time.Duration(0)
		switch {
		case s == "start":
			armed = true
		case armed:
			out, cost, armed = "fired", time.Second, false
		case prev == "quiet":
			out = "quiet"
		default:
			out, cost = "quiet", 4*time.Second
		}
		if out == "quiet" && e.odd[name] {
			out = "fired"
		}
		res.Outputs = append(res.Outputs, out)
		res.Steps = append(res.Steps, cost)
		res.Device += cost
		prev = out
	}
	return res, nil
}

func (e *clocked) Describe() model.DeviceInfo { return model.DeviceInfo{Serial: e.serial} }
func (e *clocked) Close() error               { return nil }

// predictClocked is what a hypothesis equal to clocked (without odd) predicts.
func predictClocked(in, out *mealy.Alphabet) func(mealy.Word) mealy.Word {
	ref := &clocked{}
	return func(w mealy.Word) mealy.Word {
		res, _ := ref.Execute(context.Background(), in.Strings(w))
		p := make(mealy.Word, len(res.Outputs))
		for k, name := range res.Outputs {
			p[k], _ = out.Index(name)
		}
		return p
	}
}

func words(t *testing.T, in *mealy.Alphabet, qs ...string) []mealy.Word {
	t.Helper()
	out := make([]mealy.Word, len(qs))
	for k, q := range qs {
		out[k] = in.MustWord(strings.Fields(q)...)
	}
	return out
}

// With an expectation, the queries start longest predicted first: the
// scheduler prices the predicted outputs with the step times it measured
// on earlier answers (a quiet wait 4 s, but 0 right after a quiet; a
// fired wait 1 s; the reset 1 s), ties keeping the batch's order.
// Without one, the batch's order stands.
func TestSchedulerStartsLongestPredictedFirst(t *testing.T) {
	in, out := alphabets(t)
	for _, virtual := range []bool{false, true} {
		e := &clocked{serial: "d"}
		s := &dispatch.Scheduler{Executors: []backend.Executor{e}, Inputs: in, Outputs: out,
			Sem: mealy.ClosureSemantics(in, out), Recorder: &oracle.Recorder{}, Virtual: virtual}
		// Measures every kind of step.
		if _, err := s.Ask(context.Background(), words(t, in, "start wait wait", "wait wait", "start")); err != nil {
			t.Fatal(err)
		}
		batch := []string{
			"start",                // 1 s
			"wait start wait",      // 1 + 4 + 0 + 1 = 6 s
			"start wait wait wait", // 1 + 0 + 1 + 4 + 0 = 6 s
			"wait",                 // 5 s
			"start wait",           // 2 s
		}
		e.ran = nil
		ctx := oracle.WithExpectation(context.Background(), oracle.Expectation{Outputs: predictClocked(in, out)})
		if _, err := s.Ask(ctx, words(t, in, batch...)); err != nil {
			t.Fatal(err)
		}
		want := "wait start wait|start wait wait wait|wait|start wait|start"
		if got := strings.Join(e.ran, "|"); got != want {
			t.Errorf("virtual=%v: ran %s, want %s", virtual, got, want)
		}
		e.ran = nil
		if _, err := s.Ask(context.Background(), words(t, in, "wait", "start wait", "wait wait start")); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(e.ran, "|"); got != "wait|start wait|wait wait start" {
			t.Errorf("virtual=%v: without an expectation ran %s, want the batch's order", virtual, got)
		}
	}
}

// A surprise with CutOff stops the batch on the simulated timeline: on
// two virtual lanes, the queries that start before the surprising answer
// is in still run, the rest do not, and Ask fails with ErrCutOff holding
// what ran. The batch's makespan is recorded.
func TestSchedulerCutsOffVirtualLanes(t *testing.T) {
	in, out := alphabets(t)
	// Device times: wait 5 s, start 1 s, start start 1 s, start start start 1 s.
	odd := map[string]bool{"wait": true}
	lanes := []*clocked{{serial: "a", odd: odd}, {serial: "b", odd: odd}}
	rec := &oracle.Recorder{}
	s := &dispatch.Scheduler{Executors: []backend.Executor{lanes[0], lanes[1]}, Inputs: in, Outputs: out,
		Sem: mealy.ClosureSemantics(in, out), Recorder: rec, Virtual: true}
	batch := words(t, in, "start", "wait", "start start", "start start start", "start", "start start", "start")
	ctx := oracle.WithExpectation(context.Background(), oracle.Expectation{Outputs: predictClocked(in, out), CutOff: true})
	_, err := s.Ask(ctx, batch)
	// a: start [0,1], start start [1,2], start start start [2,3], start [3,4], start start [4,5];
	// b: wait [0,5], surprising at 5: the last start would start at 5.
	var pe *oracle.PartialError
	if !errors.As(err, &pe) || !errors.Is(err, oracle.ErrCutOff) {
		t.Fatalf("error %v, want a cut-off with partial answers", err)
	}
	if got, want := strings.Join(lanes[0].ran, "|"), "start|start start|start start start|start|start start"; got != want {
		t.Errorf("lane a ran %s, want %s", got, want)
	}
	if got := strings.Join(lanes[1].ran, "|"); got != "wait" {
		t.Errorf("lane b ran %s, want wait", got)
	}
	want := []bool{true, true, true, true, true, true, false}
	for k := range want {
		if pe.Answered[k] != want[k] {
			t.Fatalf("answered %v, want %v", pe.Answered, want)
		}
	}
	if got := rec.EstimatedWall(); got != 5*time.Second {
		t.Errorf("estimated wall %s, want 5s", got)
	}
}

// On real lanes (not virtual) a cut-off starts no query after the
// surprising answer: one lane, the surprise first, nothing else runs.
// A batch executor starts no request after the surprise (learn sizes the
// requests by --grace; here one query each).
func TestSchedulerCutOffStartsNothingMore(t *testing.T) {
	in, out := alphabets(t)
	odd := map[string]bool{"wait": true}
	ctx := oracle.WithExpectation(context.Background(), oracle.Expectation{Outputs: predictClocked(in, out), CutOff: true})
	var batch []mealy.Word
	batch = append(batch, in.MustWord("wait"))
	for range 19 {
		batch = append(batch, in.MustWord("start"))
	}

	e := &clocked{serial: "d", odd: odd}
	s := &dispatch.Scheduler{Executors: []backend.Executor{e}, Inputs: in, Outputs: out,
		Sem: mealy.ClosureSemantics(in, out), Recorder: &oracle.Recorder{}}
	if _, err := s.Ask(ctx, batch); !errors.Is(err, oracle.ErrCutOff) {
		t.Fatalf("error %v, want a cut-off", err)
	}
	if got := strings.Join(e.ran, "|"); got != "wait" {
		t.Errorf("ran %s, want only wait", got)
	}

	b := &clockedBatch{clocked: &clocked{serial: "d", odd: odd}}
	s = &dispatch.Scheduler{Executors: []backend.Executor{b}, Inputs: in, Outputs: out,
		Sem: mealy.ClosureSemantics(in, out), Recorder: &oracle.Recorder{}, RequestTime: time.Nanosecond}
	if _, err := s.Ask(ctx, batch); !errors.Is(err, oracle.ErrCutOff) {
		t.Fatalf("batch executor: error %v, want a cut-off", err)
	}
	if len(b.calls) != 1 || b.calls[0] != 1 {
		t.Errorf("batch executor got requests of %v queries, want one of 1", b.calls)
	}
	// The cut-off is no failure of the device: the same batch without
	// CutOff runs whole.
	plain := oracle.WithExpectation(context.Background(), oracle.Expectation{Outputs: predictClocked(in, out)})
	if _, err := s.Ask(plain, batch); err != nil {
		t.Fatal(err)
	}
}

type clockedBatch struct {
	*clocked
	calls []int
}

func (b *clockedBatch) ExecuteBatch(ctx context.Context, qs [][]string) ([]query.Result, error) {
	b.calls = append(b.calls, len(qs))
	out := make([]query.Result, len(qs))
	for k, q := range qs {
		out[k], _ = b.Execute(ctx, q)
	}
	return out, nil
}

// The makespan is list scheduling: each query in order to the lane that
// comes free first, the lowest-numbered on a tie.
func TestMakespan(t *testing.T) {
	s := func(xs ...int) []time.Duration {
		out := make([]time.Duration, len(xs))
		for k, x := range xs {
			out[k] = time.Duration(x) * time.Second
		}
		return out
	}
	cases := []struct {
		times []time.Duration
		lanes int
		want  time.Duration
	}{
		// a: 5, then 2 (at 5), then 1 (at 7) = 8; b: 3, 3 (at 3), 2 (at 6) = 8.
		{s(5, 3, 3, 2, 2, 1), 2, 8 * time.Second},
		{s(5, 3, 3, 2, 2, 1), 1, 16 * time.Second},
		// Shortest first leaves the long one last: a: 1, 1, 5 = 7.
		{s(1, 1, 1, 1, 5), 2, 7 * time.Second},
		{s(5, 1, 1, 1, 1), 2, 5 * time.Second},
		{s(2, 2), 4, 2 * time.Second},
		{nil, 4, 0},
	}
	for _, c := range cases {
		if got := dispatch.Makespan(c.times, c.lanes); got != c.want {
			t.Errorf("Makespan(%v, %d) = %s, want %s", c.times, c.lanes, got, c.want)
		}
	}
}

// The estimated wall time sums the batches' makespans as the scheduler
// ran them: virtual lanes play the batch out on the simulated timeline,
// and move the recorder's clock as it plays: to when the first lane
// comes free after each query, which is when the next one starts, and to
// the batch's makespan at its end.
func TestSchedulerRecordsMakespan(t *testing.T) {
	in, out := alphabets(t)
	rec := &oracle.Recorder{}
	var readings []string
	rec.OnClock(func(now time.Duration) { readings = append(readings, now.String()) })
	s := &dispatch.Scheduler{Executors: []backend.Executor{&clocked{serial: "a"}, &clocked{serial: "b"}}, Inputs: in, Outputs: out,
		Sem: mealy.ClosureSemantics(in, out), Recorder: rec, Virtual: true}
	// a: wait [0,5]; b: start wait [0,2], start [2,3], wait wait [3,8].
	if _, err := s.Ask(context.Background(), words(t, in, "wait", "start wait", "start", "wait wait")); err != nil {
		t.Fatal(err)
	}
	// Then start alone, [8,9].
	if _, err := s.Ask(context.Background(), words(t, in, "start")); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(readings, " "), "2s 3s 5s 8s 9s"; got != want {
		t.Errorf("clock readings %s, want %s", got, want)
	}
	if got := rec.Clock(); got != 9*time.Second {
		t.Errorf("clock %s, want 9s", got)
	}
	// 5, 2, 1, 5 s and 1 s: 14 s of device time, 8 + 1 = 9 s of wall.
	if got := rec.EstimatedWall(); got != 9*time.Second {
		t.Errorf("estimated wall %s, want 9s", got)
	}
	if l, _ := rec.Snapshot(); l.DeviceSecs != 14 {
		t.Errorf("device seconds %g, want 14", l.DeviceSecs)
	}
}
