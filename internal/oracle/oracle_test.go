package oracle

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/droidstar/droidstar/internal/backend"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/purpose"
)

// timerExec is a tiny hand-written device: "start" arms a timer whose
// callback "fired" arrives at the next wait; a second start throws. It
// follows the harness rules (quiet chains, stop at err) and records every
// query it runs.
type timerExec struct {
	mu      sync.Mutex
	ran     []string
	serial  string
	flipped bool // answer differently the second time (non-determinism)
	runs    int
}

func (e *timerExec) Execute(_ context.Context, in []string) (backend.Result, error) {
	e.mu.Lock()
	e.ran = append(e.ran, strings.Join(in, " "))
	e.runs++
	n := e.runs
	e.mu.Unlock()
	var res backend.Result
	started, pending, afterQuiet := false, false, false
	for _, s := range in {
		switch s {
		case "start":
			if started {
				res.Outputs = append(res.Outputs, "err")
				res.Err = &model.ErrInfo{Kind: model.ErrThrown, Detail: "IllegalStateException"}
				return res, nil
			}
			started, pending, afterQuiet = true, true, false
			res.Outputs = append(res.Outputs, "ok")
		case "cancel":
			pending, afterQuiet = false, false
			res.Outputs = append(res.Outputs, "ok")
		case "wait":
			switch {
			case pending && !afterQuiet:
				pending = false
				out := "onFire"
				if e.flipped && n > 1 {
					out = "quiet"
				}
				res.Outputs = append(res.Outputs, out)
				res.Device += 10 * time.Millisecond
			default:
				if !afterQuiet {
					res.Device += 500 * time.Millisecond
				}
				afterQuiet = true
				res.Outputs = append(res.Outputs, "quiet")
			}
		}
	}
	return res, nil
}

func (e *timerExec) Describe() model.DeviceInfo { return model.DeviceInfo{Serial: e.serial} }
func (e *timerExec) Close() error               { return nil }

type pipeline struct {
	in, out *mealy.Alphabet
	exec    *timerExec
	stats   *Stats
	cache   *Cache
	top     Oracle
	filter  *Filter
}

func newPipeline(t *testing.T, restrictions []purpose.Restriction) *pipeline {
	t.Helper()
	in, out, err := mealy.ClosureAlphabets([]string{"start", "cancel"}, []string{"fired"})
	if err != nil {
		t.Fatal(err)
	}
	p := &pipeline{in: in, out: out, exec: &timerExec{serial: "fake-0"}, stats: &Stats{}}
	sem := ClosureSemantics(in, out)
	mapping := func(name string) (string, bool, bool) {
		if name == "onFire" {
			return "fired", false, true
		}
		return "", false, false
	}
	sched := &Scheduler{Executors: []backend.Executor{p.exec}, Inputs: in, Outputs: out, Sem: sem, Map: mapping, Stats: p.stats}
	p.cache = NewCache(sched, in, out, sem, p.stats)
	p.filter, err = NewFilter(p.cache, in, sem, restrictions, p.stats)
	if err != nil {
		t.Fatal(err)
	}
	p.top = &Counter{Next: p.filter, Stats: p.stats}
	return p
}

func (p *pipeline) ask(t *testing.T, words ...string) []string {
	t.Helper()
	qs := make([]mealy.Word, len(words))
	for k, w := range words {
		qs[k] = p.in.MustWord(strings.Fields(w)...)
	}
	ans, err := p.top.Ask(context.Background(), qs)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(ans))
	for k, a := range ans {
		out[k] = p.out.Format(a.Outputs)
	}
	return out
}

func TestCacheAnswersPrefixesAndRunsOnlyMaximalWords(t *testing.T) {
	p := newPipeline(t, nil)
	got := p.ask(t, "start", "start wait", "start wait cancel", "cancel wait")
	want := []string{"ok", "ok fired", "ok fired ok", "ok quiet"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("answers %q, want %q", got, want)
	}
	if want := []string{"start wait cancel", "cancel wait"}; !reflect.DeepEqual(p.exec.ran, want) {
		t.Fatalf("executed %q, want %q", p.exec.ran, want)
	}
	// Everything is known now: prefixes hit the cache.
	p.ask(t, "start wait", "cancel")
	l, _ := p.stats.Snapshot()
	if l.Asked != 6 || l.CacheHits != 2 || l.Executed != 2 || l.Symbols != 5 {
		t.Fatalf("stats %+v", l)
	}
}

