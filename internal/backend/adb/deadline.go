package adb

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/droidstar/droidstar/internal/adbclient"
	"github.com/droidstar/droidstar/internal/backend"
	"github.com/droidstar/droidstar/internal/harness"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/purpose"
	"github.com/droidstar/droidstar/internal/query"
)

// Deadline says how long a device may take to answer a run request before
// droidstar takes its harness for hung: a run may take what its queries'
// timeouts add up to (post_reset, settle and the setup's sleeps per query,
// the quiescence timeout per wait, the sleeps of each callin's actions),
// plus PerQuery per query, plus Margin.
type Deadline struct {
	// PerQuery covers what no timeout bounds: making and disposing of the
	// instance, the callins themselves. 0 means DefaultPerQuery.
	PerQuery time.Duration
	// Margin covers the round trip, and the harness's own main-thread
	// timeout (harness.MainThreadTimeout), so that a call that blocks the
	// main thread is reported by the harness, which names it, before the
	// host gives up. 0 means that timeout plus DefaultMargin.
	Margin time.Duration
}

const (
	// DefaultPerQuery is generous: a reset on a slow emulator takes a
	// few hundred milliseconds.
	DefaultPerQuery = 2 * time.Second
	// DefaultMargin is added to the harness's main-thread timeout.
	DefaultMargin = 10 * time.Second
)

// budget is a purpose's Deadline, worked out once.
type budget struct {
	perQuery time.Duration // the timeouts every query runs, and PerQuery
	wait     time.Duration
	callins  map[string]time.Duration // the sleeps of a callin's actions
	margin   time.Duration
}

func newBudget(p *purpose.Purpose, d Deadline) budget {
	b := budget{wait: p.Timeouts.Quiescence, callins: map[string]time.Duration{}, margin: d.Margin,
		perQuery: p.Timeouts.PostReset + p.Timeouts.Settle + sleeps(p.Setup) + d.PerQuery}
	if d.PerQuery <= 0 {
		b.perQuery += DefaultPerQuery
	}
	if d.Margin <= 0 {
		b.margin = harness.MainThreadTimeout(p.Timeouts.Quiescence) + DefaultMargin
	}
	for _, c := range p.Callins {
		b.callins[c.Symbol] = sleeps(c.Do)
	}
	return b
}

func sleeps(actions []purpose.Action) time.Duration {
	var d time.Duration
	for _, a := range actions {
		if a.Sleep != nil {
			d += time.Duration(*a.Sleep) * time.Millisecond
		}
	}
	return d
}

// of is the deadline of one run of queries.
func (b budget) of(queries [][]string) time.Duration {
	d := b.margin
	for _, q := range queries {
		d += b.perQuery
		for _, sym := range q {
			if sym == mealy.Wait {
				d += b.wait
			} else {
				d += b.callins[sym]
			}
		}
	}
	return d
}

var _ backend.BatchExecutor = (*Executor)(nil)

// errDeadline is the cause of a run's context when its deadline passed.
var errDeadline = errors.New("the run's deadline passed")

// hang is a run the harness did not finish: it outlived its deadline, or
// the harness said it is wedged.
type hang struct {
	what string // for a person: what happened, with the deadline or the harness's words
	// blamed are the indices, in the run, of the queries that may have
	// caused it: all those left without a result when the host gave up
	// waiting, the one that timed out when the harness says so, none when
	// dispose wedged the harness after its query had answered.
	blamed []int
}

func (h *hang) Error() string { return h.what }

// Execute implements backend.Executor: a batch of one.
func (e *Executor) Execute(ctx context.Context, inputs []string) (query.Result, error) {
	return backend.ExecuteOne(ctx, e, inputs)
}

// ExecuteBatch implements backend.BatchExecutor: the whole batch goes to
// the device in one run request. An app whose process dies during it (an
// uncaught exception on any of its threads, a native crash, something
// else killing it) is started again and the queries left without a
// result run again alone: one that kills it twice answers err of kind
// crash, with the crash buffer of logcat for its pid (see
// backend.Reviver).
func (e *Executor) ExecuteBatch(ctx context.Context, queries [][]string) ([]query.Result, error) {
	return e.reviver.ExecuteBatch(ctx, queries)
}

