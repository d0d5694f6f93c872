// Package backend defines what every query executor (simulated model, host
// JVM harness, Android device) provides to the membership pipeline.
package backend

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/query"
)

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
	Execute(ctx context.Context, inputs []string) (query.Result, error)
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
	// batch, possibly empty); a *query.Error says which query failed, any
	// other error concerns the whole batch.
	ExecuteBatch(ctx context.Context, queries [][]string) ([]query.Result, error)
}

// ExecuteOne runs one query as a batch of one, for batch executors whose
// Execute is nothing more: the error is the query's own, not wrapped in
// the *query.Error that places it in the batch.
func ExecuteOne(ctx context.Context, e BatchExecutor, inputs []string) (query.Result, error) {
	return runOne(ctx, e.ExecuteBatch, inputs)
}

// runOne runs inputs as a batch of one with run, unwrapping the
// *query.Error that would place its error in the batch.
func runOne(ctx context.Context, run func(context.Context, [][]string) ([]query.Result, error), inputs []string) (query.Result, error) {
	rs, err := run(ctx, [][]string{inputs})
	if err != nil {
		var qe *query.Error
		if errors.As(err, &qe) {
			err = qe.Err
		}
		return query.Result{}, err
	}
	if len(rs) != 1 {
		return query.Result{}, fmt.Errorf("a batch of one query came back with %d results", len(rs))
	}
	return rs[0], nil
}
