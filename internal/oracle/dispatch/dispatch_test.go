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

// echo answers each input with the output of the same position in
// answers (cycled), records what it ran, and can stop early or warn.
type echo struct {
	serial  string
	answers []string
	stopAt  int // answer only this many outputs (0: all)
	warn    string
	mu      sync.Mutex
	ran     []string
}

func (e *echo) Execute(_ context.Context, in []string) (query.Result, error) {
	e.mu.Lock()
	e.ran = append(e.ran, strings.Join(in, " "))
	e.mu.Unlock()
	res := query.Result{Device: time.Duration(len(in)) * time.Second}
	for k := range in {
		if e.stopAt > 0 && k == e.stopAt {
			break
		}
		res.Outputs = append(res.Outputs, e.answers[k%len(e.answers)])
	}
	if e.warn != "" {
		res.Warnings = []string{e.warn}
	}
	return res, nil
}

func (e *echo) Describe() model.DeviceInfo { return model.DeviceInfo{Serial: e.serial} }
func (e *echo) Close() error               { return nil }

func alphabets(t *testing.T) (in, out *mealy.Alphabet) {
	t.Helper()
	in, out, err := mealy.ClosureAlphabets([]string{"start"}, []string{"fired"})
	if err != nil {
		t.Fatal(err)
	}
	return in, out
}

func TestSchedulerSpreadsOverExecutors(t *testing.T) {
	in, out := alphabets(t)
	execs := []*echo{{serial: "a", answers: []string{"ok", "fired"}, warn: "late fired"},
		{serial: "b", answers: []string{"ok", "fired"}}, {serial: "c", answers: []string{"ok", "fired"}, warn: "late fired"}}
	var bs []backend.Executor
	for _, e := range execs {
		bs = append(bs, e)
	}
	rec := &oracle.Recorder{}
	s := &dispatch.Scheduler{Executors: bs, Inputs: in, Outputs: out, Sem: mealy.ClosureSemantics(in, out), Recorder: rec}
	var qs []mealy.Word
	for k := range 30 {
		qs = append(qs, slices.Repeat(mealy.Word{k % 2}, 1+k%4))
	}
	ans, err := s.Ask(context.Background(), qs)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, e := range execs {
		total += len(e.ran)
	}
	if total != 30 {
		t.Fatalf("ran %d queries, want 30", total)
	}
	for k, q := range qs {
		want := strings.Join([]string{"ok", "fired", "ok", "fired"}[:len(q)], " ")
		if got := out.Format(ans[k].Outputs); got != want || ans[k].ErrAt != -1 || ans[k].Device == "" {
			t.Fatalf("query %d answered %q (%+v), want %q", k, got, ans[k], want)
		}
	}
	l, _ := rec.Snapshot()
	if l.Executed != 30 || l.Symbols != 73 || l.DeviceSecs != 73 {
		t.Fatalf("recorded %+v", l)
	}
	if w := rec.Warnings(); fmt.Sprint(w) != "[late fired]" {
		t.Errorf("warnings %q", w)
	}
}