// executeHanging is one run request, and more when the harness hangs. A
// run that outlives its deadline, or
// wedges the harness, costs a restart (am force-stop, then the harness
// starts again as at Start), after which the batch's remaining queries run
// one per request, so that the one that hangs is found; a query that hangs
// a second time fails the batch, with nothing received before it lost.
func (e *Executor) executeHanging(ctx context.Context, queries [][]string) ([]query.Result, error) {
	results := make([]query.Result, 0, len(queries))
	hangs := make([]*hang, len(queries)) // the first hang each query was blamed for
	alone := false
	var warning string
	for len(results) < len(queries) {
		first := len(results)
		run := queries[first:]
		if alone {
			run = run[:1]
		}
		got, err := e.run(ctx, run)
		if warning != "" && len(got) > 0 {
			got[0].Warnings = append(got[0].Warnings, warning)
			warning = ""
		}
		results = append(results, got...)
		if err == nil {
			continue
		}
		var h *hang
		if !errors.As(err, &h) {
			var qe *query.Error
			if errors.As(err, &qe) {
				qe.Index += first
				return results, qe
			}
			if len(run) == 1 {
				return results, &query.Error{Index: first, Err: err}
			}
			return results, err
		}
		for _, k := range h.blamed {
			if before := hangs[first+k]; before != nil {
				return results, &query.Error{Index: first + k, Err: e.giveUp(ctx, h, before)}
			}
			hangs[first+k] = h
		}
		if err := e.restart(ctx, h.what, "hung"); err != nil {
			return results, err
		}
		warning = fmt.Sprintf("device %s: %s; droidstar restarted the harness and ran the queries again", e.dev.Serial(), h.what)
		alone = true
	}
	if e.awakeWarning != "" && len(results) > 0 {
		results[0].Warnings = append(results[0].Warnings, e.awakeWarning)
		e.awakeWarning = ""
	}
	return results, nil
}

// run sends one run request under its deadline and converts its results.
// It returns the results received, and a *hang when the harness hung.
func (e *Executor) run(ctx context.Context, queries [][]string) ([]query.Result, error) {
	if e.client == nil {
		return nil, fmt.Errorf("device %s: the harness was stopped after it hung", e.dev.Serial())
	}
	d := e.budget.of(queries)
	rctx, cancel := context.WithTimeoutCause(ctx, d, errDeadline)
	defer cancel()
	timeouts, err := e.timeouts.For(queries)
	if err != nil {
		return nil, fmt.Errorf("device %s: %w", e.dev.Serial(), err)
	}
	rs, err := e.client.RunUnder(rctx, queries, timeouts)
	out, cerr := harness.ToResults(queries, rs)
	timeouts.Mark(out)
	if cerr != nil {
		return out, cerr
	}
	if err == nil {
		return out, nil
	}
	var w *harness.WedgedError
	switch {
	case ctx.Err() != nil:
		return out, err
	case errors.Is(context.Cause(rctx), errDeadline):
		h := &hang{what: fmt.Sprintf("the harness did not answer a run of %s within its deadline of %s", plural(len(queries), "query", "queries"), d)}
		for k := range queries {
			h.blamed = append(h.blamed, k)
		}
		return out, h
	case errors.As(err, &w):
		h := &hang{what: w.Error()}
		switch {
		case w.Query < 0:
			// Wedged before this run: nothing here ran, so every query
			// may be the one.
			for k := range queries {
				h.blamed = append(h.blamed, k)
			}
		case w.Timeout != nil:
			h.blamed = []int{w.Query}
		}
		return out, h
	}
	if d := e.died(ctx, err); d != nil {
		return out, d
	}
	return out, e.explain(ctx, err)
}

