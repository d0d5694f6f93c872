package simharness

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/droidstar/droidstar/internal/backend/sim"
	"github.com/droidstar/droidstar/internal/harness"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/nouns"
	"github.com/droidstar/droidstar/internal/query"
)

// serial names the executors in the simulator's own messages.
const serial = "simharness"

type runReply struct {
	Results []queryResult `json:"results"`
	Wedged  string        `json:"wedged,omitempty"`
}

// queryResult is one query's answer. Stragglers and violations are
// always none: a model delivers a callback only when a wait asks for one,
// and nothing outlives its query; ignored and undeclared calls are
// Options.Undeclared's.
type queryResult struct {
	Outputs    []string             `json:"outputs"`
	Ms         []millis             `json:"ms"`
	DeviceMs   millis               `json:"device_ms"`
	Stragglers int                  `json:"stragglers"`
	Ignored    int                  `json:"ignored"`
	Undeclared []harness.Undeclared `json:"undeclared"`
	Violations []struct{}           `json:"violations"`
	Err        any                  `json:"err,omitempty"`
}

type thrownErr struct {
	At        int     `json:"at"`
	Kind      string  `json:"kind"`
	Exception string  `json:"exception"`
	Message   *string `json:"message"`
}

type timeoutErr struct {
	At      int    `json:"at"`
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

type callbackErr struct {
	At       int    `json:"at"`
	Kind     string `json:"kind"`
	Callback string `json:"callback"`
}

// noCallbackErr is a callin whose {"callback": [METHOD, N]} literal has
// no value: no wait of the query delivered METHOD before it.
type noCallbackErr struct {
	At       int    `json:"at"`
	Kind     string `json:"kind"`
	Callback string `json:"callback"`
	Message  string `json:"message"`
}

type returnedErr struct {
	At    int    `json:"at"`
	Kind  string `json:"kind"`
	Value rawish `json:"value"`
}

// rawish is an error_if value as the request wrote it, written back as
// JSON; null stays null.
type rawish struct{ v any }

func (r rawish) MarshalJSON() ([]byte, error) { return mustJSON(r.v), nil }

// millis is a duration written as the Java harness writes one (Json.millis):
// milliseconds rounded to microseconds, always with a fraction ("0.0",
// "102.4"). The corpus's "*ms" wildcard checks the fraction, and a quiet
// chain's "0.0" the text.
type millis time.Duration

func (m millis) MarshalJSON() ([]byte, error) {
	micros := max(time.Duration(m), 0).Round(time.Microsecond) / time.Microsecond
	whole, frac := int64(micros/1000), int64(micros%1000)
	s := strconv.FormatInt(whole, 10) + "."
	if frac == 0 {
		return []byte(s + "0"), nil
	}
	return []byte(s + strings.TrimRight(fmt.Sprintf("%03d", frac), "0")), nil
}

// run checks every symbol of every query before running any, as
// Server.run does, so that a bad batch runs nothing (the corpus session
// run-bad-queries refuses batches, then runs a good one).
func (s *server) run(ctx context.Context, req *object) (any, *protoError) {
	if s.config == nil {
		return nil, &protoError{code: codeNotConfigured, message: "run before a successful configure"}
	}
	qs, ok := req.get("queries").([]any)
	if !ok {
		if req.get("queries") == nil {
			return nil, badRequest("", `run needs "queries"`)
		}
		return nil, badRequest("", `"queries" must be an array of arrays of symbols, not %s`, typeName(req.get("queries")))
	}
	queries := make([][]string, len(qs))
	for i, rawQuery := range qs {
		syms, ok := rawQuery.([]any)
		if !ok {
			return nil, badRequest("", "queries[%d] must be an array of symbols, not %s", i, typeName(rawQuery))
		}
		queries[i] = make([]string, len(syms))
		for k, raw := range syms {
			sym, ok := raw.(string)
			if !ok {
				return nil, badRequest("", "queries[%d][%d] must be a symbol (a string), not %s", i, k, typeName(raw))
			}
			if sym != mealy.Wait && !s.config.callins[sym] {
				return nil, &protoError{code: codeUnknownSymbol, message: fmt.Sprintf("queries[%d][%d]: \"%s\" is neither a callin of %s nor wait", i, k, sym, s.config.name)}
			}
			queries[i][k] = sym
		}
	}
	quiescence, given, perr := s.runQuiescence(req)
	if perr != nil {
		return nil, perr
	}
	s.quiescence, s.quiescenceGiven = quiescence, given
	waits, perr := s.runWaits(req, queries)
	if perr != nil {
		return nil, perr
	}
	reply := runReply{Results: make([]queryResult, 0, len(queries))}
	// One after another, as a device runs one instance at a time.
	for i, q := range queries {
		s.waits = nil
		if waits != nil {
			s.waits = waits[i]
		}
		r, err := s.query(ctx, q)
		var crash *CrashError
		if errors.As(err, &crash) {
			// The process dies: no reply (handle returns the crash).
			s.crashed = crash
			return nil, nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil // handle notices ctx and drops the reply
			}
			return nil, &protoError{code: codeInternal, message: "internal error: " + err.Error()}
		}
		reply.Results = append(reply.Results, r)
		if s.wedged != "" {
			// Server.run: nothing more can run on the main thread.
			reply.Wedged = s.wedged
			break
		}
	}
	return reply, nil
}

