package sim

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/droidstar/droidstar/internal/backend"
	"github.com/droidstar/droidstar/internal/query"

	"github.com/droidstar/droidstar/internal/model"
)

const recognizer = `digraph {
  __start0 -> idle;
  idle -> listening [label="start / ok"];
  idle -> idle [label="wait / quiet"];
  listening -> ready [label="wait / starting"];
  listening -> settling [label="cancel / ok"];
  settling -> idle [label="wait / quiet"];
  ready -> idle [label="wait / finished"];
}`

func newRecognizer(t *testing.T, realtime bool) *Executor {
	t.Helper()
	m, err := ParseModel("recognizer.dot", []byte(recognizer), "")
	if err != nil {
		t.Fatal(err)
	}
	return NewExecutor(m, Timing{
		Quiescence: 8 * time.Second, Reset: 150 * time.Millisecond,
		Latency: map[string]time.Duration{"starting": 300 * time.Millisecond}, DefaultLatency: 50 * time.Millisecond,
		Realtime: realtime,
	}, "sim-0")
}

func TestExecutorAnswersAndChargesTheVirtualClock(t *testing.T) {
	e := newRecognizer(t, false)
	cases := []struct {
		query, want string
		device      time.Duration
	}{
		// reset + starting latency + default latency for finished + one quiescence
		{"start wait wait wait", "ok starting finished quiet", 150*time.Millisecond + 300*time.Millisecond + 50*time.Millisecond + 8*time.Second},
		// a wait right after a quiet answers quiet at once: no time, no state change
		{"wait wait wait start", "quiet quiet quiet ok", 150*time.Millisecond + 8*time.Second},
		// the object settles by itself on a quiet wait, then start works again
		{"start cancel wait start", "ok ok quiet ok", 150*time.Millisecond + 8*time.Second},
		// err stops the query: nothing after it runs or costs time
		{"start start wait", "ok err", 150 * time.Millisecond},
	}
	for _, c := range cases {
		res, err := e.Execute(context.Background(), strings.Fields(c.query))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(res.Outputs, " "); got != c.want || res.Device != c.device {
			t.Errorf("%s: %q in %v, want %q in %v", c.query, got, res.Device, c.want, c.device)
		}
		if strings.HasSuffix(c.want, "err") && (res.Err == nil || res.Err.Kind != model.ErrThrown) {
			t.Errorf("%s: err info %+v", c.query, res.Err)
		}
	}
	if _, err := e.Execute(context.Background(), []string{"stop"}); err == nil || err.Error() != `the model recognizer.dot has no input "stop"` {
		t.Errorf("unknown input: %v", err)
	}
	if d := e.Describe(); d.Serial != "sim-0" || d.Model != "simulator (mealy-dot)" {
		t.Errorf("describe %+v", d)
	}
	e.Close()
	if _, err := e.Execute(context.Background(), []string{"start"}); err == nil {
		t.Error("a closed simulator still answers")
	}
}