// died returns a *backend.DiedError when err is the harness closing the
// connection because its app's process died, which am instrument
// reports as a crash (INSTRUMENTATION_RESULT: shortMsg=...); its last
// words are the lines of the app's pid in logcat's crash buffer, or else
// what am instrument said. nil for any other error: a device that went
// away ends am instrument too, without a crash report.
func (e *Executor) died(ctx context.Context, err error) *backend.DiedError {
	if !errors.Is(err, harness.ErrClosed) || e.inst == nil {
		return nil
	}
	// The socket closes as the process dies; the activity manager
	// finishes the instrumentation a moment later.
	if !e.inst.wait(ctx, 5*time.Second) {
		return nil
	}
	var report []string
	for _, line := range strings.Split(e.inst.output(), "\n") {
		if r, ok := strings.CutPrefix(strings.TrimSpace(line), "INSTRUMENTATION_RESULT: "); ok && (strings.HasPrefix(r, "shortMsg=") || strings.HasPrefix(r, "longMsg=")) {
			report = append(report, r)
		}
	}
	if len(report) == 0 {
		return nil
	}
	d := &backend.DiedError{Process: fmt.Sprintf("the harness app on %s", e.dev.Serial()), Status: report[0], Err: err}
	if e.pid > 0 {
		d.Process = fmt.Sprintf("the harness app on %s (pid %d)", e.dev.Serial(), e.pid)
		lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		d.LastWords, _ = CrashLog(lctx, e.dev, e.pid)
		cancel()
	}
	if len(d.LastWords) == 0 {
		d.LastWords = report
	}
	if len(d.LastWords) > backend.MaxLastWords {
		d.LastWords = d.LastWords[:backend.MaxLastWords]
	}
	return d
}

// CrashLog returns the lines of process pid in logcat's crash buffer,
// where Android writes an app's FATAL EXCEPTION report (RuntimeInit's
// handler of uncaught exceptions), as "tag: message". The pid is filtered
// here rather than with logcat --pid, which Android 6 lacks.
func CrashLog(ctx context.Context, dev *adbclient.Device, pid int) ([]string, error) {
	r, err := dev.Shell(ctx, "logcat -b crash -d -v threadtime")
	if err != nil {
		return nil, err
	}
	if r.Exit != 0 {
		return nil, fmt.Errorf("logcat -b crash exited with %d: %s", r.Exit, strings.TrimSpace(r.Stderr))
	}
	var lines []string
	for _, line := range strings.Split(r.Stdout, "\n") {
		// threadtime: date time pid tid priority tag: message
		f := strings.Fields(line)
		if len(f) < 6 || f[2] != strconv.Itoa(pid) {
			continue
		}
		rest := strings.TrimSpace(line)
		for range 5 {
			_, rest, _ = strings.Cut(rest, " ")
			rest = strings.TrimLeft(rest, " ")
		}
		// A stack frame's tab says nothing once the line stands alone.
		tag, msg, _ := strings.Cut(strings.TrimRight(rest, "\r"), ": ")
		lines = append(lines, tag+": "+strings.TrimSpace(msg))
	}
	return lines, nil
}

// restart replaces a harness that hung or died: the app is force-stopped
// (a hung main thread cannot be freed any other way) and started again
// on a fresh socket, with the same files and purpose.
func (e *Executor) restart(ctx context.Context, what, how string) error {
	serial := e.dev.Serial()
	if e.opts.Log != nil {
		fmt.Fprintf(e.opts.Log, "droidstar: device %s: %s; restarting the harness\n", serial, what)
	}
	e.stop(ctx)
	e.restarts++
	e.dev.Shell(ctx, "log -t "+LogTag+" "+adbclient.Quote(fmt.Sprintf("droidstar restarts the harness (%d)", e.restarts)))
	if err := e.launch(ctx, fmt.Sprintf("%s-%d", e.socket, e.restarts)); err != nil {
		return fmt.Errorf("device %s: restart the harness after it %s (%s): %w", serial, how, what, err)
	}
	return nil
}

// stop force-stops the harness app and waits for am instrument to say so.
func (e *Executor) stop(ctx context.Context) {
	if e.client != nil {
		e.client.Close()
		e.client = nil
	}
	e.dev.Shell(ctx, "am force-stop "+HarnessPackage)
	if e.inst != nil {
		e.inst.wait(ctx, 5*time.Second)
		e.inst.close()
	}
}

// giveUp stops a harness that hung on the same query twice and says why,
// with what am instrument and the device log said.
func (e *Executor) giveUp(ctx context.Context, h, before *hang) error {
	e.stop(ctx)
	first := ""
	if before.what != h.what {
		first = " (" + before.what + ")"
	}
	return e.explain(ctx, fmt.Errorf("device %s: %s, the second time this query hung it: after the first%s, droidstar restarted the harness (am force-stop %s, then am instrument) and ran the query again alone",
		e.dev.Serial(), h.what, first, HarnessPackage))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
