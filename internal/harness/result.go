package harness

import (
	"fmt"
	"math"
	"time"

	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/query"
)

// ResetError is a query whose reset failed: the instance could not be made
// or wired. No answer of such a query means anything, so learning stops.
type ResetError struct {
	Exception, Message string
}

func (e *ResetError) Error() string {
	return fmt.Sprintf("the reset failed (making or wiring a fresh instance): %s: %s", e.Exception, e.Message)
}

// ToResults converts a run's results (a prefix of queries when the run
// failed part way) with ToResult. It returns those before the first that
// does not convert, and a *query.Error for that one.
func ToResults(queries [][]string, rs []QueryResult) ([]query.Result, error) {
	out := make([]query.Result, 0, len(rs))
	for i, r := range rs {
		res, err := ToResult(queries[i], r)
		if err != nil {
			return out, &query.Error{Index: i, Err: err}
		}
		out = append(out, res)
	}
	return out, nil
}

// ToResult turns the harness's answer to q into the pipeline's form.
// An error or environment callback is handed on as its name, for the
// pipeline to map to err (or a failed query) like any other backend's;
// broken assumptions become warnings.
func ToResult(q []string, r QueryResult) (query.Result, error) {
	res := query.Result{
		Outputs: append([]string(nil), r.Outputs...),
		// Rounded: a float product like 1.001*1e6 lands a nanosecond short.
		Device: time.Duration(math.Round(r.DeviceMs*1e3)) * time.Microsecond,
	}
	for _, ms := range r.Ms {
		res.Steps = append(res.Steps, time.Duration(math.Round(ms*1e3))*time.Microsecond)
	}
	if e := r.Err; e != nil {
		switch e.Kind {
		case "reset":
			return res, &ResetError{Exception: e.Exception, Message: e.Message}
		case "error-callback", "environment":
			if e.At >= 0 && e.At < len(res.Outputs) {
				res.Outputs[e.At] = e.Callback
			}
		case "timeout":
			// Run returns a wedged query's result in a *WedgedError, so a
			// timeout here broke the protocol; it is no answer either way.
			return res, fmt.Errorf("the harness timed out: %s", e.Message)
		case "thrown":
			res.Err = &model.ErrInfo{Kind: model.ErrThrown, Detail: thrownDetail(e)}
		case "returned":
			res.Err = &model.ErrInfo{Kind: model.ErrReturned, Detail: "returned " + string(e.Value)}
		case "no-callback":
			res.Err = &model.ErrInfo{Kind: model.ErrNoCallback, Detail: e.Message}
		default:
			res.Err = &model.ErrInfo{Kind: model.ErrUnknown, Detail: e.Kind + ": " + e.Message}
		}
	}
	for _, v := range r.Violations {
		res.Timing = append(res.Timing, query.Timing{Kind: v.Kind, At: v.At, Callback: v.Callback})
	}
	res.Stragglers = r.Stragglers
	for _, u := range r.Undeclared {
		name := u.Method
		if u.Detail != nil {
			name += "/" + *u.Detail
		}
		res.Undeclared = append(res.Undeclared, query.Undeclared{Callback: name, Count: u.Count})
	}
	return res, nil
}

func thrownDetail(e *QueryErr) string {
	if e.Message == "" {
		return e.Exception
	}
	return e.Exception + ": " + e.Message
}
