// Package mapper translates between a backend and the purpose, as
// LearnLib's SULMapper does: an executor decorator that turns the callback
// names a backend reports (listener methods, "onEvent/MODIFY") into the
// purpose's output symbols, an error callback into err, and an environment
// callback into a failed query.
package mapper

import (
	"context"
	"fmt"

	"github.com/droidstar/droidstar/internal/backend"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/query"
)

// Kind is what a callback name stands for.
type Kind int

const (
	// Output is an output symbol.
	Output Kind = iota
	// Error is an error callback: the wait that delivers it answers err.
	Error
	// Environment says that the environment failed, not the class (a
	// permission revoked, no microphone): the query has no answer.
	Environment
)

// Map turns a backend's callback name into an output symbol and says what
// kind of callback it is; ok is false for a name the purpose does not
// declare.
type Map func(name string) (symbol string, kind Kind, ok bool)

// EnvironmentError is a query that met an environment callback. Learning
// stops with it: answers from a broken environment would be learned as
// the class's behaviour.
type EnvironmentError struct {
	// Callback is the name the backend reported, Symbol the purpose's.
	Callback, Symbol string
}

func (e *EnvironmentError) Error() string {
	what := e.Callback
	if e.Symbol != e.Callback {
		what += " (" + e.Symbol + ")"
	}
	return fmt.Sprintf("the environment failed, not the class: callback %s came, which the purpose declares error: environment; fix the device or its set-up and learn again", what)
}

// Executor runs queries on Next and maps their callback names. ok, quiet
// and err pass unchanged.
type Executor struct {
	Next backend.Executor
	Map  Map
}

// Wrap puts a mapper in front of next: a BatchExecutor when next is one,
// so that batches pass through to it whole.
func Wrap(next backend.Executor, m Map) backend.Executor {
	e := &Executor{Next: next, Map: m}
	if b, ok := next.(backend.BatchExecutor); ok {
		return &BatchExecutor{Executor: e, next: b}
	}
	return e
}

// Execute implements backend.Executor. An error callback ends the query:
// it answers err, explained as that callback, and the outputs after it are
// dropped (the pipeline answers them err). An environment callback fails
// the query with an *EnvironmentError.
func (e *Executor) Execute(ctx context.Context, inputs []string) (query.Result, error) {
	res, err := e.Next.Execute(ctx, inputs)
	if err != nil {
		return res, err
	}
	return e.mapResult(res)
}

func (e *Executor) mapResult(res query.Result) (query.Result, error) {
	// Timing problems name callbacks as the purpose does; one the purpose
	// does not declare keeps the backend's name.
	for k, v := range res.Timing {
		if sym, _, ok := e.Map(v.Callback); ok {
			res.Timing[k].Callback = sym
		}
	}
	for k, name := range res.Outputs {
		if mealy.IsClosureOutput(name) {
			continue
		}
		sym, kind, ok := e.Map(name)
		if !ok {
			return res, fmt.Errorf("backend reported callback %q, which the purpose does not declare", name)
		}
		switch kind {
		case Error:
			res.Outputs = append(res.Outputs[:k], mealy.Err)
			res.Err = &model.ErrInfo{Kind: model.ErrErrorCallback, Detail: name}
			return res, nil
		case Environment:
			return res, &EnvironmentError{Callback: name, Symbol: sym}
		}
		res.Outputs[k] = sym
	}
	return res, nil
}

// BatchExecutor is the mapper in front of a backend.BatchExecutor.
type BatchExecutor struct {
	*Executor
	next backend.BatchExecutor
}

// ExecuteBatch implements backend.BatchExecutor: the batch runs on the
// backend whole, and each result is mapped as Execute maps it. A result
// that cannot be mapped fails its query; the results before it stand.
func (b *BatchExecutor) ExecuteBatch(ctx context.Context, queries [][]string) ([]query.Result, error) {
	results, err := b.next.ExecuteBatch(ctx, queries)
	for k := range results {
		res, merr := b.mapResult(results[k])
		if merr != nil {
			return results[:k], &query.Error{Index: k, Err: merr}
		}
		results[k] = res
	}
	return results, err
}

// Describe implements backend.Executor.
func (e *Executor) Describe() model.DeviceInfo { return e.Next.Describe() }

// Close implements backend.Executor.
func (e *Executor) Close() error { return e.Next.Close() }
