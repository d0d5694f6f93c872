package mapper_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/droidstar/droidstar/internal/backend"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/oracle/mapper"
	"github.com/droidstar/droidstar/internal/query"
)

// fixed answers every query with the same outputs.
type fixed []string

func (f fixed) Execute(context.Context, []string) (query.Result, error) {
	return query.Result{Outputs: append([]string(nil), f...)}, nil
}
func (fixed) Describe() model.DeviceInfo { return model.DeviceInfo{Serial: "fixed"} }
func (fixed) Close() error               { return nil }

// purposeMap is a purpose with onFire as "fired", onFail as an error
// callback "failed", and onError/9 as an environment callback "env".
func purposeMap(name string) (string, mapper.Kind, bool) {
	switch name {
	case "onFire":
		return "fired", mapper.Output, true
	case "onFail":
		return "failed", mapper.Error, true
	case "onError/9":
		return "env", mapper.Environment, true
	}
	return "", mapper.Output, false
}

func TestMapperTranslatesCallbacks(t *testing.T) {
	cases := []struct {
		outputs []string
		want    query.Result
		wantErr string
	}{
		{outputs: []string{"ok", "onFire", "quiet"}, want: query.Result{Outputs: []string{"ok", "fired", "quiet"}}},
		{outputs: []string{"ok", "onFail", "onFire"}, want: query.Result{Outputs: []string{"ok", "err"},
			Err: &model.ErrInfo{Kind: model.ErrErrorCallback, Detail: "onFail"}}},
		{outputs: []string{"ok", "onTick"}, wantErr: `backend reported callback "onTick", which the purpose does not declare`},
		{outputs: []string{"ok", "onFire", "onError/9"}, wantErr: "the environment failed, not the class: callback onError/9 (env) came, which the purpose declares error: environment; fix the device or its set-up and learn again"},
	}
	for _, c := range cases {
		e := &mapper.Executor{Next: fixed(c.outputs), Map: purposeMap}
		got, err := e.Execute(context.Background(), []string{"start", "wait", "wait"})
		if c.wantErr != "" {
			if err == nil || err.Error() != c.wantErr {
				t.Errorf("%v: error %v, want %q", c.outputs, err, c.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v: got %+v (%v), want %+v", c.outputs, got, err, c.want)
		}
	}
	if d := (&mapper.Executor{Next: fixed(nil)}).Describe(); d.Serial != "fixed" {
		t.Errorf("describe %+v", d)
	}
}

// batched answers each query of a batch with its own outputs, in one
// call, and records the calls.
type batched struct {
	fixed
	answers [][]string
	calls   int
}

func (b *batched) ExecuteBatch(_ context.Context, qs [][]string) ([]query.Result, error) {
	b.calls++
	out := make([]query.Result, len(qs))
	for k := range qs {
		out[k] = query.Result{Outputs: append([]string(nil), b.answers[k]...)}
	}
	return out, nil
}

// Wrap passes batches through whole when the backend takes them, and maps
// every result; a result it cannot map fails its query, after the results
// before it.
func TestMapperPassesBatchesThrough(t *testing.T) {
	if _, ok := mapper.Wrap(fixed(nil), purposeMap).(backend.BatchExecutor); ok {
		t.Error("a mapper over an executor that takes no batches claims to take them")
	}
	b := &batched{answers: [][]string{{"ok", "onFire"}, {"ok", "onFail", "onFire"}, {"onTick"}, {"ok"}}}
	e, ok := mapper.Wrap(b, purposeMap).(backend.BatchExecutor)
	if !ok {
		t.Fatal("a mapper over a batch executor takes no batches")
	}
	got, err := e.ExecuteBatch(context.Background(), [][]string{{"start", "wait"}, {"start", "wait", "wait"}, {"wait"}, {"start"}})
	want := []query.Result{{Outputs: []string{"ok", "fired"}},
		{Outputs: []string{"ok", "err"}, Err: &model.ErrInfo{Kind: model.ErrErrorCallback, Detail: "onFail"}}}
	var qe *query.Error
	if b.calls != 1 || !reflect.DeepEqual(got, want) || !errors.As(err, &qe) || qe.Index != 2 ||
		qe.Err.Error() != `backend reported callback "onTick", which the purpose does not declare` {
		t.Errorf("%d calls, got %+v, %v; want %+v and query 2 failing", b.calls, got, err, want)
	}
}

// timed reports timing problems by the backend's callback names.
type timed struct{ fixed }

func (t timed) Execute(ctx context.Context, in []string) (query.Result, error) {
	res, err := t.fixed.Execute(ctx, in)
	res.Timing = []query.Timing{{Kind: "between-callins", At: 1, Callback: "onFire"}, {Kind: "late", At: 2, Callback: "onTick"}}
	return res, err
}

// Timing problems name the callbacks by the purpose's symbols; one the
// purpose does not declare keeps the backend's name.
func TestMapperNamesTimingBySymbols(t *testing.T) {
	e := &mapper.Executor{Next: timed{fixed{"ok", "ok", "quiet"}}, Map: purposeMap}
	got, err := e.Execute(context.Background(), []string{"start", "stop", "wait"})
	want := []query.Timing{{Kind: "between-callins", At: 1, Callback: "fired"}, {Kind: "late", At: 2, Callback: "onTick"}}
	if err != nil || !reflect.DeepEqual(got.Timing, want) {
		t.Fatalf("timing %+v (%v), want %+v", got.Timing, err, want)
	}
}
