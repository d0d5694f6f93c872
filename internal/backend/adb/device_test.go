package adb_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	harnessapk "github.com/droidstar/droidstar/harness-apk"
	"github.com/droidstar/droidstar/internal/adbclient"
	"github.com/droidstar/droidstar/internal/backend"
	"github.com/droidstar/droidstar/internal/backend/adb"
	"github.com/droidstar/droidstar/internal/backend/sim"
	"github.com/droidstar/droidstar/internal/compose"
	"github.com/droidstar/droidstar/internal/engine"
	"github.com/droidstar/droidstar/internal/fake/adbd"
	"github.com/droidstar/droidstar/internal/fake/adbserver"
	"github.com/droidstar/droidstar/internal/fake/simharness"
	"github.com/droidstar/droidstar/internal/harness"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/oracle"
	"github.com/droidstar/droidstar/internal/oracle/cache"
	"github.com/droidstar/droidstar/internal/oracle/dispatch"
	"github.com/droidstar/droidstar/internal/oracle/mapper"
	"github.com/droidstar/droidstar/internal/oracle/restrict"
	"github.com/droidstar/droidstar/internal/purpose"
)

// fastPurpose is the AsyncTask example with timeouts of milliseconds:
// the fakes answer from the example's model on a virtual clock, so only
// the run deadlines the host works out from these timeouts take real time.
var fastPurpose = filepath.Join("..", "..", "..", "testdata", "purposes", "adb", "asynctask-fast.yaml")

// traffic counts, on one fake device, the run requests its harnesses read
// and the query results they wrote, across restarts.
type traffic struct {
	mu      sync.Mutex
	runs    int
	results int
	starts  int
}

func (tr *traffic) get() (runs, results, starts int) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.runs, tr.results, tr.starts
}

// countingConn counts the run requests read and the results written on a
// harness connection, line by line.
type countingConn struct {
	io.ReadWriteCloser
	tr   *traffic
	in   bytes.Buffer
	outs bytes.Buffer
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.ReadWriteCloser.Read(p)
	c.in.Write(p[:n])
	for {
		line, rerr := c.in.ReadBytes('\n')
		if rerr != nil {
			c.in.Write(line) // keep the partial line for the next read
			break
		}
		if bytes.Contains(line, []byte(`"op":"run"`)) {
			c.tr.mu.Lock()
			c.tr.runs++
			c.tr.mu.Unlock()
		}
	}
	return n, err
}

func (c *countingConn) Write(p []byte) (int, error) {
	c.outs.Write(p)
	for {
		line, rerr := c.outs.ReadBytes('\n')
		if rerr != nil {
			c.outs.Write(line)
			break
		}
		c.tr.mu.Lock()
		// A result of kind timeout answers nothing (the harness wedged).
		c.tr.results += bytes.Count(line, []byte(`"outputs":`)) - bytes.Count(line, []byte(`"kind":"timeout"`))
		c.tr.mu.Unlock()
	}
	return c.ReadWriteCloser.Write(p)
}

// fake is the setting of one fake device: its harness answers from the
// AsyncTask example's model, hanging as opts says in the harness
// processes that hang says (counted from 1: the first start, then each
// restart).
type fake struct {
	opts simharness.Options
	hang func(start int) bool
	// wrap, when set, wraps each harness start's serving function.
	wrap func(serve func(context.Context, io.ReadWriteCloser) bool) func(context.Context, io.ReadWriteCloser) bool
	tr   traffic
}

