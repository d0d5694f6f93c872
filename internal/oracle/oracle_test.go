package oracle_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/droidstar/droidstar/internal/backend"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/oracle"
	"github.com/droidstar/droidstar/internal/oracle/cache"
	"github.com/droidstar/droidstar/internal/oracle/dispatch"
	"github.com/droidstar/droidstar/internal/oracle/mapper"
	"github.com/droidstar/droidstar/internal/oracle/restrict"
	"github.com/droidstar/droidstar/internal/query"
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

func (e *timerExec) Execute(_ context.Context, in []string) (query.Result, error) {
	e.mu.Lock()
	e.ran = append(e.ran, strings.Join(in, " "))
	e.runs++
	n := e.runs
	e.mu.Unlock()
	var res query.Result
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

// pipeline is the usual chain of stages over one timerExec:
// Counter → Filter → Cache → Scheduler → mapper → timerExec.
type pipeline struct {
	in, out *mealy.Alphabet
	exec    *timerExec
	rec     *oracle.Recorder
	cache   *cache.Cache
	top     oracle.Oracle
}

func newPipeline(t *testing.T, rules ...restrict.Rule) *pipeline {
	t.Helper()
	in, out, err := mealy.ClosureAlphabets([]string{"start", "cancel"}, []string{"fired"})
	if err != nil {
		t.Fatal(err)
	}
	p := &pipeline{in: in, out: out, exec: &timerExec{serial: "fake-0"}, rec: &oracle.Recorder{}}
	sem := mealy.ClosureSemantics(in, out)
	mapping := func(name string) (string, mapper.Kind, bool) {
		if name == "onFire" {
			return "fired", mapper.Output, true
		}
		return "", mapper.Output, false
	}
	sched := &dispatch.Scheduler{Executors: []backend.Executor{&mapper.Executor{Next: p.exec, Map: mapping}},
		Inputs: in, Outputs: out, Sem: sem, Recorder: p.rec}
	p.cache = cache.New(sched, in, out, sem, p.rec)
	automaton, err := restrict.Compile(in, sem, rules)
	if err != nil {
		t.Fatal(err)
	}
	filter := &restrict.Filter{Next: p.cache, Rules: automaton, Sem: sem, Recorder: p.rec}
	p.top = &oracle.Counter{Next: filter, Phase: oracle.PhaseLearning, Recorder: p.rec}
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
	p := newPipeline(t)
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
	l, _ := p.rec.Snapshot()
	if l.Asked != 6 || l.CacheHits != 2 || l.Executed != 2 || l.Symbols != 5 {
		t.Fatalf("stats %+v", l)
	}
}

func TestCacheErrIsPrefixClosed(t *testing.T) {
	p := newPipeline(t)
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
	p := newPipeline(t)
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

// timerHypothesis predicts the timer's outputs; with fires false it
// wrongly predicts that start's callback never comes.
func timerHypothesis(p *pipeline, fires bool) func(mealy.Word) mealy.Word {
	return func(w mealy.Word) mealy.Word {
		var outs []string
		started, pending, quiet, failed := false, false, false, false
		for _, in := range w {
			switch s := p.in.Name(in); {
			case failed:
				outs = append(outs, "err")
			case s == "start" && started:
				failed = true
				outs = append(outs, "err")
			case s == "start":
				started, pending, quiet = true, fires, false
				outs = append(outs, "ok")
			case s == "cancel":
				pending, quiet = false, false
				outs = append(outs, "ok")
			case pending && !quiet:
				pending = false
				outs = append(outs, "fired")
			default:
				quiet = true
				outs = append(outs, "quiet")
			}
		}
		return p.out.MustWord(outs...)
	}
}

// askExpecting asks words under the expectation predict.
func (p *pipeline) askExpecting(t *testing.T, predict func(mealy.Word) mealy.Word, words ...string) []string {
	t.Helper()
	ctx := oracle.WithExpectation(context.Background(), oracle.Expectation{Outputs: predict})
	qs := make([]mealy.Word, len(words))
	for k, w := range words {
		qs[k] = p.in.MustWord(strings.Fields(w)...)
	}
	ans, err := p.top.Ask(ctx, qs)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(ans))
	for k, a := range ans {
		out[k] = p.out.Format(a.Outputs)
	}
	return out
}

func TestCacheRunsOnlyWhatTheClosureDoesNotForce(t *testing.T) {
	tests := []struct {
		name    string
		known   []string // asked first, with no expectation
		predict string   // "": none, "right" or "wrong" (start never fires)
		ask     []string
		want    []string
		ran     []string // after known's
	}{
		{
			// The tree knows cancel·wait is quiet: the second wait of
			// the first word runs nothing, so one query answers both.
			name:  "known quiet",
			known: []string{"cancel wait"},
			ask:   []string{"cancel wait wait start wait", "cancel wait start wait"},
			want:  []string{"ok quiet quiet ok fired", "ok quiet ok fired"},
			ran:   []string{"cancel wait start wait"},
		},
		{
			// Nothing known, the hypothesis predicts the quiet: the
			// word without the forced wait runs once for both.
			name:    "predicted quiet",
			predict: "right",
			ask:     []string{"cancel wait wait start wait", "cancel wait start wait"},
			want:    []string{"ok quiet quiet ok fired", "ok quiet ok fired"},
			ran:     []string{"cancel wait start wait"},
		},
		{
			// A predicted err: nothing after it runs.
			name:    "predicted err",
			predict: "right",
			ask:     []string{"start start wait cancel", "start start cancel"},
			want:    []string{"ok err err err", "ok err err"},
			ran:     []string{"start start"},
		},
		{
			// With no expectation an unknown quiet is not assumed, but
			// the two words leave the tree by one edge: the first runs
			// alone (see TestCacheStagesWordsByTheEdgeTheyLeaveBy), and
			// the quiet it finds makes the second's wait forced.
			name: "unknown",
			ask:  []string{"cancel wait wait start wait", "cancel wait start wait"},
			want: []string{"ok quiet quiet ok fired", "ok quiet ok fired"},
			ran:  []string{"cancel wait wait start wait"},
		},
		{
			// A wrong prediction (start·wait quiet, where it fires) costs
			// a second round for the word it shortened, never a wrong
			// answer.
			name:    "wrong prediction",
			predict: "wrong",
			ask:     []string{"start wait wait cancel"},
			want:    []string{"ok fired quiet ok"},
			ran:     []string{"start wait cancel", "start wait wait cancel"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPipeline(t)
			if len(tc.known) > 0 {
				p.ask(t, tc.known...)
			}
			before := len(p.exec.ran)
			var got []string
			if tc.predict != "" {
				got = p.askExpecting(t, timerHypothesis(p, tc.predict == "right"), tc.ask...)
			} else {
				got = p.ask(t, tc.ask...)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("answers %q, want %q", got, tc.want)
			}
			if ran := p.exec.ran[before:]; !reflect.DeepEqual(ran, tc.ran) {
				t.Fatalf("executed %q, want %q", ran, tc.ran)
			}
		})
	}
}

// batchCounter counts the batches the cache sends down.
type batchCounter struct {
	next    oracle.Oracle
	batches []int
}

func (b *batchCounter) Ask(ctx context.Context, qs []mealy.Word) ([]oracle.Answer, error) {
	b.batches = append(b.batches, len(qs))
	return b.next.Ask(ctx, qs)
}

// In the learning phase the cache runs one word per edge by which the
// round's words leave the tree, and the rest in later rounds once the
// first's answer is in: an err or a quiet there often answers them.
func TestCacheStagesWordsByTheEdgeTheyLeaveBy(t *testing.T) {
	tests := []struct {
		name     string
		phase    oracle.Phase
		parallel int
		ask      []string
		want     []string
		ran      []string
		batches  []int
	}{
		{
			name: "an err ends the rest",
			ask:  []string{"start start wait", "start start cancel"},
			want: []string{"ok err err", "ok err err"},
			ran:  []string{"start start wait"}, batches: []int{1},
		},
		{
			name: "other edges run together",
			ask:  []string{"start wait", "cancel wait"},
			want: []string{"ok fired", "ok quiet"},
			ran:  []string{"start wait", "cancel wait"}, batches: []int{2},
		},
		{
			name: "a second round when the first does not answer",
			ask:  []string{"start wait cancel", "start cancel"},
			want: []string{"ok fired ok", "ok ok"},
			ran:  []string{"start wait cancel", "start cancel"}, batches: []int{1, 1},
		},
		{
			name: "several lanes run the batch whole", parallel: 2,
			ask:  []string{"start start wait", "start start cancel"},
			want: []string{"ok err err", "ok err err"},
			ran:  []string{"start start wait", "start start cancel"}, batches: []int{2},
		},
		{
			name: "a check's round is not staged", phase: oracle.PhaseEquivalence,
			ask:  []string{"start start wait", "start start cancel"},
			want: []string{"ok err err", "ok err err"},
			ran:  []string{"start start wait", "start start cancel"}, batches: []int{2},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPipeline(t)
			p.cache.Parallel = tc.parallel
			counter := &batchCounter{next: p.cache.Next}
			p.cache.Next = counter
			p.top.(*oracle.Counter).Phase = tc.phase
			if got := p.ask(t, tc.ask...); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("answers %q, want %q", got, tc.want)
			}
			if !reflect.DeepEqual(p.exec.ran, tc.ran) {
				t.Fatalf("executed %q, want %q", p.exec.ran, tc.ran)
			}
			if !reflect.DeepEqual(counter.batches, tc.batches) {
				t.Fatalf("batches of %v words, want %v", counter.batches, tc.batches)
			}
		})
	}
}

