package calibrate_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/droidstar/droidstar/internal/backend"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/oracle"
	"github.com/droidstar/droidstar/internal/oracle/cache"
	"github.com/droidstar/droidstar/internal/oracle/calibrate"
	"github.com/droidstar/droidstar/internal/query"
)

const ms = time.Millisecond

// scripted is a device with one callback, cb, due latency[callin] after
// the callin before a wait (latency[the inputs up to the callin, joined
// by spaces] when listed, where a negative one means no callback); a wait
// that times out first answers quiet and the callback comes late, seen in
// the settle window (when showLate).
type scripted struct {
	latency    map[string]time.Duration
	quiescence time.Duration
	timeouts   func([]string) []time.Duration // per wait, when set (perWait)
	showLate   bool                           // the backend says when a late callback came
	overhead   time.Duration                  // a quiet wait's measured time beyond its timeout
	ran        []string
}

// perWait is scripted timing each wait on its own, as the simulator does.
type perWait struct{ *scripted }

func (p perWait) SetWaitTimeouts(ts func([]string) []time.Duration) { p.timeouts = ts }

func (s *scripted) SetQuiescence(d time.Duration) { s.quiescence = d }
func (s *scripted) Describe() model.DeviceInfo    { return model.DeviceInfo{Serial: "scripted"} }
func (s *scripted) Close() error                  { return nil }

func (s *scripted) Execute(_ context.Context, inputs []string) (query.Result, error) {
	res := query.Result{Quiescence: s.quiescence}
	ran := strings.Join(inputs, " ") + " @" + s.quiescence.String()
	var waits []time.Duration
	if s.timeouts != nil {
		waits = s.timeouts(inputs)
		res.Quiescence = 0
		res.Waits = make([]time.Duration, len(inputs))
		ran = fmt.Sprint(strings.Join(inputs, " "), " @", waits)
	}
	s.ran = append(s.ran, ran)
	due := time.Duration(-1)
	for k, in := range inputs {
		if in != mealy.Wait {
			res.Outputs = append(res.Outputs, "ok")
			res.Steps = append(res.Steps, 0)
			due = -1
			if l, ok := s.latency[strings.Join(inputs[:k+1], " ")]; ok {
				due = l
			} else if l, ok := s.latency[in]; ok {
				due = l
			}
			continue
		}
		timeout := s.quiescence
		if k < len(waits) && waits[k] > 0 {
			timeout = waits[k]
		}
		if res.Waits != nil {
			res.Waits[k] = timeout
		}
		switch {
		case due >= 0 && due <= timeout:
			res.Outputs = append(res.Outputs, "cb")
			res.Steps = append(res.Steps, due)
		case due >= 0:
			res.Outputs = append(res.Outputs, mealy.Quiet)
			res.Steps = append(res.Steps, timeout+s.overhead)
			late := query.Timing{Kind: "late", At: k, Callback: "cb"}
			if s.showLate {
				late.After = due
			}
			res.Timing = append(res.Timing, late)
		default:
			res.Outputs = append(res.Outputs, mealy.Quiet)
			res.Steps = append(res.Steps, timeout+s.overhead)
		}
		due = -1
	}
	return res, nil
}

// batched is scripted taking a batch per request, as a harness does.
type batched struct{ *scripted }

func (b batched) ExecuteBatch(ctx context.Context, queries [][]string) ([]query.Result, error) {
	var out []query.Result
	for _, q := range queries {
		res, err := b.Execute(ctx, q)
		if err != nil {
			return out, err
		}
		out = append(out, res)
	}
	return out, nil
}

