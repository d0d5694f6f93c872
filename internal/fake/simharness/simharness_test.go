package simharness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"path"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/droidstar/droidstar/examples"
	"github.com/droidstar/droidstar/internal/backend/sim"
	"github.com/droidstar/droidstar/internal/harness"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/purpose"
	"github.com/droidstar/droidstar/internal/query"
)

// example loads an embedded example's purpose and its simulation model,
// with the timing the sim backend derives from the purpose.
func example(t *testing.T, name string) (*purpose.Purpose, *sim.Model, sim.Timing) {
	t.Helper()
	p, err := examples.Purpose(name)
	if err != nil {
		t.Fatal(err)
	}
	s := p.Backend.Sim
	file := path.Join(path.Dir(p.File), s.Model)
	data, err := examples.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	m, err := sim.ParseModel(file, data, s.Format)
	if err != nil {
		t.Fatal(err)
	}
	timing := sim.Timing{
		Quiescence: p.Timeouts.Quiescence, Reset: p.Timeouts.Settle + p.Timeouts.PostReset,
		Latency: s.Latency, DefaultLatency: s.DefaultLatency,
	}
	return p, m, timing
}

type served struct {
	bye bool
	err error
}

// serve starts Serve on one end of a pipe and returns the other end and
// Serve's outcome; the test's end is closed and Serve awaited on cleanup.
func serve(t *testing.T, ctx context.Context, o Options) (net.Conn, <-chan served) {
	t.Helper()
	host, dev := net.Pipe()
	done := make(chan served, 1)
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		bye, err := Serve(ctx, dev, o)
		done <- served{bye, err}
	}()
	t.Cleanup(func() {
		host.Close()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			t.Error("Serve did not return after the host hung up")
		}
	})
	return host, done
}

func client(t *testing.T, o Options) (*harness.Client, <-chan served) {
	t.Helper()
	conn, done := serve(t, context.Background(), o)
	return harness.NewClient(conn, "simulated harness"), done
}

func sameResult(got, want query.Result) bool {
	// slices.Equal: ToResult gives nil outputs for an empty query, the
	// simulator an empty slice.
	return slices.Equal(got.Outputs, want.Outputs) && got.Device == want.Device &&
		reflect.DeepEqual(got.Err, want.Err) && len(got.Warnings) == 0 && len(want.Warnings) == 0
}

