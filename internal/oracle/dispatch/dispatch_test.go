package dispatch_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/droidstar/droidstar/internal/backend"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/oracle"
	"github.com/droidstar/droidstar/internal/oracle/dispatch"
)

// echo answers each input with the output of the same position in
// answers (cycled), records what it ran, and can stop early or warn.
type echo struct {
	serial  string
	answers []string
	stopAt  int // answer only this many outputs (0: all)
	warn    string
	mu      sync.Mutex
	ran     []string
}

func (e *echo) Execute(_ context.Context, in []string) (backend.Result, error) {
	e.mu.Lock()
	e.ran = append(e.ran, strings.Join(in, " "))
	e.mu.Unlock()
	res := backend.Result{Device: time.Duration(len(in)) * time.Second}
	for k := range in {
		if e.stopAt > 0 && k == e.stopAt {
			break
		}
		res.Outputs = append(res.Outputs, e.answers[k%len(e.answers)])
	}
	if e.warn != "" {
		res.Warnings = []string{e.warn}
	}
	return res, nil
}

func (e *echo) Describe() model.DeviceInfo { return model.DeviceInfo{Serial: e.serial} }
func (e *echo) Close() error               { return nil }

func alphabets(t *testing.T) (in, out *mealy.Alphabet) {
	t.Helper()
	in, out, err := mealy.ClosureAlphabets([]string{"start"}, []string{"fired"})
	if err != nil {
		t.Fatal(err)
	}
	return in, out
}

func TestSchedulerSpreadsOverExecutors(t *testing.T) {
	in, out := alphabets(t)
	execs := []*echo{{serial: "a", answers: []string{"ok", "fired"}, warn: "late fired"},
		{serial: "b", answers: []string{"ok", "fired"}}, {serial: "c", answers: []string{"ok", "fired"}, warn: "late fired"}}
	var bs []backend.Executor
	for _, e := range execs {
		bs = append(bs, e)
	}
	rec := &oracle.Recorder{}
	s := &dispatch.Scheduler{Executors: bs, Inputs: in, Outputs: out, Sem: mealy.ClosureSemantics(in, out), Recorder: rec}
	var qs []mealy.Word
	for k := range 30 {
		qs = append(qs, slices.Repeat(mealy.Word{k % 2}, 1+k%4))
	}
	ans, err := s.Ask(context.Background(), qs)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, e := range execs {
		total += len(e.ran)
	}
	if total != 30 {
		t.Fatalf("ran %d queries, want 30", total)
	}
	for k, q := range qs {
		want := strings.Join([]string{"ok", "fired", "ok", "fired"}[:len(q)], " ")
		if got := out.Format(ans[k].Outputs); got != want || ans[k].ErrAt != -1 || ans[k].Device == "" {
			t.Fatalf("query %d answered %q (%+v), want %q", k, got, ans[k], want)
		}
	}
	l, _ := rec.Snapshot()
	if l.Executed != 30 || l.Symbols != 73 || l.DeviceSecs != 73 {
		t.Fatalf("recorded %+v", l)
	}
	if w := rec.Warnings(); fmt.Sprint(w) != "[late fired]" {
		t.Errorf("warnings %q", w)
	}
}

// The outputs after the first err are err, explained by the executor's
// Err; an executor that stops early without an err, or answers a name
// that is no output, is an error naming the executor and the query.
func TestSchedulerConvertsOutputs(t *testing.T) {
	in, out := alphabets(t)
	cases := []struct {
		exec     *echo
		want     string
		wantErr  string
		wantInfo *model.ErrInfo
	}{
		{exec: &echo{serial: "d", answers: []string{"ok", "err"}}, want: "ok err err", wantInfo: &model.ErrInfo{Kind: model.ErrUnknown}},
		{exec: &echo{serial: "d", answers: []string{"ok"}, stopAt: 1}, wantErr: "d: query start wait start: backend stopped after 1 of 3 inputs without an err"},
		{exec: &echo{serial: "d", answers: []string{"onFire"}}, wantErr: `d: query start wait start: backend answered "onFire", which is not an output (outputs: ok, quiet, err, fired)`},
	}
	for _, c := range cases {
		s := &dispatch.Scheduler{Executors: []backend.Executor{c.exec}, Inputs: in, Outputs: out,
			Sem: mealy.ClosureSemantics(in, out), Recorder: &oracle.Recorder{}}
		ans, err := s.Ask(context.Background(), []mealy.Word{in.MustWord("start", "wait", "start")})
		if c.wantErr != "" {
			if err == nil || err.Error() != c.wantErr {
				t.Errorf("error %v, want %q", err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		a := ans[0]
		if got := out.Format(a.Outputs); got != c.want || a.ErrAt != 1 || *a.Err != *c.wantInfo {
			t.Errorf("got %s %+v %+v, want %s", got, a, a.Err, c.want)
		}
	}
}