// The outputs after the first err are err, explained by the executor's
// Err; an executor that stops early without an err, or answers a name
// that is no output, is an error naming the executor and the query.
func TestSchedulerConvertsOutputs(t *testing.T) {
	in, out := alphabets(t)
	cases := []struct {
		exec     *echo
		want     string
		wantErr  string
		wantInfo *model.ErrInfo
	}{
		{exec: &echo{serial: "d", answers: []string{"ok", "err"}}, want: "ok err err", wantInfo: &model.ErrInfo{Kind: model.ErrUnknown}},
		{exec: &echo{serial: "d", answers: []string{"ok"}, stopAt: 1}, wantErr: "d: query start wait start: backend stopped after 1 of 3 inputs without an err"},
		{exec: &echo{serial: "d", answers: []string{"onFire"}}, wantErr: `d: query start wait start: backend answered "onFire", which is not an output (outputs: ok, quiet, err, fired)`},
	}
	for _, c := range cases {
		s := &dispatch.Scheduler{Executors: []backend.Executor{c.exec}, Inputs: in, Outputs: out,
			Sem: mealy.ClosureSemantics(in, out), Recorder: &oracle.Recorder{}}
		ans, err := s.Ask(context.Background(), []mealy.Word{in.MustWord("start", "wait", "start")})
		if c.wantErr != "" {
			if err == nil || err.Error() != c.wantErr {
				t.Errorf("error %v, want %q", err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		a := ans[0]
		if got := out.Format(a.Outputs); got != c.want || a.ErrAt != 1 || *a.Err != *c.wantInfo {
			t.Errorf("got %s %+v %+v, want %s", got, a, a.Err, c.want)
		}
	}
}

// batchEcho is an echo that takes batches, recording each call's batch;
// it can fail at a query (a *query.Error after the results before
// it) or, with wholeErr, fail the whole batch after failAt results.
type batchEcho struct {
	*echo
	failAt   int // -1: never
	failErr  error
	wholeErr bool
	mu       sync.Mutex
	batches  [][]string
}

func (b *batchEcho) ExecuteBatch(ctx context.Context, qs [][]string) ([]query.Result, error) {
	var names []string
	for _, q := range qs {
		names = append(names, strings.Join(q, " "))
	}
	b.mu.Lock()
	b.batches = append(b.batches, names)
	b.mu.Unlock()
	var out []query.Result
	for k, q := range qs {
		if k == b.failAt {
			if b.wholeErr {
				return out, b.failErr
			}
			return out, &query.Error{Index: k, Err: b.failErr}
		}
		res, _ := b.echo.Execute(ctx, q)
		out = append(out, res)
	}
	return out, nil
}

// TestSchedulerGivesEachBatchExecutorItsShare: executors that take
// batches get one call per batch each, holding their share; the answers,
// the counts per executor and the device of each answer are those of the
// queries each ran.
func TestSchedulerGivesEachBatchExecutorItsShare(t *testing.T) {
	in, out := alphabets(t)
	execs := []*batchEcho{
		{echo: &echo{serial: "a", answers: []string{"ok", "fired"}, warn: "late fired"}, failAt: -1},
		{echo: &echo{serial: "b", answers: []string{"ok", "fired"}}, failAt: -1},
	}
	rec := &oracle.Recorder{}
	s := &dispatch.Scheduler{Executors: []backend.Executor{execs[0], execs[1]}, Inputs: in, Outputs: out,
		Sem: mealy.ClosureSemantics(in, out), Recorder: rec}
	var qs []mealy.Word
	for k := range 7 {
		qs = append(qs, slices.Repeat(mealy.Word{k % 2}, 1+k%3))
	}
	for round := 1; round <= 2; round++ {
		ans, err := s.Ask(context.Background(), qs)
		if err != nil {
			t.Fatal(err)
		}
		ran := map[string]string{}
		for _, e := range execs {
			if len(e.batches) != round {
				t.Fatalf("executor %s got %d batches after %d asks, want one per ask", e.serial, len(e.batches), round)
			}
			for _, q := range e.batches[round-1] {
				ran[q] = e.serial
			}
		}
		for k, q := range qs {
			want := strings.Join([]string{"ok", "fired", "ok"}[:len(q)], " ")
			if got := out.Format(ans[k].Outputs); got != want || ans[k].Device != ran[in.Format(q)] {
				t.Errorf("query %d answered %q on %q, want %q on %q", k, got, ans[k].Device, want, ran[in.Format(q)])
			}
		}
	}
	// The shares: longest queries first, each to the lighter share; each
	// share keeps the batch's order.
	for k, want := range []string{"start | wait wait | start start start | start", "wait | start start | wait wait wait"} {
		if got := strings.Join(execs[k].batches[0], " | "); got != want {
			t.Errorf("share of %s: %s, want %s", execs[k].serial, got, want)
		}
	}
	devices := rec.Devices()
	if len(devices) != 2 || devices[0].Executed+devices[1].Executed != 14 || devices[0].Busy || devices[1].Busy {
		t.Errorf("devices %+v", devices)
	}
	for _, d := range devices {
		for _, e := range execs {
			if e.serial == d.Serial && d.Executed != 2*len(e.batches[0]) {
				t.Errorf("%s executed %d, ran %d", d.Serial, d.Executed, 2*len(e.batches[0]))
			}
		}
	}
	l, _ := rec.Snapshot()
	if l.Executed != 14 || l.Symbols != 2*(1+2+3+1+2+3+1) {
		t.Errorf("recorded %+v", l)
	}
	if w := rec.Warnings(); fmt.Sprint(w) != "[late fired]" {
		t.Errorf("warnings %q", w)
	}
}

// TestSchedulerBatchFailures: a failed batch names the query a
// *query.Error blames, or the queries left without an answer, and
// hands on the answers it did get in an *oracle.PartialError.
func TestSchedulerBatchFailures(t *testing.T) {
	in, out := alphabets(t)
	qs := []mealy.Word{in.MustWord("start"), in.MustWord("wait", "start"), in.MustWord("start", "start"),
		in.MustWord("wait"), in.MustWord("start", "wait"), in.MustWord("wait", "wait")}
	boom := errors.New("boom")
	cases := []struct {
		failAt   int
		wholeErr bool
		want     string
	}{
		{failAt: 2, want: "b: query start start: boom"},
		{failAt: 0, want: "b: query start: boom"},
		{failAt: 2, wholeErr: true, want: "b: 4 queries (start start, wait, start wait and 1 more): boom"},
		{failAt: 4, wholeErr: true, want: "b: 2 queries (start wait, wait wait): boom"},
		{failAt: 5, wholeErr: true, want: "b: query wait wait: boom"},
	}
	for _, c := range cases {
		b := &batchEcho{echo: &echo{serial: "b", answers: []string{"ok", "fired"}}, failAt: c.failAt, failErr: boom, wholeErr: c.wholeErr}
		rec := &oracle.Recorder{}
		s := &dispatch.Scheduler{Executors: []backend.Executor{b}, Inputs: in, Outputs: out, Sem: mealy.ClosureSemantics(in, out), Recorder: rec}
		_, err := s.Ask(context.Background(), qs)
		if err == nil || err.Error() != c.want || !errors.Is(err, boom) {
			t.Errorf("failAt %d: error %v, want %s", c.failAt, err, c.want)
			continue
		}
		var pe *oracle.PartialError
		if c.failAt == 0 {
			if errors.As(err, &pe) {
				t.Errorf("failAt 0: a partial error with nothing answered")
			}
			continue
		}
		if !errors.As(err, &pe) {
			t.Errorf("failAt %d: %T is no partial error", c.failAt, err)
			continue
		}
		for k := range qs {
			if pe.Answered[k] != (k < c.failAt) {
				t.Errorf("failAt %d: query %d answered=%v", c.failAt, k, pe.Answered[k])
			}
		}
		if got := out.Format(pe.Answers[1].Outputs); got != "ok fired" || pe.Answers[1].Device != "b" {
			t.Errorf("failAt %d: answer 1 %q on %q", c.failAt, got, pe.Answers[1].Device)
		}
		if l, _ := rec.Snapshot(); l.Executed != c.failAt {
			t.Errorf("failAt %d: recorded %d executed", c.failAt, l.Executed)
		}
	}
}

// Executors that run one query at a time hand on what they answered
// before a failure, too.
func TestSchedulerPartialAnswersOneByOne(t *testing.T) {
	in, out := alphabets(t)
	e := &echo{serial: "d", answers: []string{"ok"}, stopAt: 1}
	s := &dispatch.Scheduler{Executors: []backend.Executor{e}, Inputs: in, Outputs: out, Sem: mealy.ClosureSemantics(in, out), Recorder: &oracle.Recorder{}}
	_, err := s.Ask(context.Background(), []mealy.Word{in.MustWord("start"), in.MustWord("start", "start")})
	var pe *oracle.PartialError
	if !errors.As(err, &pe) || err.Error() != "d: query start start: backend stopped after 1 of 2 inputs without an err" ||
		!pe.Answered[0] || pe.Answered[1] || out.Format(pe.Answers[0].Outputs) != "ok" {
		t.Fatalf("error %v (%+v)", err, pe)
	}
}

// A batch asked under oracle.OnDevice runs on that executor alone; a
// serial the scheduler does not have pins nothing.
func TestSchedulerRunsPinnedBatchOnItsDevice(t *testing.T) {
	in, out := alphabets(t)
	for _, tc := range []struct {
		pin          string
		wantA, wantB int
	}{
		{pin: "b", wantA: 0, wantB: 4},
		{pin: "a", wantA: 4, wantB: 0},
		{pin: "gone", wantA: -1}, // either executor, as if unpinned
	} {
		a := &echo{serial: "a", answers: []string{"ok"}}
		b := &echo{serial: "b", answers: []string{"ok"}}
		s := &dispatch.Scheduler{Executors: []backend.Executor{a, b}, Inputs: in, Outputs: out, Sem: mealy.ClosureSemantics(in, out), Recorder: &oracle.Recorder{}}
		w := in.MustWord("start")
		answers, err := s.Ask(oracle.OnDevice(context.Background(), tc.pin), []mealy.Word{w, w, w, w})
		if err != nil {
			t.Fatal(err)
		}
		if tc.wantA < 0 {
			if len(a.ran)+len(b.ran) != 4 {
				t.Errorf("pin %q: ran %d queries", tc.pin, len(a.ran)+len(b.ran))
			}
			continue
		}
		if len(a.ran) != tc.wantA || len(b.ran) != tc.wantB {
			t.Errorf("pin %q: a ran %d, b ran %d; want %d, %d", tc.pin, len(a.ran), len(b.ran), tc.wantA, tc.wantB)
		}
		if tc.wantB == 4 && answers[0].Device != "b" {
			t.Errorf("pin %q: answered by %q", tc.pin, answers[0].Device)
		}
	}
}
