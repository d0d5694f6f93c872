package pad_test

import (
	"context"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/mealy/mealytest"
	"github.com/droidstar/droidstar/internal/oracle"
	"github.com/droidstar/droidstar/internal/oracle/cache"
	"github.com/droidstar/droidstar/internal/oracle/oracletest"
	"github.com/droidstar/droidstar/internal/oracle/pad"
	"github.com/droidstar/droidstar/internal/oracle/restrict"
)

// target is a machine with the restrictions its purpose would have.
type target struct {
	name  string
	m     *mealy.Machine
	rules []restrict.Rule
}

// asyncTask: exec runs the task once (a second exec throws), cancel
// before it finishes cancels it; no restrictions, so padding meets errs.
func asyncTask(t *testing.T) target {
	in, out, err := mealy.ClosureAlphabets([]string{"exec", "cancel"}, []string{"done", "cancelled"})
	if err != nil {
		t.Fatal(err)
	}
	const exec, cancel, wait = 0, 1, 2
	const ok, quiet, errO, done, cancelled = 0, 1, 2, 3, 4
	m := mealy.NewMachine(in, out, 5)
	for q := 0; q < 5; q++ {
		m.SetTransition(q, exec, errO, 4)
		m.SetTransition(q, cancel, ok, q)
		m.SetTransition(q, wait, quiet, q)
	}
	for i := 0; i < 3; i++ {
		m.SetTransition(4, i, errO, 4)
	}
	m.SetTransition(0, exec, ok, 1)
	m.SetTransition(1, wait, done, 2)
	m.SetTransition(1, cancel, ok, 3)
	m.SetTransition(3, wait, cancelled, 2)
	return target{name: "asynctask", m: m}
}

// timer: at most one start, and a word starts with start or cancel.
func timer(t *testing.T) target {
	in, out, err := mealy.ClosureAlphabets([]string{"start", "cancel"}, []string{"fired"})
	if err != nil {
		t.Fatal(err)
	}
	const start, cancel, wait = 0, 1, 2
	const ok, quiet, fired = 0, 1, 3
	m := mealy.NewMachine(in, out, 3)
	for q := 0; q < 3; q++ {
		m.SetTransition(q, start, ok, 1)
		m.SetTransition(q, cancel, ok, 2)
		m.SetTransition(q, wait, quiet, q)
	}
	m.SetTransition(1, wait, fired, 2)
	return target{name: "timer", m: m, rules: []restrict.Rule{
		{Kind: restrict.AtMost, Count: 1, Symbols: []string{"start"}, Text: "at most 1 of [start]"},
		{Kind: restrict.First, Symbols: []string{"start", "cancel"}, Text: "first one of [start cancel]"},
	}}
}

// serverSocket: every callin followed by its wait.
func serverSocket(t *testing.T) target {
	m, _ := mealytest.ServerSocket()
	return target{name: "serversocket", m: m, rules: []restrict.Rule{
		{Kind: restrict.FollowedByWait, Symbols: []string{"bind", "accept", "close"}, Text: "wait after bind, accept, close"},
	}}
}

// stack is Counter → Filter → [pad.Stage] → Cache → oracletest.Machine.
type stack struct {
	rules *restrict.Automaton
	dev   *oracletest.Machine
	rec   *oracle.Recorder
	cache *cache.Cache
	learn oracle.Oracle
	eq    oracle.Oracle
}

func newStack(t *testing.T, tg target, size pad.Sizes) *stack {
	t.Helper()
	m := tg.m
	sem := mealy.ClosureSemantics(m.Inputs, m.Outputs)
	s := &stack{dev: &oracletest.Machine{M: m, Sem: sem, Device: "machine", Log: true}, rec: &oracle.Recorder{}}
	rules, err := restrict.Compile(m.Inputs, sem, tg.rules)
	if err != nil {
		t.Fatal(err)
	}
	s.rules = rules
	s.cache = cache.New(s.dev, m.Inputs, m.Outputs, sem, s.rec)
	var below oracle.Oracle = s.cache
	if size.Any() {
		below = &pad.Stage{Next: s.cache, Known: s.cache, Rules: rules, Size: size, Sem: sem, Inputs: m.Inputs.Size(), Recorder: s.rec}
	}
	filter := &restrict.Filter{Next: below, Rules: rules, Sem: sem, Recorder: s.rec}
	s.learn = &oracle.Counter{Next: filter, Phase: oracle.PhaseLearning, Recorder: s.rec}
	s.eq = &oracle.Counter{Next: filter, Phase: oracle.PhaseEquivalence, Recorder: s.rec}
	return s
}