func (f *fake) harness(t *testing.T, p *purpose.Purpose) adbd.HarnessFunc {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", "asynctask", "model.dot"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := sim.ParseModel("model.dot", data, "")
	if err != nil {
		t.Fatal(err)
	}
	return func(ctx context.Context, _ adbd.HarnessRun) (func(context.Context, io.ReadWriteCloser) bool, error) {
		f.tr.mu.Lock()
		f.tr.starts++
		start := f.tr.starts
		f.tr.mu.Unlock()
		o := f.opts
		o.Model = m
		o.Timing = sim.Timing{Quiescence: p.Timeouts.Quiescence, Reset: p.Timeouts.Settle + p.Timeouts.PostReset, DefaultLatency: time.Millisecond}
		o.CallbackNames = simharness.PurposeCallbackNames(p)
		if f.hang != nil && !f.hang(start) {
			o.Wedge, o.Freeze = nil, nil
		}
		serve := func(ctx context.Context, conn io.ReadWriteCloser) bool {
			bye, err := simharness.Serve(ctx, &countingConn{ReadWriteCloser: conn, tr: &f.tr}, o)
			var crash *simharness.CrashError
			if errors.As(err, &crash) {
				adbd.Crash(ctx, crash.Exception, crash.Message, "org.droidstar.harness.core.QueryRunner.call(QueryRunner.java)")
			}
			return bye
		}
		if f.wrap != nil {
			serve = f.wrap(serve)
		}
		return serve, nil
	}
}

