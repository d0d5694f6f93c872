// Package mapper translates between a backend and the purpose, as
// LearnLib's SULMapper does: an executor decorator that turns the callback
// names a backend reports (listener methods, "onEvent/MODIFY") into the
// purpose's output symbols, and an error callback into err.
package mapper

import (
	"context"
	"fmt"

	"github.com/droidstar/droidstar/internal/backend"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
)

// Map turns a backend's callback name into an output symbol. isErr marks
// an error callback; ok is false for a name the purpose does not declare.
type Map func(name string) (symbol string, isErr, ok bool)

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
// dropped (the pipeline answers them err).
func (e *Executor) Execute(ctx context.Context, inputs []string) (backend.Result, error) {
	res, err := e.Next.Execute(ctx, inputs)
	if err != nil {
		return res, err
	}
	return e.mapResult(res)
}

func (e *Executor) mapResult(res backend.Result) (backend.Result, error) {
	for k, name := range res.Outputs {
		if mealy.IsClosureOutput(name) {
			continue
		}
		sym, isErr, ok := e.Map(name)
		if !ok {
			return res, fmt.Errorf("backend reported callback %q, which the purpose does not declare", name)
		}
		if isErr {
			res.Outputs = append(res.Outputs[:k], mealy.Err)
			res.Err = &model.ErrInfo{Kind: model.ErrErrorCallback, Detail: name}
			return res, nil
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
func (b *BatchExecutor) ExecuteBatch(ctx context.Context, queries [][]string) ([]backend.Result, error) {
	results, err := b.next.ExecuteBatch(ctx, queries)
	for k := range results {
		res, merr := b.mapResult(results[k])
		if merr != nil {
			return results[:k], &backend.QueryError{Index: k, Err: merr}
		}
		results[k] = res
	}
	return results, err
}

// Describe implements backend.Executor.
func (e *Executor) Describe() model.DeviceInfo { return e.Next.Describe() }

// Close implements backend.Executor.
func (e *Executor) Close() error { return e.Next.Close() }