// allWords are the words over in up to length n, shortest first.
func allWords(size, n int) []mealy.Word {
	out := []mealy.Word{{}}
	level := []mealy.Word{{}}
	for range n {
		var next []mealy.Word
		for _, w := range level {
			for i := 0; i < size; i++ {
				next = append(next, w.Concat(i))
			}
		}
		out = append(out, next...)
		level = next
	}
	return out
}

// Padding never changes an answer: every word up to length 4, asked in
// shuffled batches by the learner or by a bound check, answers exactly as
// without the stage (outputs, err position and what the err says), and
// every word the device ran is one the restrictions allow.
func TestPaddingNeverChangesAnAnswer(t *testing.T) {
	for _, mk := range []func(*testing.T) target{asyncTask, timer, serverSocket} {
		tg := mk(t)
		for _, c := range []struct {
			n     int
			check bool
		}{{1, false}, {3, false}, {5, false}, {1, true}, {2, true}} {
			n, size, phase := c.n, pad.Sizes{Learning: c.n}, "learning"
			if c.check {
				size, phase = pad.Sizes{Check: c.n}, "check"
			}
			padded, plain := newStack(t, tg, size), newStack(t, tg, pad.Sizes{})
			ask := func(s *stack) oracle.Oracle {
				if c.check {
					return s.eq
				}
				return s.learn
			}
			words := allWords(tg.m.Inputs.Size(), 4)
			r := rand.New(rand.NewPCG(1, uint64(n)))
			r.Shuffle(len(words), func(a, b int) { words[a], words[b] = words[b], words[a] })
			for start := 0; start < len(words); start += 7 {
				batch := words[start:min(start+7, len(words))]
				got, err := ask(padded).Ask(context.Background(), batch)
				if err != nil {
					t.Fatal(err)
				}
				want, err := ask(plain).Ask(context.Background(), batch)
				if err != nil {
					t.Fatal(err)
				}
				for k, q := range batch {
					g, w := got[k], want[k]
					g.Device, w.Device = "", ""
					if !reflect.DeepEqual(g, w) {
						t.Fatalf("%s, %s pad %d: %s answered %s (err at %d: %v), without padding %s (err at %d: %v)", tg.name, phase, n,
							tg.m.Inputs.Format(q), tg.m.Outputs.Format(g.Outputs), g.ErrAt, g.Err, tg.m.Outputs.Format(w.Outputs), w.ErrAt, w.Err)
					}
				}
			}
			longest := 0
			for _, w := range padded.dev.Sent {
				if at, why := padded.rules.FirstViolation(w); at >= 0 {
					t.Errorf("%s, %s pad %d: ran %s, which breaks %q at %d", tg.name, phase, n, tg.m.Inputs.Format(w), why, at)
				}
				longest = max(longest, len(w))
			}
			learning, check := padded.rec.Snapshot()
			if c.check {
				learning, check = check, learning
			}
			if learning.Padded == 0 || longest <= 4 || check.Padded != 0 {
				t.Errorf("%s, %s pad %d: padded %d symbols (%d in the other phase), longest word run %d: nothing was padded", tg.name, phase, n, learning.Padded, check.Padded, longest)
			}
			if len(padded.dev.Sent) >= len(plain.dev.Sent) {
				t.Errorf("%s, %s pad %d: ran %d words, %d without padding", tg.name, phase, n, len(padded.dev.Sent), len(plain.dev.Sent))
			}
		}
	}
}