// In real time the simulator sleeps for what it charges, and gives up as
// soon as the run is cancelled.
func TestExecutorRealtimeStopsOnCancel(t *testing.T) {
	e := newRecognizer(t, true)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := e.Execute(ctx, []string{"wait"}) // would sleep 8.15 s
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

const lateWarning = "timing: callback %s arrived after a wait had answered quiet: timeouts.quiescence is too short for it"

// A callback slower than the quiescence timeout makes its wait answer
// quiet and comes later, where a device's harness would see it.
func TestExecutorLateCallbacks(t *testing.T) {
	const task = `digraph {
  __start0 -> idle;
  idle -> running [label="exec / ok"];
  idle -> idle [label="ping / ok"];
  idle -> idle [label="wait / quiet"];
  running -> running [label="ping / ok"];
  running -> done [label="wait / post"];
  running -> idle [label="cancel / ok"];
  done -> done [label="ping / ok"];
  done -> done [label="wait / quiet"];
}`
	const ms = time.Millisecond
	cases := []struct {
		name, model, query string
		latency            map[string]time.Duration
		want               string
		steps              []time.Duration
		warnings           []string
		late               []query.Timing
		// reset is the reset's charge: 250ms with the settle time, 50ms
		// without it, for a query that does not end waiting quiet
		reset time.Duration
	}{
		// The real answer is ok starting finished: starting comes at 300 ms,
		// in the settle window after the quiet chain, finished 50 ms later;
		// the window ends at 400 ms.
		{"late in the settle window", recognizer, "start wait wait", map[string]time.Duration{"starting": 300 * ms},
			"ok quiet quiet", []time.Duration{0, 200 * ms, 0},
			[]string{fmt.Sprintf(lateWarning, "starting"), fmt.Sprintf(lateWarning, "finished")},
			[]query.Timing{{Kind: "late", At: 1, Callback: "starting", After: 300 * ms}, {Kind: "late", At: 1, Callback: "finished", After: 350 * ms}}, 250 * ms},
		// Due after the settle time: lost with the instance, unseen.
		{"later than the settle time", recognizer, "start wait", map[string]time.Duration{"starting": 400 * ms},
			"ok quiet", []time.Duration{0, 200 * ms}, nil, nil, 250 * ms},
		// A callin that leaves the state pre-empts the callback: a wrong
		// answer (the model says start wait cancel is ok starting err) that
		// nothing flags.
		{"pre-empted by a callin", recognizer, "start wait cancel wait", map[string]time.Duration{"starting": 300 * ms},
			"ok quiet ok quiet", []time.Duration{0, 200 * ms, 0, 200 * ms}, nil, nil, 250 * ms},
		// A callin that keeps it due: the callback answers the next wait
		// after the callin, 100 ms into it (exec wait ping wait is
		// ok post ok quiet in the model).
		{"answers a later wait", task, "exec wait ping wait wait", map[string]time.Duration{"post": 300 * ms},
			"ok quiet ok post quiet", []time.Duration{0, 200 * ms, 0, 100 * ms, 200 * ms}, nil, nil, 250 * ms},
		// Exactly the timeout is in time, as the harness's wait includes it;
		// ending on a callback, the query skips the settle time.
		{"at the timeout", task, "exec wait", map[string]time.Duration{"post": 200 * ms},
			"ok post", []time.Duration{0, 200 * ms}, nil, nil, 50 * ms},
		// After an err nothing is late, and the settle time is skipped.
		{"err stops the window", recognizer, "start wait start", map[string]time.Duration{"starting": 300 * ms},
			"ok quiet err", []time.Duration{0, 200 * ms, 0}, nil, nil, 50 * ms},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := ParseModel("m.dot", []byte(c.model), "")
			if err != nil {
				t.Fatal(err)
			}
			e := NewExecutor(m, Timing{
				Quiescence: 200 * ms, Reset: 250 * ms, Settle: 200 * ms,
				Latency: c.latency, DefaultLatency: 50 * ms,
			}, "sim-0")
			res, steps, err := e.Run(context.Background(), strings.Fields(c.query))
			if err != nil {
				t.Fatal(err)
			}
			var device time.Duration
			for _, s := range c.steps {
				device += s
			}
			if got := strings.Join(res.Outputs, " "); got != c.want {
				t.Errorf("answers %q, want %q", got, c.want)
			}
			if !slices.Equal(steps, c.steps) || res.Device != c.reset+device {
				t.Errorf("steps %v in %v, want %v in %v", steps, res.Device, c.steps, c.reset+device)
			}
			if got := res.TimingWarnings(strings.Fields(c.query), ""); !slices.Equal(got, c.warnings) || len(res.Warnings) != 0 {
				t.Errorf("timing warnings %q (other warnings %q), want %q", got, res.Warnings, c.warnings)
			}
			if !slices.Equal(res.Timing, c.late) || res.Quiescence != 200*ms {
				t.Errorf("late %v under %v, want %v under 200ms", res.Timing, res.Quiescence, c.late)
			}
		})
	}
}