// runQuiescence is Server.runQuiescence: the run's "quiescence" when
// given, at most the configured one; given is false when the request has
// none (the simulator's own timing then stands).
func (s *server) runQuiescence(req *object) (d time.Duration, given bool, perr *protoError) {
	v := req.get("quiescence")
	if v == nil {
		return 0, false, nil
	}
	d, perr = s.timeout(v, `"quiescence"`)
	return d, perr == nil, perr
}

// timeout is Server.timeoutMs: a timeout of the request, named what in
// the messages, a non-negative integer of milliseconds at most the
// configured quiescence.
func (s *server) timeout(v any, what string) (time.Duration, *protoError) {
	ms, ok := v.(int64)
	if !ok || ms < 0 {
		return 0, badRequest("", `%s must be a non-negative integer of milliseconds, not %s`, what, describe(v))
	}
	if d := time.Duration(ms) * time.Millisecond; d > s.config.quiescence {
		return 0, badRequest("", `%s (%d ms) may not exceed the purpose's timeouts.quiescence (%d ms)`, what, ms, s.config.quiescence.Milliseconds())
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// runWaits is Server.runWaits: the run's "waits" when given, one array per
// query with one timeout per wait of that query, each at most the
// configured quiescence; returned by query and place (0 where no wait
// is), nil when the request has none.
func (s *server) runWaits(req *object, queries [][]string) ([][]time.Duration, *protoError) {
	v := req.get("waits")
	if v == nil {
		return nil, nil
	}
	arrays, ok := v.([]any)
	if !ok {
		return nil, badRequest("", `"waits" must be an array with an array of milliseconds per query, not %s`, typeName(v))
	}
	if len(arrays) != len(queries) {
		return nil, badRequest("", `"waits" has %s for %s`, nouns.Count(len(arrays), "array"), nouns.Count(len(queries), "query"))
	}
	out := make([][]time.Duration, len(queries))
	for i, raw := range arrays {
		timeouts, ok := raw.([]any)
		if !ok {
			return nil, badRequest("", "waits[%d] must be an array of milliseconds, not %s", i, typeName(raw))
		}
		var places []int
		for k, sym := range queries[i] {
			if sym == mealy.Wait {
				places = append(places, k)
			}
		}
		if len(timeouts) != len(places) {
			return nil, badRequest("", "waits[%d] has %s for the %s of queries[%d]", i,
				nouns.Count(len(timeouts), "timeout"), nouns.Count(len(places), "wait"), i)
		}
		out[i] = make([]time.Duration, len(queries[i]))
		for k, t := range timeouts {
			d, perr := s.timeout(t, fmt.Sprintf("waits[%d][%d]", i, k))
			if perr != nil {
				return nil, perr
			}
			out[i][places[k]] = d
		}
	}
	return out, nil
}

// hang runs a query that begins with a Wedge or Freeze word up to the
// word's last callin, which never returns. A query that answers err
// before it does not reach it.
func (s *server) hang(ctx context.Context, q []string, at int, freeze bool) (queryResult, error) {
	r, err := s.query(ctx, q[:at])
	if err != nil || len(r.Outputs) > 0 && r.Outputs[len(r.Outputs)-1] == mealy.Err {
		return r, err
	}
	if freeze {
		<-ctx.Done()
		return queryResult{}, ctx.Err()
	}
	timeout := s.opts.MainThreadTimeout
	if timeout <= 0 {
		timeout = harness.MainThreadTimeout(s.config.quiescence)
	}
	if s.opts.Timing.Realtime {
		select {
		case <-ctx.Done():
			return queryResult{}, ctx.Err()
		case <-time.After(timeout):
		}
	}
	// QueryRunner.timedOut: the words are the Java harness's.
	msg := fmt.Sprintf("callin %s did not return within %d ms on the main thread", q[at], timeout.Milliseconds())
	s.wedged = msg + ", which is still blocked: this harness runs no more queries (restart it)"
	r.Outputs = append(r.Outputs, mealy.Err)
	r.Ms = append(r.Ms, millis(timeout))
	r.DeviceMs += millis(timeout)
	r.Err = timeoutErr{At: at, Kind: "timeout", Message: msg}
	return r, nil
}

// query runs one query on a fresh executor. The model is walked once on
// the virtual clock to find where the harness would stop: the harness
// ends a query at an error or environment callback (the corpus session
// configure-run shows it), which the simulator does not know about. The
// query is then run up to there with the real timing, so that a realtime
// device sleeps only for what it answers. The simulator says what each
// symbol cost, by the closure's rules it follows (mealy.Semantics).
//
// A model knows that a callin errs, not why: an err at a callin with
// error_if is taken to be that value returned (a model of the class is
// written so), any other as a throw.
func (s *server) query(ctx context.Context, q []string) (queryResult, error) {
	if at := s.opts.crashAt(q); at >= 0 {
		r, err := s.query(ctx, q[:at])
		if err != nil || len(r.Outputs) > 0 && r.Outputs[len(r.Outputs)-1] == mealy.Err {
			return r, err
		}
		return queryResult{}, &CrashError{Exception: CrashException, Message: "the app dies in " + q[at] + " (simharness Options.Crash)", Callin: q[at]}
	}
	if at, freeze := s.opts.hangAt(q); at >= 0 {
		return s.hang(ctx, q, at, freeze)
	}
	if at, need, err := s.undelivered(ctx, q); err != nil {
		return queryResult{}, err
	} else if at >= 0 {
		// What comes before runs as the model says; the callin's literal
		// has no value, so the harness never calls its method.
		r, err := s.query(ctx, q[:at])
		if err != nil || r.Err != nil {
			return r, err
		}
		r.Outputs, r.Ms = append(r.Outputs, mealy.Err), append(r.Ms, 0)
		r.Err = noCallbackErr{At: at, Kind: "no-callback", Callback: need.method,
			Message: fmt.Sprintf("needs argument %d of %s, which no wait of this query has delivered", need.arg, need.method)}
		return r, nil
	}
	if s.opts.Refuses != nil {
		for at, sym := range q {
			v, ok := s.config.errorIf[sym]
			if !ok || !s.opts.Refuses(sym) {
				continue
			}
			// What comes before runs as the model says; the callin
			// returns its error value.
			r, err := s.query(ctx, q[:at])
			if err != nil || r.Err != nil {
				return r, err
			}
			r.Outputs, r.Ms, r.Err = append(r.Outputs, mealy.Err), append(r.Ms, 0), returnedErr{At: at, Kind: "returned", Value: rawish{v}}
			return r, nil
		}
	}
	for at, sym := range q {
		exc, ok := s.opts.Throws[sym]
		if !ok {
			continue
		}
		// What comes before runs as the model says; the callin throws.
		r, err := s.query(ctx, q[:at])
		if err != nil || r.Err != nil {
			return r, err
		}
		e := thrownErr{At: at, Kind: "thrown", Exception: exc}
		if cls, msg, ok := strings.Cut(exc, ": "); ok {
			e.Exception, e.Message = cls, &msg
		}
		r.Outputs, r.Ms, r.Err = append(r.Outputs, mealy.Err), append(r.Ms, 0), e
		return r, nil
	}
	timing := s.opts.Timing
	if s.quiescenceGiven {
		timing.Quiescence = s.quiescence
	}
	virtual := timing
	virtual.Realtime = false
	res, costs, err := s.executor(virtual).Run(ctx, q)
	if err != nil {
		return queryResult{}, fmt.Errorf("simulate %s: %w", strings.Join(q, " "), err)
	}
	cut := -1
	for i, out := range res.Outputs {
		name := s.reported(out)
		if s.config.errorCallbacks[name] || s.config.environmentCallbacks[name] {
			cut = i
			break
		}
	}
	if cut >= 0 || s.opts.Timing.Realtime {
		if cut >= 0 {
			q = q[:cut+1]
		}
		if res, costs, err = s.executor(timing).Run(ctx, q); err != nil {
			return queryResult{}, fmt.Errorf("simulate %s: %w", strings.Join(q, " "), err)
		}
	}
	r := queryResult{
		Outputs: make([]string, len(res.Outputs)), Ms: make([]millis, len(costs)),
		DeviceMs: millis(res.Device), Undeclared: []harness.Undeclared{}, Violations: []struct{}{},
	}
	// Over the callins that ran (up to an err), grouped as the Java
	// harness groups them: one entry per method and detail, counted.
	ran := len(res.Outputs)
	if cut >= 0 {
		ran = cut + 1
	}
	for _, sym := range q[:min(ran, len(q))] {
		for _, u := range s.opts.Undeclared[sym] {
			n := max(u.Count, 1)
			r.Ignored += n
			k := slices.IndexFunc(r.Undeclared, func(o harness.Undeclared) bool {
				return o.Method == u.Method && (o.Detail == nil) == (u.Detail == nil) && (o.Detail == nil || *o.Detail == *u.Detail)
			})
			if k < 0 {
				r.Undeclared = append(r.Undeclared, harness.Undeclared{Method: u.Method, Detail: u.Detail})
				k = len(r.Undeclared) - 1
			}
			r.Undeclared[k].Count += n
		}
	}
	for i, out := range res.Outputs {
		r.Outputs[i] = s.reported(out)
	}
	for i, d := range costs {
		r.Ms[i] = millis(d)
	}
	switch n := len(res.Outputs); {
	case cut >= 0:
		kind := "error-callback"
		if s.config.environmentCallbacks[r.Outputs[cut]] {
			kind = "environment"
		}
		r.Err = callbackErr{At: cut, Kind: kind, Callback: r.Outputs[cut]}
		r.Outputs[cut] = mealy.Err
	case n > 0 && res.Outputs[n-1] == mealy.Err:
		if v, ok := s.config.errorIf[q[n-1]]; ok {
			r.Err = returnedErr{At: n - 1, Kind: "returned", Value: rawish{v}}
		} else {
			r.Err = thrown(n-1, res, q)
		}
	}
	return r, nil
}

// undelivered finds the first callin of q, in the run the model gives,
// that takes an argument of a callback no wait before it delivered
// ({"callback": [METHOD, N]}, config.needs), and the first such literal
// of it; -1 when there is none before the query ends or errs.
func (s *server) undelivered(ctx context.Context, q []string) (int, callbackNeed, error) {
	if len(s.config.needs) == 0 {
		return -1, callbackNeed{}, nil
	}
	virtual := s.opts.Timing // only the outputs matter: no sleeping
	virtual.Realtime = false
	res, _, err := s.executor(virtual).Run(ctx, q)
	if err != nil {
		return -1, callbackNeed{}, fmt.Errorf("simulate %s: %w", strings.Join(q, " "), err)
	}
	delivered := map[string]bool{}
	for i, sym := range q {
		if i >= len(res.Outputs) || res.Outputs[i] == mealy.Err {
			break
		}
		if sym == mealy.Wait {
			name := s.reported(res.Outputs[i])
			if s.config.errorCallbacks[name] || s.config.environmentCallbacks[name] {
				break // the harness ends the query there
			}
			if !mealy.IsClosureOutput(res.Outputs[i]) {
				method, _, _ := strings.Cut(name, "/")
				delivered[method] = true
			}
			continue
		}
		for _, n := range s.config.needs[sym] {
			if !delivered[n.method] {
				return i, n, nil
			}
		}
	}
	return -1, callbackNeed{}, nil
}

// executor is a simulator for one query under timing, its waits under the
// run's "waits" when it gave them.
func (s *server) executor(timing sim.Timing) *sim.Executor {
	e := sim.NewExecutor(s.opts.Model, timing, serial)
	if waits := s.waits; waits != nil {
		e.SetWaitTimeouts(func([]string) []time.Duration { return waits })
	}
	return e
}

// reported is the name the harness reports for a model output.
func (s *server) reported(out string) string {
	if name, ok := s.opts.CallbackNames[out]; ok && !mealy.IsClosureOutput(out) {
		return name
	}
	return out
}

// thrown describes a model's err as a thrown exception. A model names no
// exception class, so the simulator's whole detail goes in exception (or
// is split at ": " when it reads "Class: message"): harness.ToResult then
// rebuilds exactly the detail the simulator gives.
func thrown(at int, res query.Result, q []string) thrownErr {
	detail := fmt.Sprintf("%s answers err in the model", q[at])
	if res.Err != nil {
		detail = res.Err.Detail
	}
	e := thrownErr{At: at, Kind: "thrown", Exception: detail}
	if exc, msg, ok := strings.Cut(detail, ": "); ok && exc != "" && msg != "" {
		e.Exception, e.Message = exc, &msg
	}
	return e
}
