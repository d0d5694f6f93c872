// Package backend defines what every query executor (simulated model, host
// JVM harness, Android device) provides to the membership pipeline.
package backend

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/droidstar/droidstar/internal/model"
)

// Result is the answer to one query, run on a fresh instance.
type Result struct {
	// Outputs has one entry per executed input, by name: "ok", "quiet",
	// "err", or a callback name as the backend knows it (the pipeline maps
	// names to the purpose's symbols). After an "err" the executor may stop;
	// the pipeline answers the rest of the query err.
	Outputs []string
	// Err explains the final "err" output, if any.
	Err *model.ErrInfo
	// Device is the device time the query took (virtual for the simulator).
	Device time.Duration
	// Steps is the time each answered input took, in order, when the
	// executor measures it (the harness does; nil otherwise). Device
	// time beyond their sum is the reset and the harness's own work.
	Steps []time.Duration
	// Warnings are other things worth telling seen while running (a
	// harness restarted and the query ran again).
	Warnings []string
	// Quiescence is the quiescence timeout the query's waits ran under,
	// when the executor knows it and it was one for all (0 otherwise): a
	// quiet answer means only that no callback came within it.
	Quiescence time.Duration
	// Waits is, when each wait had its own timeout (WaitTimeoutSetter),
	// the timeout of the wait at each place (0 at the other places).
	Waits []time.Duration
	// Timing are the timing assumptions the query broke, with the
	// callbacks by name as Outputs has them (the pipeline maps them to
	// the purpose's symbols); Stragglers counts callbacks of an earlier
	// query's instance that arrived during this one and were dropped.
	Timing     []Timing
	Stragglers int
}

// Timing is one broken timing assumption: Kind "between-callins" (a
// callback came after input At-1 and before input At, with no wait
// between them) or "late" (it came after wait At had answered quiet).
// After is, for a late callback, how long after wait At started it came,
// when the backend knows it (0 otherwise; it is more than the query's
// Quiescence): the calibration of --timeout auto raises the timeout
// past it.
type Timing struct {
	Kind     string
	At       int
	Callback string
	After    time.Duration
}

// TimingWarnings says what the query's timing problems are and what to do
// about each, by cause. dispose names the call that ends each query's
// instance ("" when none does): the settle time runs before it, so no
// settle time keeps the callbacks it causes in their own query.
func (r Result) TimingWarnings(query []string, dispose string) []string {
	var out []string
	sym := func(i int) string {
		if i >= 0 && i < len(query) {
			return query[i]
		}
		return fmt.Sprintf("#%d", i)
	}
	for _, v := range r.Timing {
		switch v.Kind {
		case "between-callins":
			out = append(out, fmt.Sprintf("timing: callback %s arrived between callins %s and %s with no wait between them (bounded asynchrony does not hold): "+
				"if %s starts it, a followed_by_wait restriction on %s makes a wait collect it", v.Callback, sym(v.At-1), sym(v.At), sym(v.At-1), sym(v.At-1)))
		case "late":
			out = append(out, fmt.Sprintf("timing: callback %s arrived after a wait had answered quiet: timeouts.quiescence is too short for it", v.Callback))
		default:
			out = append(out, fmt.Sprintf("timing: %s violation by callback %s at symbol %d", v.Kind, v.Callback, v.At))
		}
	}
	if r.Stragglers > 0 {
		if dispose != "" {
			out = append(out, fmt.Sprintf("timing: callbacks of an earlier query's instance arrived during a later query and were dropped as stragglers: "+
				"if target.dispose (%s) causes them, no timeouts.settle helps, since the settle time runs before dispose; "+
				"they change no answer; otherwise a longer timeouts.settle lets them arrive in their own query", dispose))
		} else {
			out = append(out, "timing: callbacks of an earlier query's instance arrived during a later query and were dropped as stragglers: "+
				"a longer timeouts.settle lets them arrive in their own query")
		}
	}
	return out
}

// QuiescenceSetter is an executor whose quiescence timeout can change
// from one query to the next (the calibration of --timeout auto). Like
// Execute, it is never called concurrently with the executor's queries.
type QuiescenceSetter interface {
	SetQuiescence(time.Duration)
}

// WaitTimeoutSetter is a QuiescenceSetter that can also give each wait its
// own timeout (the calibration of --timeout auto sets one per wait
// context): the simulator, and the harnesses, whose run request carries
// them (PROTOCOL.md, run's "waits"). Like Execute, it is never called
// concurrently with the executor's queries.
type WaitTimeoutSetter interface {
	QuiescenceSetter
	// SetWaitTimeouts makes the waits of the queries from now on run
	// under their own timeouts: timeouts(query)[k] is that of the wait at
	// place k of query, asked as the query (or its run request) starts; 0,
	// or a place past the end, waits the quiescence timeout. nil gives
	// every wait that. A result run so reports Quiescence 0 and each
	// wait's timeout in Waits.
	SetWaitTimeouts(timeouts func(query []string) []time.Duration)
}

// Executor runs queries, one at a time, each on a fresh instance of the
// class (the reset). Several executors (devices, lanes) may run in parallel;
// one executor is never called concurrently.
type Executor interface {
	Execute(ctx context.Context, inputs []string) (Result, error)
	// Describe identifies the executor for the model's metadata.
	Describe() model.DeviceInfo
	Close() error
}

// BatchExecutor is an Executor that runs a batch of queries in one round
// trip (the harness protocol's run request takes a batch), so that a
// device far away costs one round trip per batch, not one per query.
type BatchExecutor interface {
	Executor
	// ExecuteBatch runs the queries in order, each on a fresh instance,
	// and returns one result per query. On error it returns the results
	// of the queries that finished before the failure (a prefix of the
	// batch, possibly empty); a *QueryError says which query failed, any
	// other error concerns the whole batch.
	ExecuteBatch(ctx context.Context, queries [][]string) ([]Result, error)
}

// QueryError is a batch's failure that one query caused: the query at
// Index, the first one without a result.
type QueryError struct {
	Index int
	Err   error
}

// ExecuteOne runs one query as a batch of one, for batch executors whose
// Execute is nothing more: the error is the query's own, not wrapped in
// the *QueryError that places it in the batch.
func ExecuteOne(ctx context.Context, e BatchExecutor, inputs []string) (Result, error) {
	rs, err := e.ExecuteBatch(ctx, [][]string{inputs})
	if err != nil {
		var qe *QueryError
		if errors.As(err, &qe) {
			err = qe.Err
		}
		return Result{}, err
	}
	if len(rs) != 1 {
		return Result{}, fmt.Errorf("a batch of one query came back with %d results", len(rs))
	}
	return rs[0], nil
}

func (e *QueryError) Error() string { return fmt.Sprintf("query %d of the batch: %v", e.Index, e.Err) }
func (e *QueryError) Unwrap() error { return e.Err }