// The words the stage sends down for one batch on an empty cache: the
// first input the rules allow, N free symbols, a forced wait free.
func TestPaddedWords(t *testing.T) {
	cases := []struct {
		target func(*testing.T) target
		n      int
		batch  []string
		sent   []string
	}{
		// An err at the second exec ends what the device runs, but the
		// stage cannot know it before: the word goes down whole.
		{asyncTask, 3, []string{"exec"}, []string{"exec exec exec exec"}},
		{asyncTask, 1, []string{"cancel wait"}, []string{"cancel wait exec"}},
		// at most one start: then only cancel and wait are left.
		{timer, 3, []string{"start"}, []string{"start cancel cancel cancel"}},
		{timer, 2, []string{"cancel"}, []string{"cancel start cancel"}},
		// The shorter miss is answered by the longer; only that is padded.
		{timer, 2, []string{"start", "start wait", "start wait"}, []string{"start wait cancel cancel"}},
		// followed_by_wait: the forced wait comes free, after the query's
		// own last callin as after each padded one.
		{serverSocket, 2, []string{"bind"}, []string{"bind wait bind wait bind wait"}},
		{serverSocket, 1, []string{"bind wait"}, []string{"bind wait bind wait"}},
	}
	for _, c := range cases {
		tg := c.target(t)
		s := newStack(t, tg, pad.Sizes{Learning: c.n})
		batch := make([]mealy.Word, len(c.batch))
		for k, w := range c.batch {
			batch[k] = tg.m.Inputs.MustWord(strings.Fields(w)...)
		}
		if _, err := s.learn.Ask(context.Background(), batch); err != nil {
			t.Fatal(err)
		}
		var sent []string
		for _, w := range s.dev.Sent {
			sent = append(sent, tg.m.Inputs.Format(w))
		}
		if !slices.Equal(sent, c.sent) {
			t.Errorf("%s, pad %d, %q: sent %q, want %q", tg.name, c.n, c.batch, sent, c.sent)
		}
	}
}

// A learner's spares go down as its queries do: each cut where the
// restrictions cut it (at most one start), then padded; the cache runs
// those it cannot answer. Here the batch's cancel wait is padded to cancel
// wait start cancel; the spare start start cancel is cut to start and
// padded to start cancel cancel; cancel is padded to cancel start cancel.
func TestSparesAreCutAndPaddedAsQueries(t *testing.T) {
	tg := timer(t)
	s := newStack(t, tg, pad.Sizes{Learning: 2})
	in := tg.m.Inputs
	spares := []mealy.Word{in.MustWord("start", "start", "cancel"), in.MustWord("cancel")}
	ctx := oracle.WithSpares(context.Background(), oracle.Spares{Words: spares})
	if _, err := s.learn.Ask(ctx, []mealy.Word{in.MustWord("cancel", "wait")}); err != nil {
		t.Fatal(err)
	}
	format := func(ws []mealy.Word) string {
		var out []string
		for _, w := range ws {
			out = append(out, in.Format(w))
		}
		return strings.Join(out, "|")
	}
	if got, want := format(s.dev.Sent), "cancel wait start cancel"; got != want {
		t.Errorf("sent %s, want %s", got, want)
	}
	if got, want := format(s.dev.Spares), "start cancel cancel|cancel start cancel"; got != want {
		t.Errorf("spares ran %s, want %s", got, want)
	}
	if a, ok := s.cache.Lookup(in.MustWord("start", "cancel", "cancel")); !ok || tg.m.Outputs.Format(a.Outputs) != "ok ok ok" {
		t.Errorf("the cache holds the spare start cancel cancel as %+v (%v)", a, ok)
	}
}