// lockedLog is the Options.Log of the tests.
type lockedLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// setup attaches one fake device per fake to a real adb server and plans
// the fast purpose's learning on all of them, with small deadlines.
func setup(t *testing.T, fakes ...*fake) (*compose.Plan, []*adbd.Device, *lockedLog) {
	t.Helper()
	s := adbserver.NewT(t)
	p, err := purpose.Load(fastPurpose)
	if err != nil {
		t.Fatal(err)
	}
	var devs []*adbd.Device
	for _, f := range fakes {
		d, err := s.Attach(context.Background(), adbd.Config{Props: adbserver.Props("Pixel 8", "14", 34), Harness: f.harness(t, p)})
		if err != nil {
			t.Fatal(err)
		}
		devs = append(devs, d)
	}
	log := &lockedLog{}
	var serials []string
	for _, d := range devs {
		serials = append(serials, d.Addr())
	}
	plan, err := compose.Build(context.Background(), compose.Source{Purpose: p}, compose.Options{Backend: compose.BackendOptions{ADB: compose.ADBOptions{
		Client:    adbclient.New(adbclient.Config{Host: "127.0.0.1", Port: s.Port()}),
		Selection: adb.Selection{Devices: serials},
		Options: adb.Options{APK: harnessapk.APK, Host: "droidstar test", Log: log,
			// Far beyond what a healthy run of a few queries takes on a
			// virtual clock, even on a loaded machine, and still short.
			Deadline: adb.Deadline{PerQuery: 20 * time.Millisecond, Margin: time.Second}},
	}}, Pipeline: compose.Pipeline{Repeat: compose.DefaultRepeat}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { plan.Close() })
	// The executors are in the order of the selection.
	for k, ex := range plan.Executors {
		if ex.Describe().Serial != serials[k] {
			t.Fatalf("executor %d is %s, want %s", k, ex.Describe().Serial, serials[k])
		}
	}
	return plan, devs, log
}

// batchLog records every batch that reaches the scheduler.
type batchLog struct {
	next    oracle.Oracle
	in      *mealy.Alphabet
	batches [][]string
}

func (b *batchLog) Ask(ctx context.Context, qs []mealy.Word) ([]oracle.Answer, error) {
	var batch []string
	for _, q := range qs {
		batch = append(batch, b.in.Format(q))
	}
	b.batches = append(b.batches, batch)
	return b.next.Ask(ctx, qs)
}

// learn runs the plan's learning through the pipeline compose builds,
// with the batches that reach the scheduler recorded.
func learn(t *testing.T, plan *compose.Plan) (*engine.Result, *batchLog, error) {
	return learnWith(t, plan, engine.Options{})
}

// learnWith is learn with the engine's options o.
func learnWith(t *testing.T, plan *compose.Plan, o engine.Options) (*engine.Result, *batchLog, error) {
	t.Helper()
	job := plan.Job
	sem, err := job.Target.Sem()
	if err != nil {
		t.Fatal(err)
	}
	rec := &oracle.Recorder{}
	mapped := make([]backend.Executor, len(plan.Executors))
	for k, ex := range plan.Executors {
		mapped[k] = mapper.Wrap(ex, plan.Map)
	}
	sched := &dispatch.Scheduler{Executors: mapped, Inputs: job.Target.Inputs, Outputs: job.Target.Outputs, Sem: sem, Recorder: rec}
	batches := &batchLog{next: sched, in: job.Target.Inputs}
	cache := cache.New(batches, job.Target.Inputs, job.Target.Outputs, sem, rec)
	job.MQ = &restrict.Filter{Next: cache, Rules: plan.Rules, Sem: sem, Recorder: rec}
	job.Recorder = rec
	res, err := engine.Run(context.Background(), job, o)
	return res, batches, err
}

// simulated learns the fast purpose on the sim backend from the same
// model: the answers and counts every device run must match.
func simulated(t *testing.T) *engine.Result {
	t.Helper()
	p, err := purpose.Load(fastPurpose)
	if err != nil {
		t.Fatal(err)
	}
	p.Backend.Kind = purpose.BackendSim
	p.Backend.Sim = &purpose.SimBackend{ModelPath: filepath.Join("..", "..", "..", "examples", "asynctask", "model.dot")}
	plan, err := compose.Build(context.Background(), compose.Source{Purpose: p}, compose.Options{Pipeline: compose.Pipeline{Repeat: compose.DefaultRepeat}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Run(context.Background(), plan.Job, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// sameAsSimulated checks that learning on devices found the model and ran
// the queries the simulation does.
func sameAsSimulated(t *testing.T, res *engine.Result) {
	t.Helper()
	want := simulated(t)
	if same, err := res.Machine.Equivalent(want.Machine); err != nil || !same {
		t.Errorf("the devices learned another model (%v)", err)
	}
	got, w := res.Document.Stats, want.Document.Stats
	if got.Learning.Executed != w.Learning.Executed || got.Equivalence.Executed != w.Equivalence.Executed ||
		got.Learning.Symbols+got.Equivalence.Symbols != w.Learning.Symbols+w.Equivalence.Symbols {
		t.Errorf("executed %+v %+v, the simulation %+v %+v", got.Learning, got.Equivalence, w.Learning, w.Equivalence)
	}
}

// TestOneRunRequestPerDevicePerBatch: learning on two fake devices through
// the real adb server, each device gets its share of every batch in one
// run request: the scheduler's batches of k queries cost min(k, 2) run
// requests, the first device one for every batch, the second one for
// every batch of two or more. The model, the queries executed and each
// device's count are what they are without batches. Spares are off: they
// add queries a device runs in its wait (TestSparesRideInTheRunRequests).
func TestOneRunRequestPerDevicePerBatch(t *testing.T) {
	fakes := []*fake{{}, {}}
	plan, _, _ := setup(t, fakes...)
	res, batches, err := learnWith(t, plan, engine.Options{NoLookahead: true})
	if err != nil {
		t.Fatal(err)
	}
	sameAsSimulated(t, res)
	wantRuns := []int{0, 0}
	for _, b := range batches.batches {
		wantRuns[0]++
		if len(b) >= 2 {
			wantRuns[1]++
		}
	}
	stats := res.Document.Stats
	executed := stats.Learning.Executed + stats.Equivalence.Executed
	sum := 0
	for k, f := range fakes {
		runs, results, starts := f.tr.get()
		d := res.Document.Backend.Devices[k]
		if runs != wantRuns[k] || results != d.Queries || starts != 1 {
			t.Errorf("device %d: %d run requests for %d batches, %d results for %d queries counted, %d harness starts", k, runs, wantRuns[k], results, d.Queries, starts)
		}
		sum += d.Queries
	}
	if sum != executed || len(batches.batches) < 4 || wantRuns[1] == 0 { // on two devices a bound round is one batch
		t.Errorf("%d batches; the devices ran %d queries, learning executed %d", len(batches.batches), sum, executed)
	}
	t.Logf("%d batches, %d queries: %v run requests", len(batches.batches), executed, wantRuns)
}

// TestSparesRideInTheRunRequests: with the learner's spares on (the
// default on several devices), a spare goes in the run request of the
// device whose share of the batch it fits after, so a device still gets
// at most one run request per batch; the spares that ran are counted
// with the device's queries, and the model is the one the simulation
// learns.
func TestSparesRideInTheRunRequests(t *testing.T) {
	fakes := []*fake{{}, {}}
	plan, _, _ := setup(t, fakes...)
	res, batches, err := learn(t, plan)
	if err != nil {
		t.Fatal(err)
	}
	want := simulated(t)
	if same, err := res.Machine.Equivalent(want.Machine); err != nil || !same {
		t.Errorf("the devices learned another model (%v)", err)
	}
	stats := res.Document.Stats
	executed := stats.Learning.Executed + stats.Equivalence.Executed
	asked := 0
	for _, b := range batches.batches {
		asked += len(b)
	}
	sum := 0
	for k, f := range fakes {
		runs, results, starts := f.tr.get()
		d := res.Document.Backend.Devices[k]
		if runs > len(batches.batches) || results != d.Queries || starts != 1 {
			t.Errorf("device %d: %d run requests for %d batches, %d results for %d queries counted, %d harness starts", k, runs, len(batches.batches), results, d.Queries, starts)
		}
		sum += d.Queries
	}
	if sum != executed || executed <= asked {
		t.Errorf("the devices ran %d queries, learning executed %d; the batches asked %d (spares run beyond them)", sum, executed, asked)
	}
	t.Logf("%d batches asked %d queries; %d ran with the spares", len(batches.batches), asked, executed)
}

// deadline is the deadline of a run of the fast purpose: its timeouts
// (settle 1ms, post_reset 1ms, quiescence 5ms per wait) and the test's
// 20ms per query and 1s.
func deadline(queries ...string) time.Duration {
	d := time.Second
	for _, q := range queries {
		d += 22 * time.Millisecond
		d += time.Duration(strings.Count(q, "wait")) * 5 * time.Millisecond
	}
	return d
}

// hangingQuery is a query of the fast purpose's last batch (the first
// equivalence query's, after the first hypothesis), in its middle.
const hangingQuery = "exec wait cancel wait cancel"

// lastBatch returns the batch holding hangingQuery, and where.
func hangingBatch(t *testing.T, b *batchLog) ([]string, int) {
	t.Helper()
	for _, batch := range b.batches {
		for k, q := range batch {
			if q == hangingQuery {
				return batch, k
			}
		}
	}
	t.Fatalf("no batch holds %s: %v", hangingQuery, b.batches)
	return nil, 0
}

// hungError checks a failure of hangingQuery: the query, what happened
// the second time and the first, the restart, and what am instrument and
// the device log said.
func hungError(t *testing.T, err error, serial, second, first string) {
	t.Helper()
	want := "equivalence query 1: " + serial + ": query " + hangingQuery + ": device " + serial + ": " + second + ", the second time this query hung it: after the first"
	if first != "" {
		want += " (" + first + ")"
	}
	want += ", droidstar restarted the harness (am force-stop org.droidstar.harness, then am instrument) and ran the query again alone\n" +
		"am instrument said:\n  INSTRUMENTATION_RESULT: shortMsg=Process crashed.\n  INSTRUMENTATION_CODE: 0\n" +
		"logcat (harness and crashes, last "
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), " I droidstar-harness: droidstar restarts the harness (1)\n") {
		t.Errorf("error:\n%v\nwant it to begin\n%s", err, want)
	}
}

// partial checks that nothing executed is lost: learning stopped with the
// last hypothesis, and its counts are every result the harness answered.
func partial(t *testing.T, res *engine.Result, f *fake) {
	t.Helper()
	if res == nil || !res.Partial || res.Document == nil {
		t.Fatalf("no partial model: %+v", res)
	}
	_, results, starts := f.tr.get()
	stats := res.Document.Stats
	if executed := stats.Learning.Executed + stats.Equivalence.Executed; executed != results || res.Document.Backend.Devices[0].Queries != results {
		t.Errorf("the partial model counts %d queries executed (%d on the device), the harness answered %d", executed, res.Document.Backend.Devices[0].Queries, results)
	}
	if starts != 2 {
		t.Errorf("the harness started %d times, want 2 (one restart)", starts)
	}
}

// TestHungHarnessFailsTheQueryAfterOneRestart: a harness that stops
// answering in a callin (a process that hangs until it is force-stopped)
// is caught by the run's deadline; droidstar force-stops the app, starts
// the harness again, and runs the batch's queries one per request: those
// before the hanging one answer, and the hanging one, hung again, fails
// learning with what happened, keeping what was learned and executed.
func TestHungHarnessFailsTheQueryAfterOneRestart(t *testing.T) {
	f := &fake{opts: simharness.Options{Freeze: [][]string{strings.Fields(hangingQuery)}}}
	plan, devs, log := setup(t, f)
	serial := devs[0].Addr()
	res, batches, err := learn(t, plan)
	batch, at := hangingBatch(t, batches)
	first := fmt.Sprintf("the harness did not answer a run of %d queries within its deadline of %s", len(batch), deadline(batch...))
	hungError(t, err, serial, "the harness did not answer a run of 1 query within its deadline of "+deadline(hangingQuery).String(), first)
	partial(t, res, f)
	runsRead, results, _ := f.tr.get()
	if last := len(batches.batches) - 1; batches.batches[last][at] != hangingQuery || runsRead != len(batches.batches)+at+1 {
		t.Errorf("%d run requests, want one per batch and then one per query up to the hanging one (%d)", runsRead, len(batches.batches)+at+1)
	}
	before := 0
	for _, b := range batches.batches[:len(batches.batches)-1] {
		before += len(b)
	}
	if results != before+at {
		t.Errorf("the harness answered %d queries, want %d before the last batch and the %d before the hanging one", results, before, at)
	}
	if want := "droidstar: installing the harness app on " + serial + "\ndroidstar: device " + serial + ": " + first + "; restarting the harness\n"; log.String() != want {
		t.Errorf("log:\n%s\nwant\n%s", log, want)
	}
}

// TestWedgedHarnessFailsTheQueryAfterOneRestart: a callin that blocks the
// main thread, which the harness reports itself once its main-thread
// timeout has passed (err of kind timeout, the harness wedged), costs a
// restart too, and fails learning when it blocks again; the results the
// wedged run did answer are kept.
func TestWedgedHarnessFailsTheQueryAfterOneRestart(t *testing.T) {
	f := &fake{opts: simharness.Options{Wedge: [][]string{strings.Fields(hangingQuery)}}}
	plan, devs, log := setup(t, f)
	serial := devs[0].Addr()
	res, batches, err := learn(t, plan)
	_, at := hangingBatch(t, batches)
	what := "the harness timed out: callin cancel did not return within 10000 ms on the main thread"
	hungError(t, err, serial, what, "")
	partial(t, res, f)
	runsRead, results, _ := f.tr.get()
	if runsRead != len(batches.batches)+1 {
		t.Errorf("%d run requests, want one per batch and one for the wedged query alone", runsRead)
	}
	before := 0
	for _, b := range batches.batches[:len(batches.batches)-1] {
		before += len(b)
	}
	if results != before+at {
		t.Errorf("the harness answered %d queries, want %d before the last batch and the %d before the wedged one", results, before, at)
	}
	if want := "droidstar: installing the harness app on " + serial + "\ndroidstar: device " + serial + ": " + what + "; restarting the harness\n"; log.String() != want {
		t.Errorf("log:\n%s\nwant\n%s", log, want)
	}
}

// TestHarnessThatHungOnceIsRetried: a harness that hangs once, and not
// after the restart, costs a restart and the batch's queries one per
// request; learning finds the model it finds without the hang, with the
// same queries, and says what happened.
func TestHarnessThatHungOnceIsRetried(t *testing.T) {
	f := &fake{opts: simharness.Options{Freeze: [][]string{strings.Fields(hangingQuery)}}, hang: func(start int) bool { return start == 1 }}
	plan, devs, _ := setup(t, f)
	serial := devs[0].Addr()
	res, batches, err := learn(t, plan)
	if err != nil {
		t.Fatal(err)
	}
	sameAsSimulated(t, res)
	batch, _ := hangingBatch(t, batches)
	runsRead, results, starts := f.tr.get()
	if runsRead != len(batches.batches)+len(batch) || starts != 2 || results != res.Document.Backend.Devices[0].Queries {
		t.Errorf("%d run requests, want %d (one per batch, then one per query of the batch that hung); %d harness starts; %d results answered for %d queries",
			runsRead, len(batches.batches)+len(batch), starts, results, res.Document.Backend.Devices[0].Queries)
	}
	want := fmt.Sprintf("device %s: the harness did not answer a run of %d queries within its deadline of %s; droidstar restarted the harness and ran the queries again", serial, len(batch), deadline(batch...))
	if w := res.Document.Warnings; len(w) != 1 || w[0] != want {
		t.Errorf("warnings %q, want %q", w, want)
	}
}

// TestAppThatCrashesIsLearned: a callin that kills the app's process in
// one state (an uncaught exception: am instrument reports the crash, the
// socket closes, logcat's crash buffer holds the FATAL EXCEPTION) is
// learned through the real adb server as err of kind crash, with the
// crash report as its reason; every other answer is the model's.
func TestAppThatCrashesIsLearned(t *testing.T) {
	f := &fake{opts: simharness.Options{Crash: [][]string{{"exec", "exec"}}}}
	plan, devs, log := setup(t, f)
	serial := devs[0].Addr()
	res, _, err := learn(t, plan)
	if err != nil {
		t.Fatal(err)
	}
	d := res.Document
	var crashes []string
	for _, tr := range d.Transitions {
		if tr.Err != nil && tr.Err.Kind == model.ErrCrash {
			crashes = append(crashes, tr.From+" "+tr.Input+": "+tr.Err.Detail)
		}
	}
	want := regexp.MustCompile(`^s1 exec: the process died \(shortMsg=java\.lang\.IllegalStateException\): AndroidRuntime: FATAL EXCEPTION: main \| ` +
		`AndroidRuntime: Process: org\.droidstar\.harness, PID: [0-9]+ \| AndroidRuntime: java\.lang\.IllegalStateException: the app dies in exec \(simharness Options\.Crash\) \| ` +
		`AndroidRuntime: at org\.droidstar\.harness\.core\.QueryRunner\.call\(QueryRunner\.java\)$`)
	if len(crashes) != 1 || !want.MatchString(crashes[0]) {
		t.Errorf("crash transitions %q\nwant one matching %s", crashes, want)
	}
	if s := d.States[1]; s.ID != "s1" || strings.Join(s.Access, " ") != "exec" {
		t.Errorf("state %+v, want s1 reached by exec", s)
	}
	if len(d.Warnings) != 0 {
		t.Errorf("warnings %q: a crash the query repeats is the class's behaviour", d.Warnings)
	}
	if !strings.Contains(log.String(), "droidstar: device "+serial+": the harness app on "+serial+" (pid ") {
		t.Errorf("log:\n%s\nwant the restarts", log)
	}
	// Every other transition is the simulation's.
	sim := simulated(t).Document
	other := func(d *model.Document) []string {
		var out []string
		for _, tr := range d.Transitions {
			if tr.From != "s1" || tr.Input != "exec" {
				out = append(out, tr.From+" "+tr.Input+"/"+tr.Output+" "+tr.To)
			}
		}
		return out
	}
	if got, w := other(d), other(sim); strings.Join(got, "|") != strings.Join(w, "|") {
		t.Errorf("transitions\n%q\nthe simulation's\n%q", got, w)
	}
}

// killingConn kills the app (as the low-memory killer would) once its
// harness has read n run requests.
type killingConn struct {
	io.ReadWriteCloser
	n    int
	seen int
	kill func()
}

func (c *killingConn) Read(p []byte) (int, error) {
	k, err := c.ReadWriteCloser.Read(p)
	before := c.seen
	c.seen += bytes.Count(p[:k], []byte(`"op":"run"`))
	if before < c.n && c.seen >= c.n {
		c.kill()
	}
	return k, err
}

// TestAppKilledOnceCostsARestartAndAWarning: an app killed from outside in
// the middle of a run request (no crash report: am instrument ends with
// "Process crashed.") is started again, the request's queries pass alone,
// so none is blamed: the model and the queries are the simulation's, with
// one warning that says what happened.
func TestAppKilledOnceCostsARestartAndAWarning(t *testing.T) {
	f := &fake{}
	var dev atomic.Pointer[adbd.Device]
	killed := atomic.Bool{}
	f.wrap = func(serve func(context.Context, io.ReadWriteCloser) bool) func(context.Context, io.ReadWriteCloser) bool {
		if killed.Load() {
			return serve
		}
		return func(ctx context.Context, conn io.ReadWriteCloser) bool {
			return serve(ctx, &killingConn{ReadWriteCloser: conn, n: 4, kill: func() {
				if !killed.Swap(true) {
					dev.Load().KillApp(adbd.HarnessPackage)
				}
			}})
		}
	}
	plan, devs, _ := setup(t, f)
	dev.Store(devs[0])
	res, _, err := learn(t, plan)
	if err != nil {
		t.Fatal(err)
	}
	if !killed.Load() {
		t.Fatal("the app was never killed")
	}
	sameAsSimulated(t, res)
	want := regexp.MustCompile(`^the harness app on \S+ \(pid \d+\) died \(shortMsg=Process crashed\.\) during a run of \d+ quer(y|ies) that (all )?passed when run again, each alone, in a fresh one: droidstar restarted it and went on \(something other than the class under test may have killed it\)$`)
	if w := res.Document.Warnings; len(w) != 1 || !want.MatchString(w[0]) {
		t.Errorf("warnings %q\nwant one matching %s", w, want)
	}
}

// reportingConn sums the undeclared calls the harness reports in its
// results, as written on the wire.
type reportingConn struct {
	io.ReadWriteCloser
	out   bytes.Buffer
	total *atomic.Int64
}

func (c *reportingConn) Write(p []byte) (int, error) {
	c.out.Write(p)
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			c.out.Write(line)
			break
		}
		var reply struct {
			Results []struct {
				Undeclared []harness.Undeclared `json:"undeclared"`
			} `json:"results"`
		}
		if json.Unmarshal(line, &reply) == nil {
			for _, r := range reply.Results {
				for _, u := range r.Undeclared {
					c.total.Add(int64(u.Count))
				}
			}
		}
	}
	return c.ReadWriteCloser.Write(p)
}

// TestUndeclaredCallbacksThroughADevice: an app whose listener gets a call
// the purpose does not declare, each time exec runs, as a newer Android
// does; the harness reports them, and the model counts every one the
// device reported, with the warning, while learning the same model.
func TestUndeclaredCallbacksThroughADevice(t *testing.T) {
	f := &fake{opts: simharness.Options{Undeclared: map[string][]harness.Undeclared{"exec": {{Method: "onCancelled", Count: 1}}}}}
	var total atomic.Int64
	f.wrap = func(serve func(context.Context, io.ReadWriteCloser) bool) func(context.Context, io.ReadWriteCloser) bool {
		return func(ctx context.Context, conn io.ReadWriteCloser) bool {
			return serve(ctx, &reportingConn{ReadWriteCloser: conn, total: &total})
		}
	}
	plan, _, _ := setup(t, f)
	res, _, err := learn(t, plan)
	if err != nil {
		t.Fatal(err)
	}
	sameAsSimulated(t, res)
	d := res.Document
	if total.Load() == 0 || len(d.Undeclared) != 1 || d.Undeclared[0].Callback != "onCancelled" || int64(d.Undeclared[0].Count) != total.Load() {
		t.Fatalf("undeclared %+v, the device reported %d calls of onCancelled", d.Undeclared, total.Load())
	}
	if want := model.UndeclaredWarning(d.Undeclared); len(d.Warnings) != 1 || d.Warnings[0] != want || !strings.Contains(want, fmt.Sprintf("onCancelled (%d)", total.Load())) {
		t.Errorf("warnings %q\nwant %q", d.Warnings, want)
	}
}