// A harness keeps its batches under calibration: the wrapped executor is
// still a batch executor, the whole batch runs under the longest timeout
// its waits need when it starts (or the ceiling), and every result is
// observed.
func TestWrapKeepsBatches(t *testing.T) {
	cal, err := calibrate.New(100*ms, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	dev := &scripted{showLate: true, latency: map[string]time.Duration{"mid": 90 * ms, "slow": 300 * ms}}
	e, ok := cal.Wrap(batched{dev}, dev).(backend.BatchExecutor)
	if !ok {
		t.Fatal("a wrapped batch executor is no batch executor")
	}
	if _, err := e.ExecuteBatch(context.Background(), [][]string{{"mid", "wait"}, {"slow", "wait"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.ExecuteBatch(calibrate.AtCeiling(context.Background()), [][]string{{"wait"}}); err != nil {
		t.Fatal(err)
	}
	// mid+1 rose to 200ms, slow+1 to 600ms; the others stay at 100ms.
	if _, err := e.ExecuteBatch(context.Background(), [][]string{{"mid", "wait"}, {"go", "wait"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.ExecuteBatch(context.Background(), [][]string{{"go", "wait"}}); err != nil {
		t.Fatal(err)
	}
	want := []string{"mid wait @100ms", "slow wait @100ms", "wait @1s", "mid wait @200ms", "go wait @200ms", "go wait @100ms"}
	if !slices.Equal(dev.ran, want) {
		t.Errorf("ran %q, want %q", dev.ran, want)
	}
}

// Each context's timeout rises to twice the slowest callback seen in it,
// whether a wait saw it or it came late, and never above the ceiling; the
// other contexts keep theirs.
func TestCalibratorRaises(t *testing.T) {
	type ct = model.ContextTimeout
	cases := []struct {
		name     string
		showLate bool
		queries  []string
		want     model.AutoTimeout
	}{
		{"a fast callback below half the start changes nothing", true, []string{"fast wait"},
			model.AutoTimeout{StartMs: 100, SettledMs: 100, CeilingMs: 1000, SlowestMs: 40}},
		{"raised on the observed tail, at least doubling", true, []string{"fast wait", "mid wait"},
			model.AutoTimeout{StartMs: 100, SettledMs: 200, CeilingMs: 1000, SlowestMs: 90, Raises: 1,
				Contexts: []ct{{Context: "mid+1", TimeoutMs: 200, SlowestMs: 90}}}},
		{"each context on its own", true, []string{"mid wait", "tail wait"},
			model.AutoTimeout{StartMs: 100, SettledMs: 440, CeilingMs: 1000, SlowestMs: 220, Raises: 2, Late: 1,
				Contexts: []ct{{Context: "mid+1", TimeoutMs: 200, SlowestMs: 90}, {Context: "tail+1", TimeoutMs: 440, SlowestMs: 220}}}},
		{"raised on a late callback, to twice when it came", true, []string{"slow wait"},
			model.AutoTimeout{StartMs: 100, SettledMs: 600, CeilingMs: 1000, SlowestMs: 300, Raises: 1, Late: 1,
				Contexts: []ct{{Context: "slow+1", TimeoutMs: 600, SlowestMs: 300}}}},
		{"a late callback of unknown time: just after the timeout", false, []string{"slow wait"},
			model.AutoTimeout{StartMs: 100, SettledMs: 202, CeilingMs: 1000, SlowestMs: 101, Raises: 1, Late: 1,
				Contexts: []ct{{Context: "slow+1", TimeoutMs: 202, SlowestMs: 101}}}},
		{"the second wait after a callin is a context of its own", true, []string{"fast wait wait", "fast wait wait"},
			model.AutoTimeout{StartMs: 100, SettledMs: 100, CeilingMs: 1000, SlowestMs: 40}},
		{"the ceiling holds", true, []string{"mid wait", "slow wait", "slowest wait", "slowest wait"},
			model.AutoTimeout{StartMs: 100, SettledMs: 1000, CeilingMs: 1000, SlowestMs: 700, Raises: 3, Late: 2,
				Contexts: []ct{{Context: "mid+1", TimeoutMs: 200, SlowestMs: 90}, {Context: "slow+1", TimeoutMs: 600, SlowestMs: 300},
					{Context: "slowest+1", TimeoutMs: 1000, SlowestMs: 700}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cal, err := calibrate.New(100*ms, time.Second)
			if err != nil {
				t.Fatal(err)
			}
			dev := &scripted{showLate: c.showLate, latency: map[string]time.Duration{
				"fast": 40 * ms, "mid": 90 * ms, "tail": 220 * ms, "slow": 300 * ms, "slowest": 700 * ms}}
			e := cal.Wrap(dev, dev)
			for _, q := range c.queries {
				if _, err := e.Execute(context.Background(), strings.Fields(q)); err != nil {
					t.Fatal(err)
				}
			}
			if got := cal.Settled(0); !reflect.DeepEqual(*got, c.want) {
				t.Errorf("settled %+v, want %+v", *got, c.want)
			}
		})
	}
}

// An executor that times each wait on its own (the simulator) runs each
// under its context's timeout; one that takes one timeout per query runs
// the query under the longest its waits need; a query that confirms
// quiets runs every wait under the ceiling.
func TestWaitsRunUnderTheirContextsTimeouts(t *testing.T) {
	cal, err := calibrate.New(100*ms, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	latency := map[string]time.Duration{"slow": 300 * ms, "fast": 40 * ms}
	dev := &scripted{showLate: true, latency: latency}
	one := &scripted{showLate: true, latency: latency}
	each, whole := cal.Wrap(perWait{dev}, perWait{dev}), cal.Wrap(one, one)
	ctx := context.Background()
	for _, q := range []string{"slow wait", "slow wait fast wait wait"} {
		if _, err := each.Execute(ctx, strings.Fields(q)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := each.Execute(calibrate.AtCeiling(ctx), []string{"fast", "wait"}); err != nil {
		t.Fatal(err)
	}
	if _, err := whole.Execute(ctx, strings.Fields("slow wait fast wait wait")); err != nil {
		t.Fatal(err)
	}
	want := []string{"slow wait @[0s 100ms]", "slow wait fast wait wait @[0s 600ms 0s 100ms 100ms]", "fast wait @1s"}
	if !slices.Equal(dev.ran, want) {
		t.Errorf("each wait on its own ran %q, want %q", dev.ran, want)
	}
	if want := []string{"slow wait fast wait wait @600ms"}; !slices.Equal(one.ran, want) {
		t.Errorf("one timeout per query ran %q, want %q", one.ran, want)
	}
}

// A late callback of unknown time came after the timeout its own wait ran
// under (the result's Waits), not after the wait's measured time, which a
// harness measures a little longer.
func TestALateCallbackComesAfterItsOwnWaitsTimeout(t *testing.T) {
	cal, err := calibrate.New(100*ms, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	dev := &scripted{latency: map[string]time.Duration{"slow": 300 * ms}, overhead: 3 * ms}
	if _, err := cal.Wrap(perWait{dev}, perWait{dev}).Execute(context.Background(), []string{"slow", "wait"}); err != nil {
		t.Fatal(err)
	}
	want := model.AutoTimeout{StartMs: 100, SettledMs: 202, CeilingMs: 1000, SlowestMs: 101, Raises: 1, Late: 1,
		Contexts: []model.ContextTimeout{{Context: "slow+1", TimeoutMs: 202, SlowestMs: 101}}}
	if got := cal.Settled(0); !reflect.DeepEqual(*got, want) {
		t.Errorf("settled %+v, want %+v", *got, want)
	}
}

func TestNewRejectsBadTimeouts(t *testing.T) {
	for _, c := range []struct {
		start, ceiling time.Duration
		want           string
	}{
		{0, time.Second, "the starting timeout must be positive, got 0s"},
		{2 * time.Second, time.Second, "the starting timeout 2s is above the ceiling 1s"},
	} {
		if _, err := calibrate.New(c.start, c.ceiling); err == nil || err.Error() != c.want {
			t.Errorf("New(%s, %s) = %v, want %q", c.start, c.ceiling, err, c.want)
		}
	}
}

// run is the scheduler in miniature: each query on the wrapped executor,
// its result as an answer.
type run struct {
	e       backend.Executor
	in, out *mealy.Alphabet
}

func (r run) Ask(ctx context.Context, queries []mealy.Word) ([]oracle.Answer, error) {
	var answers []oracle.Answer
	for _, q := range queries {
		res, err := r.e.Execute(ctx, r.in.Strings(q))
		if err != nil {
			return nil, err
		}
		outs, err := r.out.Word(res.Outputs...)
		if err != nil {
			return nil, err
		}
		answers = append(answers, oracle.Answer{Outputs: outs, ErrAt: -1, Steps: res.Steps, Quiescence: res.Quiescence})
	}
	return answers, nil
}

// A quiet answered under a shorter timeout than its wait's current one is
// never an answer: one that arrives stale (its own late callback raised
// the timeout) runs again at once, and those kept from before a raise in
// their context are dropped when the next batch comes (which then says
// the learner must start again) or before the model is declared final.
// A quiet in a context the raise left alone stays.
func TestCacheReRunsStaleQuiets(t *testing.T) {
	in, out := mealy.MustAlphabet("go", "stop", mealy.Wait), mealy.MustAlphabet("ok", mealy.Quiet, mealy.Err, "cb")
	cal, err := calibrate.New(100*ms, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	// go gives a callback 300ms later, except after stop.
	latency := map[string]time.Duration{"go": 300 * ms, "stop go": -1}
	dev := &scripted{showLate: true, latency: latency}
	answers := cache.New(run{cal.Wrap(dev, dev), in, out}, in, out, mealy.ClosureSemantics(in, out), &oracle.Recorder{})
	answers.Quiet = cal.Words(in)
	ctx := context.Background()
	ask := func(q string) (string, error) {
		t.Helper()
		got, err := answers.Ask(ctx, []mealy.Word{in.MustWord(strings.Fields(q)...)})
		if err != nil {
			return "", err
		}
		return strings.Join(out.Strings(got[0].Outputs), " "), nil
	}

	// stop go wait and stop wait are quiet for good, under the start.
	for _, q := range []string{"stop go wait", "stop wait"} {
		if got, err := ask(q); err != nil || !strings.HasSuffix(got, " quiet") {
			t.Fatalf("%s = %q, %v", q, got, err)
		}
	}
	// go wait answers quiet under 100ms, its callback comes late at
	// 300ms: go+1 rises to 600ms and it runs again; stop go wait's quiet
	// (go+1 too) is dropped as stale, which the learner must hear.
	if _, err := ask("go wait"); !errors.Is(err, oracle.ErrRevised) {
		t.Fatalf("go wait: %v, want %v", err, oracle.ErrRevised)
	}
	if got, err := ask("go wait"); err != nil || got != "ok cb" {
		t.Fatalf("go wait again = %q, %v", got, err)
	}
	for _, q := range []string{"stop go wait", "stop wait"} {
		if got, err := ask(q); err != nil || !strings.HasSuffix(got, " quiet") {
			t.Fatalf("%s again = %q, %v", q, got, err)
		}
	}
	want := []string{"stop go wait @100ms", "stop wait @100ms", "go wait @100ms", "go wait @600ms", "stop go wait @600ms"}
	if !slices.Equal(dev.ran, want) || answers.Stale() != 2 {
		t.Errorf("ran %q with %d stale, want %q with 2", dev.ran, answers.Stale(), want)
	}

	// A raise after the last batch (by another lane's query) leaves stale
	// quiets that DropStale finds before the model is declared final.
	cal2, _ := calibrate.New(100*ms, time.Second)
	dev2 := &scripted{showLate: true, latency: latency}
	wrapped := cal2.Wrap(dev2, dev2)
	answers = cache.New(run{wrapped, in, out}, in, out, mealy.ClosureSemantics(in, out), &oracle.Recorder{})
	answers.Quiet = cal2.Words(in)
	if got, err := ask("stop go wait"); err != nil || got != "ok ok quiet" {
		t.Fatalf("stop go wait = %q, %v", got, err)
	}
	// Another pipeline's query on the same calibrator raises it.
	if _, err := wrapped.Execute(ctx, []string{"go", mealy.Wait}); err != nil {
		t.Fatal(err)
	}
	if revised, err := answers.DropStale(ctx, oracle.Observations{}); err != nil || !revised {
		t.Fatalf("DropStale = %v, %v; want a revision", revised, err)
	}
	if got, err := ask("stop go wait"); err != nil || got != "ok ok quiet" {
		t.Fatalf("stop go wait once more = %q, %v", got, err)
	}
	if revised, _ := answers.DropStale(ctx, oracle.Observations{}); revised {
		t.Error("DropStale revised again with nothing stale left")
	}
	want = []string{"stop go wait @100ms", "go wait @100ms", "stop go wait @600ms"}
	if !slices.Equal(dev2.ran, want) || answers.Stale() != 1 {
		t.Errorf("ran %q with %d stale, want %q with 1", dev2.ran, answers.Stale(), want)
	}
}

// failOnce fails its next Ask once armed, as a device that vanished or a
// batch the bound oracle cut off does.
type failOnce struct {
	oracle.Oracle
	armed bool
}

var errGone = errors.New("the device is gone")

func (f *failOnce) Ask(ctx context.Context, qs []mealy.Word) ([]oracle.Answer, error) {
	if f.armed {
		f.armed = false
		return nil, errGone
	}
	return f.Oracle.Ask(ctx, qs)
}

// Stale answers dropped by an Ask that then fails are still told to the
// learner, by the next Ask.
func TestCacheTellsStaleAnswersAfterAFailedAsk(t *testing.T) {
	in, out := mealy.MustAlphabet("go", "stop", mealy.Wait), mealy.MustAlphabet("ok", mealy.Quiet, mealy.Err, "cb")
	cal, _ := calibrate.New(100*ms, time.Second)
	dev := &scripted{showLate: true, latency: map[string]time.Duration{"go": 300 * ms, "stop go": -1}}
	wrapped := cal.Wrap(dev, dev)
	next := &failOnce{Oracle: run{wrapped, in, out}}
	answers := cache.New(next, in, out, mealy.ClosureSemantics(in, out), &oracle.Recorder{})
	answers.Quiet = cal.Words(in)
	ctx := context.Background()
	stopWait, goWait := in.MustWord("stop", "go", mealy.Wait), in.MustWord("go", mealy.Wait)
	if _, err := answers.Ask(ctx, []mealy.Word{stopWait}); err != nil {
		t.Fatal(err)
	}
	if _, err := wrapped.Execute(ctx, []string{"go", mealy.Wait}); err != nil { // raises to 600ms
		t.Fatal(err)
	}
	next.armed = true
	if _, err := answers.Ask(ctx, []mealy.Word{goWait}); !errors.Is(err, errGone) {
		t.Fatalf("first Ask after the raise: %v, want %v", err, errGone)
	}
	if _, err := answers.Ask(ctx, []mealy.Word{goWait}); !errors.Is(err, oracle.ErrRevised) {
		t.Fatalf("next Ask: %v, want %v (stop go wait's quiet was dropped)", err, oracle.ErrRevised)
	}
	if got, err := answers.Ask(ctx, []mealy.Word{goWait}); err != nil || strings.Join(out.Strings(got[0].Outputs), " ") != "ok cb" {
		t.Fatalf("go wait = %v, %v", got, err)
	}
}