// A cut answer keeps the query's own err and drops the padding's.
func TestPaddedAnswerIsCutToTheQuery(t *testing.T) {
	tg := asyncTask(t)
	s := newStack(t, tg, pad.Sizes{Learning: 3})
	in := tg.m.Inputs
	got, err := s.learn.Ask(context.Background(), []mealy.Word{in.MustWord("exec", "wait"), in.MustWord("cancel", "exec", "exec")})
	if err != nil {
		t.Fatal(err)
	}
	if f := tg.m.Outputs.Format(got[0].Outputs); f != "ok done" || got[0].ErrAt != -1 || got[0].Err != nil || len(got[0].Outputs) != 2 {
		t.Errorf("exec wait answered %s, err at %d (%v)", f, got[0].ErrAt, got[0].Err)
	}
	if f := tg.m.Outputs.Format(got[1].Outputs); f != "ok ok err" || got[1].ErrAt != 2 || got[1].Err == nil || got[1].Err.Detail != "thrown by exec" {
		t.Errorf("cancel exec exec answered %s, err at %d (%v)", f, got[1].ErrAt, got[1].Err)
	}
	// The cache kept the padding's answers: exec wait exec errs without
	// running anything more.
	before := len(s.dev.Sent)
	a, ok := s.cache.Lookup(in.MustWord("exec", "wait", "exec"))
	if !ok || a.ErrAt != 2 {
		t.Errorf("the cache does not know exec wait exec from the padded run: %v %+v", ok, a)
	}
	if len(s.dev.Sent) != before {
		t.Error("a lookup ran something")
	}
}

// A bound check's words are padded by their own size (none here), and a
// re-run goes down as asked.
func TestCheckWordsAndRerunsArePaddedByTheirOwnRule(t *testing.T) {
	tg := timer(t)
	s := newStack(t, tg, pad.Sizes{Learning: 3})
	in := tg.m.Inputs
	if _, err := s.eq.Ask(context.Background(), []mealy.Word{in.MustWord("cancel", "wait")}); err != nil {
		t.Fatal(err)
	}
	rerun := oracle.AsRerun(oracle.WithPhase(context.Background(), oracle.PhaseLearning))
	stage := &pad.Stage{Next: s.cache, Known: s.cache, Rules: s.rules, Size: pad.Sizes{Learning: 3, Check: 3}, Inputs: in.Size(), Recorder: s.rec}
	if _, err := stage.Ask(rerun, []mealy.Word{in.MustWord("start")}); err != nil {
		t.Fatal(err)
	}
	var sent []string
	for _, w := range s.dev.Sent {
		sent = append(sent, in.Format(w))
	}
	if want := []string{"cancel wait", "start"}; !slices.Equal(sent, want) {
		t.Errorf("sent %q, want %q", sent, want)
	}
	if l, e := s.rec.Snapshot(); l.Padded != 0 || e.Padded != 0 {
		t.Errorf("padded %d learning and %d equivalence symbols, want none", l.Padded, e.Padded)
	}
}

// A check's word is padded only up to the first wait its hypothesis
// predicts quiet, and not by the forcing callin before it: that wait would
// cost a whole quiescence timeout for a guess at the next round's words.
// A wait predicted to bring a callback (or an err) is cheap and stays; with
// no prediction the word is padded in full.
func TestCheckWordsStopBeforeAPredictedQuiet(t *testing.T) {
	tg := serverSocket(t)
	in := tg.m.Inputs
	predict := oracle.Expectation{Outputs: func(w mealy.Word) mealy.Word {
		out, _ := tg.m.Run(w)
		return out
	}}
	cases := []struct {
		ask      string
		predicts bool
		sent     string
	}{
		{"bind", true, "bind"},                 // bind·wait is quiet
		{"bind wait", true, "bind wait bind"},  // the padded bind errs: cheap, and the cache runs nothing after it
		{"bind", false, "bind wait bind wait"}, // no prediction: padded in full
	}
	for _, c := range cases {
		s := newStack(t, tg, pad.Sizes{Check: 1})
		ctx := context.Background()
		if c.predicts {
			ctx = oracle.WithExpectation(ctx, predict)
		}
		if _, err := s.eq.Ask(ctx, []mealy.Word{in.MustWord(strings.Fields(c.ask)...)}); err != nil {
			t.Fatal(err)
		}
		if len(s.dev.Sent) != 1 || in.Format(s.dev.Sent[0]) != c.sent {
			var sent []string
			for _, w := range s.dev.Sent {
				sent = append(sent, in.Format(w))
			}
			t.Errorf("%q (predicted: %v): sent %q, want %q", c.ask, c.predicts, sent, c.sent)
		}
	}
}
