package backend

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/query"
)

// batchOf answers every batch with fixed results and error, and records
// the batches it was given.
type batchOf struct {
	results []query.Result
	err     error
	got     [][][]string
}

func (b *batchOf) Execute(ctx context.Context, inputs []string) (query.Result, error) {
	return ExecuteOne(ctx, b, inputs)
}
func (b *batchOf) ExecuteBatch(_ context.Context, qs [][]string) ([]query.Result, error) {
	b.got = append(b.got, qs)
	return b.results, b.err
}
func (b *batchOf) Describe() model.DeviceInfo { return model.DeviceInfo{} }
func (b *batchOf) Close() error               { return nil }

func TestExecuteOne(t *testing.T) {
	wedged := errors.New("harness wedged")
	gone := errors.New("device gone")
	ok := query.Result{Outputs: []string{"ok", "onPrepared"}}
	for _, tt := range []struct {
		name    string
		b       batchOf
		want    query.Result
		wantErr string
	}{
		{name: "answer", b: batchOf{results: []query.Result{ok}}, want: ok},
		{name: "query error unwrapped", b: batchOf{err: &query.Error{Index: 0, Err: wedged}}, wantErr: "harness wedged"},
		{name: "batch error as is", b: batchOf{err: gone}, wantErr: "device gone"},
		{name: "no result", b: batchOf{}, wantErr: "a batch of one query came back with 0 results"},
		{name: "two results", b: batchOf{results: []query.Result{ok, ok}}, wantErr: "a batch of one query came back with 2 results"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.b.Execute(context.Background(), []string{"prepareAsync", "wait"})
			if want := [][][]string{{{"prepareAsync", "wait"}}}; !reflect.DeepEqual(tt.b.got, want) {
				t.Fatalf("batches %q, want %q", tt.b.got, want)
			}
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %s", err, tt.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}
