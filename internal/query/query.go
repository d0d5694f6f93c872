// Package query is what one executed query gives back, whoever ran it:
// its outputs by name, the device time it took, and the timing
// assumptions it broke. It is the floor that both the harness's wire
// client (internal/harness) and the executors (internal/backend/...)
// stand on, so that neither imports the other's floor to name a result.
package query

import (
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
	// Undeclared are the calls that matched no callback the purpose
	// declares, which the harness dropped: a wait that would have
	// answered one answered the next callback or quiet, so the pipeline
	// reports them (unless the purpose's ignore lists them).
	Undeclared []Undeclared
}

// Undeclared is a callback the purpose does not declare and how often it
// came in one query: Callback is METHOD, or METHOD/DETAIL when the
// purpose declares other details of the method.
type Undeclared struct {
	Callback string
	Count    int
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

// Error is a batch's failure that one query caused: the query at
// Index, the first one without a result.
type Error struct {
	Index int
	Err   error
}

func (e *Error) Error() string { return fmt.Sprintf("query %d of the batch: %v", e.Index, e.Err) }
func (e *Error) Unwrap() error { return e.Err }