// slowStarter is the recognizer whose starting comes 300ms after start,
// its other callbacks 50ms after the one before, under a quiescence
// timeout of 200ms.
func slowStarter(t *testing.T) *Executor {
	t.Helper()
	m, err := ParseModel("recognizer.dot", []byte(recognizer), "")
	if err != nil {
		t.Fatal(err)
	}
	const ms = time.Millisecond
	return NewExecutor(m, Timing{
		Quiescence: 200 * ms, Reset: 250 * ms, Settle: 200 * ms,
		Latency: map[string]time.Duration{"starting": 300 * ms}, DefaultLatency: 50 * ms,
	}, "sim-0")
}

// The quiescence timeout can change from one query to the next (the
// calibration of --timeout auto), and each result says what it ran under.
func TestExecutorSetQuiescence(t *testing.T) {
	const ms = time.Millisecond
	e := slowStarter(t)
	cases := []struct {
		quiescence time.Duration
		want       string
		device     time.Duration
		late       []query.Timing
	}{
		// ending on a callback, the query skips the settle time (200ms)
		{400 * ms, "ok starting finished", 50*ms + 300*ms + 50*ms, nil},
		{200 * ms, "ok quiet quiet", 250*ms + 200*ms,
			[]query.Timing{{Kind: "late", At: 1, Callback: "starting", After: 300 * ms}, {Kind: "late", At: 1, Callback: "finished", After: 350 * ms}}},
		{300 * ms, "ok starting finished", 50*ms + 300*ms + 50*ms, nil},
	}
	for _, c := range cases {
		e.SetQuiescence(c.quiescence)
		res, err := e.Execute(context.Background(), strings.Fields("start wait wait"))
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(res.Outputs, " ")
		if got != c.want || res.Device != c.device || res.Quiescence != c.quiescence || !slices.Equal(res.Timing, c.late) {
			t.Errorf("under %v: %q in %v (ran under %v), late %v; want %q in %v, late %v",
				c.quiescence, got, res.Device, res.Quiescence, res.Timing, c.want, c.device, c.late)
		}
	}
}

// Each wait can have its own timeout (backend.WaitTimeoutSetter): a short
// one answers quiet where a longer one would have seen the callback, the
// result reports no single timeout and each wait's own (none for a wait
// the rules answer), and nil goes back to the quiescence timeout for
// every wait.
func TestExecutorSetWaitTimeouts(t *testing.T) {
	const ms = time.Millisecond
	e := slowStarter(t)
	var _ backend.WaitTimeoutSetter = e
	cases := []struct {
		waits      []time.Duration
		want       string
		steps      []time.Duration
		quiescence time.Duration
		ran        []time.Duration
	}{
		{[]time.Duration{0, 400 * ms, 10 * ms}, "ok starting quiet", []time.Duration{0, 300 * ms, 10 * ms}, 0,
			[]time.Duration{0, 400 * ms, 10 * ms}},
		{[]time.Duration{0, 400 * ms}, "ok starting finished", []time.Duration{0, 300 * ms, 50 * ms}, 0,
			[]time.Duration{0, 400 * ms, 200 * ms}},
		{[]time.Duration{0, 100 * ms, 400 * ms}, "ok quiet quiet", []time.Duration{0, 100 * ms, 0}, 0,
			[]time.Duration{0, 100 * ms, 0}},
		{nil, "ok quiet quiet", []time.Duration{0, 200 * ms, 0}, 200 * ms, nil},
	}
	for _, c := range cases {
		e.SetWaitTimeouts(nil)
		if c.waits != nil {
			e.SetWaitTimeouts(func(q []string) []time.Duration {
				if strings.Join(q, " ") != "start wait wait" {
					t.Errorf("asked the timeouts of %q", q)
				}
				return c.waits
			})
		}
		res, err := e.Execute(context.Background(), strings.Fields("start wait wait"))
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(res.Outputs, " ")
		if got != c.want || !slices.Equal(res.Steps, c.steps) || res.Quiescence != c.quiescence || !slices.Equal(res.Waits, c.ran) {
			t.Errorf("waits %v: %q, steps %v, under %v, waits %v; want %q, steps %v, under %v, waits %v",
				c.waits, got, res.Steps, res.Quiescence, res.Waits, c.want, c.steps, c.quiescence, c.ran)
		}
	}
}

