package backend

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/query"
)

// DiedError is a run request during which the harness's process died: the
// JVM exited or was killed, the app on a device crashed. A class under
// test can do that (Runtime.halt, a native crash, an uncaught exception
// on one of its threads), and so can something else (the OOM killer, a
// person). Executors return it so that a Reviver can tell the two apart.
type DiedError struct {
	// Process names the process for a person: "the harness JVM jvm-1".
	Process string
	// Status is how it ended: "exit status 3", "signal: killed",
	// "shortMsg=Process crashed.".
	Status string
	// LastWords are its last lines (the JVM's stderr, the device's logcat
	// crash buffer for its pid), oldest first; none when it said nothing.
	LastWords []string
	// Err is what the harness client saw (the connection closed).
	Err error
}

func (e *DiedError) Error() string {
	msg := fmt.Sprintf("%s died (%s)", e.Process, e.Status)
	if len(e.LastWords) > 0 {
		msg += "; its last words:\n  " + strings.Join(e.LastWords, "\n  ")
	}
	return msg
}

func (e *DiedError) Unwrap() error { return e.Err }

// Detail is the err reason of a crash, on one line (it labels a
// transition in tables and pictures): how the process ended, then its
// last words joined by " | ".
func (e *DiedError) Detail() string {
	d := "the process died (" + e.Status + ")"
	if len(e.LastWords) > 0 {
		words := make([]string, 0, len(e.LastWords))
		for _, w := range e.LastWords {
			if w = strings.TrimSpace(w); w != "" {
				words = append(words, w)
			}
		}
		d += ": " + strings.Join(words, " | ")
	}
	return d
}

// MaxLastWords is how many of a dead process's last lines an executor
// keeps for its DiedError: a stack trace's head says what happened.
const MaxLastWords = 8

// MaxUnexplainedDeaths is how many times in a row a harness process may
// die with no query to blame (every query it was running passed when run
// again alone) before the run stops: once is something else killing it,
// and costs a restart and a warning; this often is a broken environment,
// in which no answer can be trusted.
const MaxUnexplainedDeaths = 3

// Reviver runs batches on a harness whose process may die, for the
// executors whose harness is a process of its own (jvm, adb). When the
// process dies during a run, the queries left without a result may be
// the ones that killed it, so it restarts the harness and runs each of
// them again alone. A query that kills the process again, alone in a
// fresh one, is the class's doing: its answer is err of kind crash at
// the symbol that killed it, found by running its prefixes. A death that
// no query repeats was something else's: a restart and a warning, and the
// answers are those of an undisturbed run; MaxUnexplainedDeaths of them
// in a row stop the run.
type Reviver struct {
	// Run sends one run request; it returns the results of the queries
	// that finished and, when the process died, an error that wraps a
	// *DiedError.
	Run func(ctx context.Context, queries [][]string) ([]query.Result, error)
	// Restart replaces the dead harness with a fresh one.
	Restart func(ctx context.Context, died *DiedError) error

	// unexplained counts the deaths in a row that no query repeated.
	unexplained int
}

// died returns the *DiedError in err, if any.
func died(err error) *DiedError {
	var d *DiedError
	if errors.As(err, &d) {
		return d
	}
	return nil
}

// ExecuteBatch implements BatchExecutor.ExecuteBatch for the executor
// whose Run the Reviver calls.
func (r *Reviver) ExecuteBatch(ctx context.Context, queries [][]string) ([]query.Result, error) {
	out, err := r.Run(ctx, queries)
	d := died(err)
	if d == nil || ctx.Err() != nil {
		if err == nil {
			r.unexplained = 0
		}
		return out, err
	}
	if err := r.restart(ctx, d); err != nil {
		return out, err
	}
	first := len(out)
	explained := false
	for k := first; k < len(queries); k++ {
		res, crashed, err := r.alone(ctx, queries[k])
		if err != nil {
			return out, placed(err, k)
		}
		if crashed {
			explained = true
		}
		out = append(out, res)
	}
	if explained {
		r.unexplained = 0
		return out, nil
	}
	if err := r.unexplainedDeath(d, len(queries)-first); err != nil {
		return out, err
	}
	if first < len(out) {
		which := "1 query, which"
		if n := len(queries) - first; n > 1 {
			which = fmt.Sprintf("%d queries that all", n)
		}
		out[first].Warnings = append(out[first].Warnings, fmt.Sprintf(
			"%s died (%s) during a run of %s passed when run again, each alone, in a fresh one: droidstar restarted it and went on (something other than the class under test may have killed it)",
			d.Process, d.Status, which))
	}
	return out, nil
}