func TestCacheErrIsPrefixClosed(t *testing.T) {
	p := newPipeline(t, nil)
	if got := p.ask(t, "start start"); got[0] != "ok err" {
		t.Fatalf("got %q", got)
	}
	got := p.ask(t, "start start wait cancel", "start start start")
	if !reflect.DeepEqual(got, []string{"ok err err err", "ok err err"}) {
		t.Fatalf("got %q", got)
	}
	if len(p.exec.ran) != 1 {
		t.Fatalf("extensions of an err prefix ran on the device: %q", p.exec.ran)
	}
	a, _ := p.cache.Lookup(p.in.MustWord("start", "start", "wait"))
	if a.ErrAt != 1 || a.Err == nil || a.Err.Kind != model.ErrThrown || a.Err.Detail != "IllegalStateException" {
		t.Fatalf("err info lost: %+v %+v", a, a.Err)
	}
}

func TestCacheQuietChains(t *testing.T) {
	p := newPipeline(t, nil)
	p.ask(t, "cancel wait start")
	// A wait right after a quiet answers quiet, and the rest of the word
	// behaves as if that wait were not there.
	got := p.ask(t, "cancel wait wait", "cancel wait wait wait start")
	if !reflect.DeepEqual(got, []string{"ok quiet quiet", "ok quiet quiet quiet ok"}) {
		t.Fatalf("got %q", got)
	}
	if len(p.exec.ran) != 1 {
		t.Fatalf("quiet chains ran on the device: %q", p.exec.ran)
	}
}

func TestCacheReportsNonDeterminism(t *testing.T) {
	p := newPipeline(t, nil)
	p.exec.flipped = true
	p.ask(t, "start wait")
	_, err := p.top.Ask(context.Background(), []mealy.Word{p.in.MustWord("start", "wait", "cancel")})
	var nd *NondeterminismError
	if !errors.As(err, &nd) {
		t.Fatalf("want a NondeterminismError, got %v", err)
	}
	if want := "non-deterministic answer to start wait on fake-0: earlier ok fired, now ok quiet"; err.Error() != want {
		t.Fatalf("error %q, want %q", err, want)
	}
}

// Two devices that answer the same prefix differently are reported like
// non-determinism, naming both devices.
func TestCacheReportsDevicesThatDisagree(t *testing.T) {
	in, out, _ := mealy.ClosureAlphabets([]string{"start", "cancel"}, []string{"onFire"})
	sem := ClosureSemantics(in, out)
	stats := &Stats{}
	good := &timerExec{serial: "emulator-5554"}
	odd := &timerExec{serial: "emulator-5556", flipped: true, runs: 1}
	cache := NewCache(nil, in, out, sem, stats)
	cache.Next = &Scheduler{Executors: []backend.Executor{good}, Inputs: in, Outputs: out, Sem: sem, Stats: stats}
	if _, err := cache.Ask(context.Background(), []mealy.Word{in.MustWord("start", "wait")}); err != nil {
		t.Fatal(err)
	}
	cache.Next = &Scheduler{Executors: []backend.Executor{odd}, Inputs: in, Outputs: out, Sem: sem, Stats: stats}
	_, err := cache.Ask(context.Background(), []mealy.Word{in.MustWord("start", "wait", "cancel")})
	var nd *NondeterminismError
	if !errors.As(err, &nd) {
		t.Fatalf("want a NondeterminismError, got %v", err)
	}
	want := "devices disagree on start wait: emulator-5554 answered ok onFire, emulator-5556 answered ok quiet (all devices must run the same Android build and behave alike)"
	if err.Error() != want {
		t.Fatalf("error %q, want %q", err, want)
	}
}