// A latency range is drawn per callback, in whole milliseconds, as a
// function of the seed and the query: the same on every executor and run,
// a prefix charged as in the query it starts, and spread over the range.
func TestExecutorDrawsLatencies(t *testing.T) {
	m, err := ParseModel("recognizer.dot", []byte(recognizer), "")
	if err != nil {
		t.Fatal(err)
	}
	const ms = time.Millisecond
	timing := func(seed uint64) Timing {
		return Timing{
			Quiescence: 8 * time.Second, Reset: 150 * ms,
			Latency: map[string]time.Duration{"starting": 80 * ms}, LatencyMax: map[string]time.Duration{"starting": 400 * ms},
			DefaultLatency: 50 * ms, DefaultLatencyMax: 60 * ms, Seed: seed,
		}
	}
	run := func(e *Executor, q string) (string, []time.Duration) {
		t.Helper()
		res, steps, err := e.Run(context.Background(), strings.Fields(q))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(res.Outputs, " "), steps
	}
	seen := map[time.Duration]int{}
	var sum time.Duration
	const seeds = 2000
	for seed := range uint64(seeds) {
		a, b := NewExecutor(m, timing(seed), "sim-0"), NewExecutor(m, timing(seed), "sim-1")
		out, steps := run(a, "start wait wait wait")
		if out != "ok starting finished quiet" {
			t.Fatalf("seed %d: %q", seed, out)
		}
		start, fin := steps[1], steps[2]
		if start < 80*ms || start > 400*ms || start%ms != 0 || fin < 50*ms || fin > 60*ms || fin%ms != 0 || steps[3] != 8*time.Second {
			t.Fatalf("seed %d: steps %v out of their ranges", seed, steps)
		}
		if _, again := run(a, "start wait wait wait"); !slices.Equal(again, steps) {
			t.Fatalf("seed %d: run again %v, first %v", seed, again, steps)
		}
		if _, other := run(b, "start wait"); other[1] != start {
			t.Fatalf("seed %d: the prefix on another lane took %v, the query %v", seed, other[1], start)
		}
		seen[start]++
		sum += start
	}
	if seen[80*ms] == 0 || seen[400*ms] == 0 || len(seen) < 300 {
		t.Errorf("%d distinct draws over 2000 seeds, 80 ms %d times, 400 ms %d times", len(seen), seen[80*ms], seen[400*ms])
	}
	if mean := sum / seeds; mean < 230*ms || mean > 250*ms {
		t.Errorf("mean draw %v, want near 240ms", mean)
	}
}

// Callbacks with no latency between them come one wait at a time, as in
// the model, and one that repeats with none ends.
func TestExecutorZeroLatencies(t *testing.T) {
	const cycle = `digraph {
  __start0 -> idle;
  idle -> a [label="go / ok"];
  idle -> idle [label="wait / quiet"];
  a -> b [label="wait / ta"];
  b -> a [label="wait / tb"];
  a -> idle [label="stop / ok"];
}`
	const ticks = `digraph {
  __start0 -> idle;
  idle -> ticking [label="go / ok"];
  idle -> idle [label="wait / quiet"];
  ticking -> ticking [label="wait / tick"];
}`
	cases := []struct {
		model, query, want string
		device             time.Duration
	}{
		// stop throws in b: tb, due at once after ta, has not come yet
		{cycle, "go wait stop", "ok ta err", 0},
		// only a query that ends waiting quiet spends the settle time
		{cycle, "go wait wait stop wait", "ok ta tb ok quiet", time.Second + 200*time.Millisecond},
		{ticks, "go wait wait wait", "ok tick tick tick", 0},
		{ticks, "go", "ok", 0},
	}
	for _, c := range cases {
		m, err := ParseModel("m.dot", []byte(c.model), "")
		if err != nil {
			t.Fatal(err)
		}
		e := NewExecutor(m, Timing{Quiescence: 200 * time.Millisecond, Reset: time.Second, Settle: time.Second}, "sim-0")
		res, err := e.Execute(context.Background(), strings.Fields(c.query))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(res.Outputs, " "); got != c.want || res.Device != c.device {
			t.Errorf("%s: %q in %v, want %q in %v", c.query, got, res.Device, c.want, c.device)
		}
	}
}