// alone runs q alone, after a death in a run that held it; crashed says
// that q killed the process twice and res is its err of kind crash.
func (r *Reviver) alone(ctx context.Context, q []string) (res query.Result, crashed bool, err error) {
	res, err = r.one(ctx, q)
	d := died(err)
	if d == nil {
		return res, false, err
	}
	// Killed once alone: once more in a fresh process tells a crash of
	// the class from a death it had no part in.
	if err := r.restart(ctx, d); err != nil {
		return res, false, err
	}
	res, err = r.one(ctx, q)
	d2 := died(err)
	if d2 == nil {
		if err == nil {
			if werr := r.unexplainedDeath(d, 1); werr != nil {
				return res, false, werr
			}
			res.Warnings = append(res.Warnings, fmt.Sprintf(
				"%s died (%s) running one query alone, which passed when run again in a fresh one: droidstar restarted it and went on (something other than the class under test may have killed it)",
				d.Process, d.Status))
		}
		return res, false, err
	}
	if err := r.restart(ctx, d2); err != nil {
		return res, false, err
	}
	res, err = r.locate(ctx, q, d2)
	return res, err == nil, err
}

// locate finds the symbol of q that kills the process, which the whole
// of q does: the shortest prefix that kills it, by bisection over the
// prefixes' lengths, each prefix alone in a fresh process. The answer is
// the outputs of the longest prefix that passes, then err of kind crash
// with the last death's words. A prefix that answers err before the
// killer is reached is q's answer, since errors are prefix-closed (the
// harness stops executing at an err).
func (r *Reviver) locate(ctx context.Context, q []string, d *DiedError) (query.Result, error) {
	lo, hi := 0, len(q) // q[:lo] passes (the empty prefix unproven), q[:hi] kills
	var passed query.Result
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		res, err := r.one(ctx, q[:mid])
		if dm := died(err); dm != nil {
			if err := r.restart(ctx, dm); err != nil {
				return query.Result{}, err
			}
			hi, d = mid, dm
			continue
		}
		if err != nil {
			return query.Result{}, err
		}
		if len(res.Outputs) < mid {
			return res, nil
		}
		lo, passed = mid, res
	}
	if lo == 0 {
		// The first symbol kills it, or the reset before it does: that
		// would make every query die, so it is no answer but a broken
		// purpose or class.
		_, err := r.one(ctx, []string{})
		if dm := died(err); dm != nil {
			if rerr := r.restart(ctx, dm); rerr != nil {
				return query.Result{}, rerr
			}
			return query.Result{}, fmt.Errorf("the harness process dies in the reset, before any symbol (making, wiring or disposing of a fresh instance): %w", dm)
		}
		if err != nil {
			return query.Result{}, err
		}
	}
	res := passed
	res.Outputs = append(append([]string(nil), passed.Outputs...), mealy.Err)
	res.Err = &model.ErrInfo{Kind: model.ErrCrash, Detail: d.Detail()}
	res.Warnings = nil
	return res, nil
}

// one runs a query alone and returns its result.
func (r *Reviver) one(ctx context.Context, q []string) (query.Result, error) {
	return runOne(ctx, r.Run, q)
}

func (r *Reviver) restart(ctx context.Context, d *DiedError) error {
	if err := r.Restart(ctx, d); err != nil {
		return fmt.Errorf("%v; starting a fresh harness: %w", d, err)
	}
	return nil
}

// unexplainedDeath counts a death that no query repeated, and stops the
// run when they come MaxUnexplainedDeaths times in a row.
func (r *Reviver) unexplainedDeath(d *DiedError, queries int) error {
	r.unexplained++
	if r.unexplained < MaxUnexplainedDeaths {
		return nil
	}
	return fmt.Errorf("%s died %d times in a row on queries that pass when run alone in a fresh one, so something other than the class under test keeps killing it and no answer can be trusted; the last time: %w",
		d.Process, r.unexplained, d)
}

// placed makes err the failure of query k of the batch.
func placed(err error, k int) error {
	var qe *query.Error
	if errors.As(err, &qe) {
		return &query.Error{Index: k, Err: qe.Err}
	}
	return &query.Error{Index: k, Err: err}
}