func TestHelloConfigureAndRunMatchTheSimulator(t *testing.T) {
	ctx := context.Background()
	p, m, timing := example(t, "asynctask")
	o := Options{Model: m, Timing: timing, Hello: harness.Hello{SDK: 34, Release: "14", Model: "sdk_gphone64_x86_64", Manufacturer: "Google"}}
	c, _ := client(t, o)

	h, err := c.Hello(ctx, "droidstar test")
	if err != nil {
		t.Fatal(err)
	}
	wantHello := harness.Hello{Protocol: 2, Harness: "0.2.0", Platform: "android", SDK: 34, Release: "14", Model: "sdk_gphone64_x86_64", Manufacturer: "Google"}
	if h != wantHello {
		t.Errorf("hello = %+v, want %+v", h, wantHello)
	}
	conf, err := c.Configure(ctx, harness.Configure(p))
	if err != nil {
		t.Fatal(err)
	}
	wantConf := harness.Configured{Callins: []string{"exec", "cancel"}, Callbacks: []string{"onPostExecute", "onCancelled"}, Shims: []string{"android.os.AsyncTask"}}
	if !reflect.DeepEqual(conf, wantConf) {
		t.Errorf("configure = %+v, want %+v", conf, wantConf)
	}

	queries := [][]string{
		{},
		{"wait"},
		{"exec", "wait", "wait"}, // postexec, then quiet
		{"cancel", "wait", "wait", "wait", "exec"}, // cancelled, a quiet chain, then exec throws
		{"exec", "exec", "wait"},                   // a second execute throws: err stops the query
		{"cancel", "exec", "wait", "cancel", "wait"},
		{"exec", "cancel", "wait", "exec"},
	}
	// One batch, as the host's backends send them.
	rs, err := c.Run(ctx, queries)
	if err != nil {
		t.Fatal(err)
	}
	sawErr, sawCallback := false, false
	for i, q := range queries {
		got, err := harness.ToResult(q, rs[i])
		if err != nil {
			t.Fatalf("%v: %v", q, err)
		}
		want, err := sim.NewExecutor(m, timing, "x").Execute(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if !sameResult(got, want) {
			t.Errorf("%v: through the protocol %+v (err %+v), directly %+v (err %+v)", q, got, got.Err, want, want.Err)
		}
		var sum time.Duration
		for _, ms := range rs[i].Ms {
			sum += time.Duration(ms * float64(time.Millisecond))
		}
		if len(rs[i].Ms) != len(rs[i].Outputs) || sum+timing.Reset != want.Device {
			t.Errorf("%v: ms %v do not add up to device %v less the reset %v", q, rs[i].Ms, want.Device, timing.Reset)
		}
		sawErr = sawErr || want.Err != nil
		sawCallback = sawCallback || slices.Contains(want.Outputs, "postexec") || slices.Contains(want.Outputs, "cancelled")
	}
	if !sawErr || !sawCallback {
		t.Errorf("the queries miss a case: err %v, callback %v", sawErr, sawCallback)
	}
	if e := rs[4].Err; e == nil || !reflect.DeepEqual(*e, harness.QueryErr{At: 1, Kind: "thrown", Exception: "exec answers err in the model"}) {
		t.Errorf("err of exec exec wait = %+v", e)
	}
}

// An error callback ends the query at once with kind error-callback, as
// on a device, when the model's output is declared error: true, under its
// own name or under the name CallbackNames gives it.
func TestErrorCallback(t *testing.T) {
	ctx := context.Background()
	p, m, timing := example(t, "mediaplayer")
	// The request declares the purpose's from names (onError); the model
	// emits the symbols (error). Declaring the symbols instead (no from)
	// makes the model's names the declared ones.
	bySymbol := *p
	bySymbol.Callbacks = nil
	for _, cb := range p.Callbacks {
		bySymbol.Callbacks = append(bySymbol.Callbacks, purpose.Callback{Symbol: cb.Symbol, Error: cb.Error})
	}
	queries := [][]string{
		{"setDataSource", "start", "wait", "wait", "reset"},
		{"setDataSource", "prepareAsync", "wait", "start", "wait", "wait"},
		{"setDataSource", "stop", "reset", "wait"},
		{"start", "wait"},
	}
	cases := []struct {
		name    string
		purpose *purpose.Purpose
		names   map[string]string
		// stops says whether the harness ends a query at onError, and
		// errName is what err.callback then says.
		stops   bool
		errName string
	}{
		{"declared by symbol", &bySymbol, nil, true, "error"},
		{"renamed to the purpose's names", p, PurposeCallbackNames(p), true, "onError"},
		// Unrenamed outputs are not declared: the harness reports them
		// as they are and the host's mapping finds the error.
		{"undeclared model names", p, nil, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := client(t, Options{Model: m, Timing: timing, CallbackNames: tc.names})
			if _, err := c.Hello(ctx, "t"); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Configure(ctx, harness.Configure(tc.purpose)); err != nil {
				t.Fatal(err)
			}
			sawErrorCallback := false
			for _, q := range queries {
				rs, err := c.Run(ctx, [][]string{q})
				if err != nil {
					t.Fatal(err)
				}
				got, err := harness.ToResult(q, rs[0])
				if err != nil {
					t.Fatal(err)
				}
				// The host maps a declared name and a symbol alike.
				for i, out := range got.Outputs {
					if sym, _, ok := p.MapCallback(out); ok {
						got.Outputs[i] = sym
					}
				}
				direct, err := sim.NewExecutor(m, timing, "x").Execute(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				at := slices.Index(direct.Outputs, "error")
				if tc.stops && at >= 0 {
					sawErrorCallback = true
					// The device stops there: what it answers, and the
					// time it takes, is the model's answer to the prefix.
					if direct, err = sim.NewExecutor(m, timing, "x").Execute(ctx, q[:at+1]); err != nil {
						t.Fatal(err)
					}
					want := harness.QueryErr{At: at, Kind: "error-callback", Callback: tc.errName}
					if e := rs[0].Err; e == nil || !reflect.DeepEqual(*e, want) || rs[0].Outputs[at] != mealy.Err {
						t.Errorf("%v: err %+v, outputs %v, want %+v", q, e, rs[0].Outputs, want)
					}
				}
				if !sameResult(got, direct) {
					t.Errorf("%v: through the protocol %+v (err %+v), directly %+v (err %+v)", q, got, got.Err, direct, direct.Err)
				}
			}
			if tc.stops && !sawErrorCallback {
				t.Error("no query reached onError")
			}
		})
	}
}

// The host's client turns the simulated harness's refusals into errors as
// it does the Java harness's: a run error names the op, a configure error
// lands on the purpose line.
func TestClientSeesRefusals(t *testing.T) {
	ctx := context.Background()
	p, m, timing := example(t, "asynctask")
	c, _ := client(t, Options{Model: m, Timing: timing})
	_, err := c.Run(ctx, [][]string{{"exec"}})
	if err == nil || err.Error() != "harness refused run: run before a successful configure (not-configured)" {
		t.Errorf("run before configure: %v", err)
	}

	bad := *p
	bad.Callins = slices.Clone(p.Callins)
	bad.Callins[1].Symbol = "abort"
	_, err = c.Configure(ctx, harness.Configure(&bad))
	var list purpose.ErrorList
	// The callin names no method: the request's call is its symbol, and
	// the error lands on the callin's line.
	want := `examples/asynctask/purpose.yaml:21:5: callins[1].call: the simulated model examples/asynctask/model.dot has no input "abort" for callin abort (model inputs: exec, cancel, wait)`
	if !errors.As(err, &list) || err.Error() != want {
		t.Errorf("configure with a callin the model lacks:\n got %v\nwant %s", err, want)
	}

	if _, err := c.Configure(ctx, harness.Configure(p)); err != nil {
		t.Fatal(err)
	}
	_, err = c.Run(ctx, [][]string{{"exec", "wait", "publish"}})
	if err == nil || err.Error() != `harness refused run: queries[0][2]: "publish" is neither a callin of AsyncTask nor wait (unknown-symbol)` {
		t.Errorf("unknown symbol: %v", err)
	}
}

func TestByeAndHangUp(t *testing.T) {
	ctx := context.Background()
	_, m, timing := example(t, "asynctask")
	c, done := client(t, Options{Model: m, Timing: timing})
	if err := c.Bye(ctx); err != nil {
		t.Fatal(err)
	}
	if r := <-done; !r.bye || r.err != nil {
		t.Errorf("Serve after bye = %v, %v; want true, nil", r.bye, r.err)
	}
	// The harness closed the stream after answering bye.
	if err := c.Bye(ctx); !errors.Is(err, harness.ErrClosed) {
		t.Errorf("a request after bye: %v", err)
	}

	c, done = client(t, Options{Model: m, Timing: timing})
	c.Close()
	if r := <-done; r.bye || r.err != nil {
		t.Errorf("Serve after the host hung up = %v, %v; want false, nil", r.bye, r.err)
	}
}

// In real time the harness sleeps what the query costs, so a query takes
// at least its device time on the wall clock; only that lower bound is
// checked, which a slow machine cannot break.
func TestRealtimeSleeps(t *testing.T) {
	ctx := context.Background()
	p, m, _ := example(t, "asynctask")
	timing := sim.Timing{Quiescence: 40 * time.Millisecond, Reset: 15 * time.Millisecond, DefaultLatency: 5 * time.Millisecond, Realtime: true}
	c, _ := client(t, Options{Model: m, Timing: timing})
	if _, err := c.Configure(ctx, harness.Configure(p)); err != nil {
		t.Fatal(err)
	}
	q := []string{"exec", "wait", "wait", "wait"}
	start := time.Now()
	rs, err := c.Run(ctx, [][]string{q})
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	device := time.Duration(rs[0].DeviceMs * float64(time.Millisecond))
	if want := timing.Reset + timing.DefaultLatency + timing.Quiescence; device != want {
		t.Errorf("device_ms %v, want %v", rs[0].DeviceMs, want)
	}
	if elapsed < device {
		t.Errorf("the query took %v on the wall clock, less than its device time %v", elapsed, device)
	}
	if got := strings.Join(rs[0].Outputs, " "); got != "ok postexec quiet quiet" {
		t.Errorf("outputs %s", got)
	}
}

// Cancelling ctx interrupts a query that would sleep for an hour: Serve
// returns, and the host sees the stream close.
func TestCancelInterruptsARealtimeQuery(t *testing.T) {
	p, m, _ := example(t, "asynctask")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	conn, done := serve(t, ctx, Options{Model: m, Timing: sim.Timing{Quiescence: time.Hour, Realtime: true}})
	c := harness.NewClient(conn, "simulated harness")
	if _, err := c.Configure(context.Background(), harness.Configure(p)); err != nil {
		t.Fatal(err)
	}
	ran := make(chan error, 1)
	go func() {
		_, err := c.Run(context.Background(), [][]string{{"wait"}})
		ran <- err
	}()
	time.Sleep(20 * time.Millisecond) // let the query start sleeping; the test holds without it
	cancel()
	if r := <-done; !errors.Is(r.err, context.Canceled) || r.bye {
		t.Errorf("Serve after cancel = %v, %v", r.bye, r.err)
	}
	if err := <-ran; !errors.Is(err, harness.ErrClosed) {
		t.Errorf("run during cancel: %v", err)
	}
}

func TestServeRefusesAMealyModel(t *testing.T) {
	m, err := sim.ParseModel("plain.dot", []byte(`digraph { __start0 -> a; a -> a [label="x / y"]; }`), "")
	if err != nil {
		t.Fatal(err)
	}
	host, dev := net.Pipe()
	defer host.Close()
	_, err = Serve(context.Background(), dev, Options{Model: m})
	if err == nil || !strings.Contains(err.Error(), "plain Mealy machine") {
		t.Errorf("got %v", err)
	}
}

// A callin in Throws throws wherever it is called: what comes before it
// is the model's, and the query ends there with the exception.
func TestThrows(t *testing.T) {
	ctx := context.Background()
	p, m, timing := example(t, "asynctask")
	c, _ := client(t, Options{Model: m, Timing: timing, Throws: map[string]string{"cancel": "java.lang.SecurityException: denied"}})
	if _, err := c.Hello(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Configure(ctx, harness.Configure(p)); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		q       []string
		outputs []string
		err     *harness.QueryErr
	}{
		{[]string{"exec", "wait"}, []string{"ok", "postexec"}, nil},
		{[]string{"exec", "wait", "cancel", "wait"}, []string{"ok", "postexec", "err"},
			&harness.QueryErr{At: 2, Kind: "thrown", Exception: "java.lang.SecurityException", Message: "denied"}},
		{[]string{"cancel"}, []string{"err"}, &harness.QueryErr{At: 0, Kind: "thrown", Exception: "java.lang.SecurityException", Message: "denied"}},
		// The model's own err comes first.
		{[]string{"exec", "exec", "cancel"}, []string{"ok", "err"}, &harness.QueryErr{At: 1, Kind: "thrown", Exception: "exec answers err in the model"}},
	}
	for _, tc := range cases {
		rs, err := c.Run(ctx, [][]string{tc.q})
		if err != nil {
			t.Fatal(err)
		}
		r := rs[0]
		if !slices.Equal(r.Outputs, tc.outputs) || len(r.Ms) != len(r.Outputs) || !reflect.DeepEqual(r.Err, tc.err) {
			t.Errorf("%v: outputs %v ms %v err %+v, want %v err %+v", tc.q, r.Outputs, r.Ms, r.Err, tc.outputs, tc.err)
		}
	}
}

// TestWedge: a query that holds a Wedge word answers as the Java harness
// does when a call blocks its main thread: err of kind timeout after the
// main-thread timeout (virtual here), the run stopped, the harness wedged
// and refusing runs. A query that errs before the word is not hung.
func TestWedge(t *testing.T) {
	ctx := context.Background()
	p, m, timing := example(t, "asynctask")
	c, _ := client(t, Options{Model: m, Timing: timing, Wedge: [][]string{{"exec", "cancel"}}})
	if _, err := c.Configure(ctx, harness.Configure(p)); err != nil {
		t.Fatal(err)
	}
	queries := [][]string{{"exec", "wait"}, {"exec", "exec", "cancel"}, {"wait", "exec", "cancel", "wait"}, {"exec"}}
	rs, err := c.Run(ctx, queries)
	const msg = "callin cancel did not return within 10000 ms on the main thread"
	var w *harness.WedgedError
	if !errors.As(err, &w) || w.Query != 2 || w.Timeout == nil || !reflect.DeepEqual(*w.Timeout, harness.QueryErr{At: 2, Kind: "timeout", Message: msg}) ||
		w.Reason != msg+", which is still blocked: this harness runs no more queries (restart it)" {
		t.Fatalf("run: %v (%d %+v %q)", err, w.Query, w.Timeout, w.Reason)
	}
	var got []string
	for _, r := range rs {
		got = append(got, strings.Join(r.Outputs, " "))
	}
	if strings.Join(got, " | ") != "ok postexec | ok err" {
		t.Errorf("results before the wedged query: %q", got)
	}
	if _, err := c.Run(ctx, [][]string{{"exec"}}); !errors.As(err, &w) || w.Query != -1 {
		t.Errorf("run after the wedge: %v", err)
	}
}

// TestFreeze: a query that holds a Freeze word gets no answer until the
// harness's context ends, as a hung app until it is force-stopped.
func TestFreeze(t *testing.T) {
	p, m, timing := example(t, "asynctask")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	conn, done := serve(t, ctx, Options{Model: m, Timing: timing, Freeze: [][]string{{"cancel"}}})
	c := harness.NewClient(conn, "simulated harness")
	if _, err := c.Configure(ctx, harness.Configure(p)); err != nil {
		t.Fatal(err)
	}
	rctx, stop := context.WithTimeout(ctx, 50*time.Millisecond)
	defer stop()
	if _, err := c.Run(rctx, [][]string{{"exec"}, {"exec", "cancel"}}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("run: %v", err)
	}
	select {
	case r := <-done:
		t.Fatalf("the harness ended while frozen: %+v", r)
	default:
	}
	cancel()
	if r := <-done; !errors.Is(r.err, context.Canceled) || r.bye {
		t.Errorf("Serve after the freeze = %v, %v", r.bye, r.err)
	}
}

// TestUndeclaredCalls: Options.Undeclared's calls come with each callin
// that runs, grouped per method and detail and counted, and in the
// ignored count; a callin an err cut off brings none.
func TestUndeclaredCalls(t *testing.T) {
	ctx := context.Background()
	p, m, timing := example(t, "asynctask")
	code := "12"
	c, _ := client(t, Options{Model: m, Timing: timing, Undeclared: map[string][]harness.Undeclared{
		"exec":   {{Method: "onError", Detail: &code, Count: 1}},
		"cancel": {{Method: "onProgressUpdate", Count: 2}},
	}})
	if _, err := c.Configure(ctx, harness.Configure(p)); err != nil {
		t.Fatal(err)
	}
	rs, err := c.Run(ctx, [][]string{{"exec", "wait"}, {"cancel", "exec", "cancel", "wait"}, {"exec", "exec", "cancel"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rs {
		line, _ := json.Marshal(r.Undeclared)
		got = append(got, fmt.Sprintf("%d %s", r.Ignored, line))
	}
	want := []string{
		`1 [{"method":"onError","detail":"12","count":1}]`,
		`5 [{"method":"onProgressUpdate","detail":null,"count":4},{"method":"onError","detail":"12","count":1}]`,
		// The second exec throws: the query ends there.
		`2 [{"method":"onError","detail":"12","count":2}]`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