func TestCacheReportsNonDeterminism(t *testing.T) {
	p := newPipeline(t)
	p.exec.flipped = true
	p.ask(t, "start wait")
	_, err := p.top.Ask(context.Background(), []mealy.Word{p.in.MustWord("start", "wait", "cancel")})
	var nd *oracle.NondeterminismError
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
	sem := mealy.ClosureSemantics(in, out)
	rec := &oracle.Recorder{}
	good := &timerExec{serial: "emulator-5554"}
	odd := &timerExec{serial: "emulator-5556", flipped: true, runs: 1}
	cache := cache.New(nil, in, out, sem, rec)
	cache.Next = &dispatch.Scheduler{Executors: []backend.Executor{good}, Inputs: in, Outputs: out, Sem: sem, Recorder: rec}
	if _, err := cache.Ask(context.Background(), []mealy.Word{in.MustWord("start", "wait")}); err != nil {
		t.Fatal(err)
	}
	cache.Next = &dispatch.Scheduler{Executors: []backend.Executor{odd}, Inputs: in, Outputs: out, Sem: sem, Recorder: rec}
	_, err := cache.Ask(context.Background(), []mealy.Word{in.MustWord("start", "wait", "cancel")})
	var nd *oracle.NondeterminismError
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
		rule  restrict.Rule
		query string
		want  string
		ran   []string
	}{
		{"at most", restrict.Rule{Kind: restrict.AtMost, Count: 1, Symbols: []string{"cancel"}},
			"cancel wait cancel wait", "ok quiet err err", []string{"cancel wait"}},
		{"first", restrict.Rule{Kind: restrict.First, Symbols: []string{"start"}},
			"cancel start", "err err", nil},
		{"followed by wait", restrict.Rule{Kind: restrict.FollowedByWait, Symbols: []string{"start"}},
			"start cancel", "ok err", []string{"start"}},
		{"followed by wait, ends with it", restrict.Rule{Kind: restrict.FollowedByWait, Symbols: []string{"start"}},
			"cancel start", "ok ok", []string{"cancel start"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := newPipeline(t, c.rule)
			if got := p.ask(t, c.query); got[0] != c.want {
				t.Fatalf("got %q, want %q", got[0], c.want)
			}
			if !reflect.DeepEqual(p.exec.ran, c.ran) {
				t.Fatalf("ran %q, want %q", p.exec.ran, c.ran)
			}
			l, _ := p.rec.Snapshot()
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
	p := newPipeline(t, restrict.Rule{Kind: restrict.AtMost, Count: 0, Symbols: []string{"cancel"}, Text: "at most 0 of [cancel]"})
	ans, err := p.top.Ask(context.Background(), []mealy.Word{p.in.MustWord("start", "cancel", "wait")})
	if err != nil {
		t.Fatal(err)
	}
	if a := ans[0]; a.ErrAt != 1 || a.Err.Kind != model.ErrExcluded || a.Err.Detail != "at most 0 of [cancel]" {
		t.Fatalf("got %+v %+v", a, a.Err)
	}
}

// Why an err transition is err travels down the chain the queries took:
// the filter knows exclusions, the cache what the device said, and a word
// whose err comes earlier than its last symbol has no explanation.
func TestExplainTravelsDownTheChain(t *testing.T) {
	p := newPipeline(t, restrict.Rule{Kind: restrict.AtMost, Count: 1, Symbols: []string{"cancel"}, Text: "at most 1 of [cancel]"})
	p.ask(t, "start start", "cancel cancel")
	cases := []struct {
		word string
		want *model.ErrInfo
	}{
		{"start start", &model.ErrInfo{Kind: model.ErrThrown, Detail: "IllegalStateException"}},
		{"cancel cancel", &model.ErrInfo{Kind: model.ErrExcluded, Detail: "at most 1 of [cancel]"}},
		{"start start wait", nil},    // the err is earlier
		{"cancel cancel start", nil}, // excluded earlier
		{"start wait", nil},          // no err at all
		{"cancel wait start", nil},   // never asked
	}
	for _, c := range cases {
		got, ok := oracle.Explain(p.top, p.in.MustWord(strings.Fields(c.word)...))
		if ok != (c.want != nil) || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: explained %+v (%v), want %+v", c.word, got, ok, c.want)
		}
	}
}

// Each top counter counts its own asker's queries, and every stage below
// counts them in that asker's phase.
func TestCountersSplitThePhases(t *testing.T) {
	p := newPipeline(t)
	eq := &oracle.Counter{Next: p.top.(*oracle.Counter).Next, Phase: oracle.PhaseEquivalence, Recorder: p.rec}
	p.ask(t, "start wait", "start")
	if _, err := eq.Ask(context.Background(), []mealy.Word{p.in.MustWord("start"), p.in.MustWord("cancel", "wait")}); err != nil {
		t.Fatal(err)
	}
	if cur := p.rec.Current(); cur != oracle.PhaseEquivalence {
		t.Errorf("current phase %v", cur)
	}
	l, e := p.rec.Snapshot()
	want := model.PhaseStats{Asked: 2, Executed: 1, Symbols: 2, DeviceSecs: 0.01}
	if l != want {
		t.Errorf("learning %+v, want %+v", l, want)
	}
	want = model.PhaseStats{Asked: 2, Executed: 1, CacheHits: 1, Symbols: 2, DeviceSecs: 0.5}
	if e != want {
		t.Errorf("equivalence %+v, want %+v", e, want)
	}
	if d := p.rec.Devices(); len(d) != 1 || d[0].Serial != "fake-0" || d[0].Executed != 2 || d[0].Busy {
		t.Errorf("devices %+v", d)
	}
}

// failing answers the first query of every batch and fails the rest, as
// a scheduler whose device went away part-way does.
type failing struct {
	in, out *mealy.Alphabet
}

func (f failing) Ask(_ context.Context, qs []mealy.Word) ([]oracle.Answer, error) {
	pe := &oracle.PartialError{Answers: make([]oracle.Answer, len(qs)), Answered: make([]bool, len(qs)), Err: errors.New("gone")}
	ok, _ := f.out.Index("ok")
	pe.Answers[0] = oracle.Answer{Outputs: slices.Repeat(mealy.Word{ok}, len(qs[0])), ErrAt: -1, Device: "d"}
	pe.Answered[0] = true
	return nil, pe
}

// TestCacheKeepsPartialAnswers: what a failed batch did answer stays in
// the cache, so nothing a device ran is lost.
func TestCacheKeepsPartialAnswers(t *testing.T) {
	in, out, _ := mealy.ClosureAlphabets([]string{"start", "cancel"}, []string{"fired"})
	c := cache.New(failing{in, out}, in, out, mealy.ClosureSemantics(in, out), &oracle.Recorder{})
	_, err := c.Ask(context.Background(), []mealy.Word{in.MustWord("start", "cancel"), in.MustWord("cancel")})
	if err == nil || err.Error() != "gone" {
		t.Fatalf("error %v, want gone", err)
	}
	if a, ok := c.Lookup(in.MustWord("start", "cancel")); !ok || out.Format(a.Outputs) != "ok ok" {
		t.Errorf("the answered query: %+v %v", a, ok)
	}
	if _, ok := c.Lookup(in.MustWord("cancel")); ok {
		t.Error("the unanswered query is in the cache")
	}
}

// wrongOnce is a device that answers quiet for the fired callback on its
// wrongAt-th run only.
type wrongOnce struct {
	*timerExec
	wrongAt int
}

func (e *wrongOnce) Execute(ctx context.Context, in []string) (query.Result, error) {
	res, err := e.timerExec.Execute(ctx, in)
	e.mu.Lock()
	n := e.runs
	e.mu.Unlock()
	if n == e.wrongAt {
		for k, o := range res.Outputs {
			if o == "onFire" {
				res.Outputs[k] = "quiet"
			}
		}
	}
	return res, err
}

// batched runs a device's batches one query at a time. Batch executors
// get a batch of one on the first executor, so an unsteered re-run would
// always go to the good device.
type batched struct{ backend.Executor }

func (b batched) ExecuteBatch(ctx context.Context, qs [][]string) ([]query.Result, error) {
	var out []query.Result
	for _, q := range qs {
		r, err := b.Execute(ctx, q)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// A vote hears again from the devices that gave the two answers: one
// device that erred once is outvoted, two devices that each repeat their
// own answer are reported as devices that disagree.
func TestVoteToldFlakyDeviceFromDisagreeingDevices(t *testing.T) {
	in, out, _ := mealy.ClosureAlphabets([]string{"start", "cancel"}, []string{"onFire"})
	sem := mealy.ClosureSemantics(in, out)
	for _, tc := range []struct {
		name string
		odd  backend.Executor
		want string // the error, "" when the vote settles
	}{
		{name: "one flaky device", odd: &wrongOnce{timerExec: &timerExec{serial: "emulator-5556"}, wrongAt: 1}},
		{name: "devices that disagree", odd: &timerExec{serial: "emulator-5556", flipped: true, runs: 1},
			want: "devices disagree on start wait: emulator-5554 answered ok onFire, emulator-5556 answered ok quiet (all devices must run the same Android build and behave alike)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &oracle.Recorder{}
			good := &timerExec{serial: "emulator-5554"}
			sched := &dispatch.Scheduler{Executors: []backend.Executor{batched{good}, batched{tc.odd}}, Inputs: in, Outputs: out, Sem: sem, Recorder: rec}
			cache := cache.New(sched, in, out, sem, rec)
			cache.Repeat = 3
			ctx := context.Background()
			// A batch of one goes to the first device, of two one each
			// (the longer to the first).
			if _, err := cache.Ask(ctx, []mealy.Word{in.MustWord("start", "wait")}); err != nil {
				t.Fatal(err)
			}
			_, err := cache.Ask(ctx, []mealy.Word{in.MustWord("start", "wait", "cancel", "start"), in.MustWord("start", "wait", "start")})
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("vote did not settle: %v", err)
			case tc.want != "" && (err == nil || err.Error() != tc.want):
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if tc.want != "" {
				return
			}
			_, _, votes := rec.Determinism()
			if len(votes) != 1 || votes[0].Answers[0].Votes != 4 || !slices.Equal(votes[0].Answers[0].Outputs, []string{"ok", "onFire"}) {
				t.Fatalf("votes %+v", votes)
			}
		})
	}
}

// cutting is failing with the scheduler's cut-off: the first query of the
// batch answered (each output the given one), the rest not started.
type cutting struct {
	out    *mealy.Alphabet
	answer string
}

func (f cutting) Ask(_ context.Context, qs []mealy.Word) ([]oracle.Answer, error) {
	pe := &oracle.PartialError{Answers: make([]oracle.Answer, len(qs)), Answered: make([]bool, len(qs)), Err: oracle.ErrCutOff}
	o, _ := f.out.Index(f.answer)
	pe.Answers[0] = oracle.Answer{Outputs: slices.Repeat(mealy.Word{o}, len(qs[0])), ErrAt: -1, Device: "d"}
	pe.Answered[0] = true
	return nil, pe
}

// A cut-off batch's answers go into the cache as any others and the
// cut-off reaches the asker; an answer that contradicts the cache is the
// contradiction, not a cut-off (with no re-runs allowed, an error).
func TestCacheKeepsCutOffAnswers(t *testing.T) {
	in, out, _ := mealy.ClosureAlphabets([]string{"start", "cancel"}, []string{"fired"})
	c := cache.New(cutting{out, "ok"}, in, out, mealy.ClosureSemantics(in, out), &oracle.Recorder{})
	_, err := c.Ask(context.Background(), []mealy.Word{in.MustWord("start", "cancel"), in.MustWord("cancel")})
	if !errors.Is(err, oracle.ErrCutOff) {
		t.Fatalf("error %v, want the cut-off", err)
	}
	if a, ok := c.Lookup(in.MustWord("start", "cancel")); !ok || out.Format(a.Outputs) != "ok ok" {
		t.Errorf("the answered query: %+v %v", a, ok)
	}
	if _, ok := c.Lookup(in.MustWord("cancel")); ok {
		t.Error("the unanswered query is in the cache")
	}

	// start cancel answered ok ok above; now the device says fired fired.
	c.Next = cutting{out, "fired"}
	_, err = c.Ask(context.Background(), []mealy.Word{in.MustWord("start", "cancel", "cancel")})
	var nd *oracle.NondeterminismError
	if !errors.As(err, &nd) || errors.Is(err, oracle.ErrCutOff) {
		t.Fatalf("error %v, want the contradiction alone", err)
	}
}

// A re-run checks an answer whatever the hypothesis predicts: it carries
// no expectation to cut it off.
func TestRerunDropsTheExpectation(t *testing.T) {
	ctx := oracle.WithExpectation(context.Background(), oracle.Expectation{Outputs: func(w mealy.Word) mealy.Word { return w }, CutOff: true})
	if _, ok := oracle.ExpectationOf(ctx); !ok {
		t.Fatal("no expectation")
	}
	if e, ok := oracle.ExpectationOf(oracle.AsRerun(ctx)); ok {
		t.Errorf("a re-run carries %+v", e)
	}
}