func TestFilterExcludesWithoutRunning(t *testing.T) {
	cases := []struct {
		name  string
		rule  purpose.Restriction
		query string
		want  string
		ran   []string
	}{
		{"at most", purpose.Restriction{Kind: purpose.AtMost, Count: 1, Symbols: []string{"cancel"}},
			"cancel wait cancel wait", "ok quiet err err", []string{"cancel wait"}},
		{"first", purpose.Restriction{Kind: purpose.First, Symbols: []string{"start"}},
			"cancel start", "err err", nil},
		{"followed by wait", purpose.Restriction{Kind: purpose.FollowedByWait, Symbols: []string{"start"}},
			"start cancel", "ok err", []string{"start"}},
		{"followed by wait, ends with it", purpose.Restriction{Kind: purpose.FollowedByWait, Symbols: []string{"start"}},
			"cancel start", "ok ok", []string{"cancel start"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := newPipeline(t, []purpose.Restriction{c.rule})
			if got := p.ask(t, c.query); got[0] != c.want {
				t.Fatalf("got %q, want %q", got[0], c.want)
			}
			if !reflect.DeepEqual(p.exec.ran, c.ran) {
				t.Fatalf("ran %q, want %q", p.exec.ran, c.ran)
			}
			l, _ := p.stats.Snapshot()
			excluded := 0
			if strings.Contains(c.want, "err") {
				excluded = 1
			}
			if l.Excluded != excluded {
				t.Fatalf("excluded %d, want %d", l.Excluded, excluded)
			}
		})
	}
}

func TestFilterMarksErrAsExcluded(t *testing.T) {
	p := newPipeline(t, []purpose.Restriction{{Kind: purpose.AtMost, Count: 0, Symbols: []string{"cancel"}}})
	ans, err := p.top.Ask(context.Background(), []mealy.Word{p.in.MustWord("start", "cancel", "wait")})
	if err != nil {
		t.Fatal(err)
	}
	if a := ans[0]; a.ErrAt != 1 || a.Err.Kind != model.ErrExcluded || a.Err.Detail != "at most 0 of [cancel]" {
		t.Fatalf("got %+v %+v", a, a.Err)
	}
}

func TestSchedulerRejectsUndeclaredCallbacks(t *testing.T) {
	in := mealy.MustAlphabet("start", "wait")
	out := mealy.MustAlphabet("ok", "quiet", "err")
	s := &Scheduler{Executors: []backend.Executor{&timerExec{serial: "fake-0"}}, Inputs: in, Outputs: out,
		Sem: ClosureSemantics(in, out), Stats: &Stats{},
		Map: func(string) (string, bool, bool) { return "", false, false }}
	_, err := s.Ask(context.Background(), []mealy.Word{in.MustWord("start", "wait")})
	want := `fake-0: query start wait: backend reported callback "onFire", which the purpose does not declare`
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}
}

func TestSchedulerErrorCallbackAnswersErr(t *testing.T) {
	in := mealy.MustAlphabet("start", "cancel", "wait")
	out := mealy.MustAlphabet("ok", "quiet", "err")
	s := &Scheduler{Executors: []backend.Executor{&timerExec{serial: "fake-0"}}, Inputs: in, Outputs: out,
		Sem: ClosureSemantics(in, out), Stats: &Stats{},
		Map: func(n string) (string, bool, bool) { return "failed", n == "onFire", n == "onFire" }}
	ans, err := s.Ask(context.Background(), []mealy.Word{in.MustWord("start", "wait", "cancel")})
	if err != nil {
		t.Fatal(err)
	}
	a := ans[0]
	if got := out.Format(a.Outputs); got != "ok err err" || a.ErrAt != 1 || a.Err.Kind != model.ErrErrorCallback || a.Err.Detail != "onFire" {
		t.Fatalf("got %s %+v %+v", got, a, a.Err)
	}
}

func TestSchedulerSpreadsOverExecutors(t *testing.T) {
	in, out, _ := mealy.ClosureAlphabets([]string{"start", "cancel"}, []string{"onFire"})
	execs := []*timerExec{{serial: "a"}, {serial: "b"}, {serial: "c"}}
	var bs []backend.Executor
	for _, e := range execs {
		bs = append(bs, e)
	}
	stats := &Stats{}
	s := &Scheduler{Executors: bs, Inputs: in, Outputs: out, Sem: ClosureSemantics(in, out), Stats: stats}
	var qs []mealy.Word
	for k := 0; k < 30; k++ {
		w := mealy.Word{}
		for j := 0; j <= k%4; j++ {
			w = w.Concat(k % 3)
		}
		qs = append(qs, w)
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
		want, _ := (&timerExec{}).Execute(context.Background(), in.Strings(q))
		got := out.Strings(ans[k].Outputs)[:len(want.Outputs)]
		if fmt.Sprint(got) != fmt.Sprint(want.Outputs) {
			t.Fatalf("query %d answered %v, want %v", k, got, want.Outputs)
		}
	}
	if l, _ := stats.Snapshot(); l.Executed != 30 {
		t.Fatalf("executed %d", l.Executed)
	}
}
