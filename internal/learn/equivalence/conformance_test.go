package equivalence

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/backend/sim"
	"github.com/droidstar/droidstar/internal/learn"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/mealy/mealytest"
	"github.com/droidstar/droidstar/internal/oracle/oracletest"
)

// swingTimer is javax.swing.Timer as the issue found it: setRepeats(false)
// ("once") before start makes the timer fire a single time.
//
//	0 idle, repeating   --once--> 1;  --start--> 2
//	1 idle, once        --start--> 3
//	2 running, repeating --wait/fired--> 2;  --once--> 3
//	3 running, once      --wait/fired--> 1
//
// once is ok everywhere, wait quiet when idle, start on a running timer
// throws (state 4, the sink). States 0 and 1 differ only on
// "start wait wait" (ok fired fired against ok fired quiet).
func swingTimer() *mealy.Machine {
	in, out, err := mealy.ClosureAlphabets([]string{"once", "start"}, []string{"fired"})
	if err != nil {
		panic(err)
	}
	const once, start, wait = 0, 1, 2
	const ok, quiet, errO, fired = 0, 1, 2, 3
	m := mealy.NewMachine(in, out, 5)
	m.SetTransition(0, once, ok, 1)
	m.SetTransition(0, start, ok, 2)
	m.SetTransition(0, wait, quiet, 0)
	m.SetTransition(1, once, ok, 1)
	m.SetTransition(1, start, ok, 3)
	m.SetTransition(1, wait, quiet, 1)
	m.SetTransition(2, once, ok, 3)
	m.SetTransition(2, start, errO, 4)
	m.SetTransition(2, wait, fired, 2)
	m.SetTransition(3, once, ok, 3)
	m.SetTransition(3, start, errO, 4)
	m.SetTransition(3, wait, fired, 1)
	for i := 0; i < 3; i++ {
		m.SetTransition(4, i, errO, 4)
	}
	return m
}

// mergedTimer takes the one-shot idle timer for the repeating one, as a
// bound-2 check lets it.
func mergedTimer() *learn.Hypothesis {
	target := swingTimer()
	const once, start, wait = 0, 1, 2
	const ok, quiet, errO, fired = 0, 1, 2, 3
	m := mealy.NewMachine(target.Inputs, target.Outputs, 4)
	m.SetTransition(0, once, ok, 0)
	m.SetTransition(0, start, ok, 1)
	m.SetTransition(0, wait, quiet, 0)
	m.SetTransition(1, once, ok, 2)
	m.SetTransition(1, start, errO, 3)
	m.SetTransition(1, wait, fired, 1)
	m.SetTransition(2, once, ok, 2)
	m.SetTransition(2, start, errO, 3)
	m.SetTransition(2, wait, fired, 0)
	for i := 0; i < 3; i++ {
		m.SetTransition(3, i, errO, 3)
	}
	return &learn.Hypothesis{Machine: m, Access: []mealy.Word{{}, {start}, {start, once}, {start, start}}}
}

// exact is the target itself as a hypothesis, with its shortest access
// words.
func exact(m *mealy.Machine) *learn.Hypothesis {
	access, _ := m.AccessWords()
	return &learn.Hypothesis{Machine: m, Access: access}
}

// stages chains equivalence oracles as the engine does: the first
// counterexample wins.
type stages []learn.EquivalenceOracle

func (s stages) FindCounterexample(ctx context.Context, h *learn.Hypothesis) (*learn.Counterexample, error) {
	for _, o := range s {
		if cex, err := o.FindCounterexample(ctx, h); cex != nil || err != nil {
			return cex, err
		}
	}
	return nil, nil
}

// distinguishes says whether target and hypothesis answer w differently,
// first at its last symbol.
func distinguishes(target *mealy.Machine, h *learn.Hypothesis, w mealy.Word) bool {
	got, _ := target.Run(w)
	want, _ := h.Machine.Run(w)
	return len(w) > 0 && got[:len(w)-1].Equal(want[:len(w)-1]) && got[len(w)-1] != want[len(w)-1]
}

// checkAsked fails for a word that breaks the restrictions' forcing or goes
// on past the step in which the hypothesis first answers err.
func checkAsked(t *testing.T, h *learn.Hypothesis, sem mealy.Semantics, f mealy.Forcing, asked []mealy.Word) {
	t.Helper()
	in := h.Machine.Inputs
	for _, w := range asked {
		for j, a := range w {
			if f.Forced(a) && (j+1 == len(w) || w[j+1] != f.Wait) {
				t.Fatalf("asked %q: %s is not followed by its wait", in.Format(w), in.Name(a))
			}
		}
		if !sem.Closure {
			continue
		}
		out, _ := h.Machine.Run(w)
		if e := slices.Index(out, sem.Err); e >= 0 {
			end := e + 1
			if f.Forced(w[e]) {
				end++
			}
			if len(w) != end {
				t.Fatalf("asked %q, which goes on after the hypothesis's err at symbol %d", in.Format(w), e+1)
			}
		}
	}
}

func TestConformanceFindsWhatBound2Misses(t *testing.T) {
	target := swingTimer()
	sem := mealy.ClosureSemantics(target.Inputs, target.Outputs)
	h := mergedTimer()
	if cex, err := (&Bound{MQ: &oracletest.Machine{M: target}, Bound: 2, Sem: sem}).FindCounterexample(context.Background(), h); cex != nil || err != nil {
		t.Fatalf("bound 2 gave %v, %v; the case needs a hypothesis it passes", cex, err)
	}
	for _, tc := range []struct {
		name string
		eq   func(mq *oracletest.Machine) learn.EquivalenceOracle
		want string // "" for none
	}{
		{"wp depth 0", func(mq *oracletest.Machine) learn.EquivalenceOracle { return &Wp{MQ: mq, Depth: 0, Sem: sem} }, ""},
		// The one-shot timer is idle again after it fired, where start is
		// ok; the hypothesis thinks it still runs.
		{"wp depth 1", func(mq *oracletest.Machine) learn.EquivalenceOracle { return &Wp{MQ: mq, Depth: 1, Sem: sem} }, "once start wait start"},
		{"wp depth 2", func(mq *oracletest.Machine) learn.EquivalenceOracle { return &Wp{MQ: mq, Depth: 2, Sem: sem} }, "once start wait start"},
		{"random 100 walks, seed 1", func(mq *oracletest.Machine) learn.EquivalenceOracle {
			return &RandomWalk{MQ: mq, Walks: 100, Seed: 1, Sem: sem}
		}, "once start wait wait"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mq := &oracletest.Machine{M: target, Log: true}
			cex, err := tc.eq(mq).FindCounterexample(context.Background(), h)
			if err != nil {
				t.Fatal(err)
			}
			checkAsked(t, h, sem, mealy.Forcing{}, mq.Sent)
			if tc.want == "" {
				if cex != nil {
					t.Fatalf("found %q; this depth cannot reach the one-shot idle state's difference", target.Inputs.Format(cex.Word))
				}
				return
			}
			if cex == nil {
				t.Fatalf("no counterexample after %d words", len(mq.Sent))
			}
			if got := target.Inputs.Format(cex.Word); got != tc.want || cex.Suffix != nil {
				t.Fatalf("counterexample %q (suffix %v), want %q", got, cex.Suffix, tc.want)
			}
			if !distinguishes(target, h, cex.Word) {
				t.Fatalf("%q does not tell the hypothesis from the target at its last symbol", tc.want)
			}
		})
	}
}

// ServerSocket's callins all force a wait; the merged hypothesis takes the
// closed channel for the bound one.
func TestConformanceRespectsForcingAndClosure(t *testing.T) {
	target, forcing := mealytest.ServerSocket()
	sem := mealy.ClosureSemantics(target.Inputs, target.Outputs)
	for _, tc := range []struct {
		name string
		eq   func(mq *oracletest.Machine) learn.EquivalenceOracle
		want string
	}{
		{"wp depth 0", func(mq *oracletest.Machine) learn.EquivalenceOracle {
			return &Wp{MQ: mq, Depth: 0, Sem: sem, Forcing: forcing}
		}, "close wait accept wait"},
		{"wp depth 2", func(mq *oracletest.Machine) learn.EquivalenceOracle {
			return &Wp{MQ: mq, Depth: 2, Sem: sem, Forcing: forcing}
		}, "close wait accept wait"},
		{"random 50 walks, seed 7", func(mq *oracletest.Machine) learn.EquivalenceOracle {
			return &RandomWalk{MQ: mq, Walks: 50, Seed: 7, Sem: sem, Forcing: forcing}
		}, "close wait accept wait"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, h := range []*learn.Hypothesis{mergedSocket(), exact(target)} {
				mq := &oracletest.Machine{M: target, Log: true}
				cex, err := tc.eq(mq).FindCounterexample(context.Background(), h)
				if err != nil {
					t.Fatal(err)
				}
				if len(mq.Sent) == 0 {
					t.Fatal("asked nothing")
				}
				checkAsked(t, h, sem, forcing, mq.Sent)
				if h.Machine == target {
					if cex != nil {
						t.Fatalf("counterexample %q for the target itself", target.Inputs.Format(cex.Word))
					}
					continue
				}
				if cex == nil {
					t.Fatalf("no counterexample in %d words", len(mq.Sent))
				}
				if got := target.Inputs.Format(cex.Word); got != tc.want || !distinguishes(target, h, cex.Word) {
					t.Fatalf("counterexample %q, want %q", got, tc.want)
				}
			}
		})
	}
}

func TestConformanceCorrectHypothesisPasses(t *testing.T) {
	socket, forcing := mealytest.ServerSocket()
	for _, tc := range []struct {
		name    string
		m       *mealy.Machine
		forcing mealy.Forcing
	}{
		{"lock", target(), mealy.Forcing{}},
		{"swing timer", swingTimer(), mealy.Forcing{}},
		{"server socket", socket, forcing},
	} {
		sem := mealy.ClosureSemantics(tc.m.Inputs, tc.m.Outputs)
		for _, eq := range []learn.EquivalenceOracle{
			&Wp{MQ: &oracletest.Machine{M: tc.m}, Depth: 2, Sem: sem, Forcing: tc.forcing},
			&RandomWalk{MQ: &oracletest.Machine{M: tc.m}, Walks: 500, Seed: 3, Sem: sem, Forcing: tc.forcing},
		} {
			if cex, err := eq.FindCounterexample(context.Background(), exact(tc.m)); cex != nil || err != nil {
				t.Fatalf("%s, %T: got %v, %v for the target itself", tc.name, eq, cex, err)
			}
		}
	}
}

func TestRandomWalksAreReproducible(t *testing.T) {
	target := swingTimer()
	sem := mealy.ClosureSemantics(target.Inputs, target.Outputs)
	words := func(seed uint64, h *learn.Hypothesis) []string {
		ws, err := (&RandomWalk{Walks: 40, Seed: seed, Sem: sem}).Words(h)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]string, len(ws))
		for k, w := range ws {
			out[k] = target.Inputs.Format(w)
		}
		return out
	}
	first := words(5, mergedTimer())
	if again := words(5, mergedTimer()); !slices.Equal(first, again) {
		t.Fatalf("seed 5 drew\n %q\nthen\n %q", first, again)
	}
	if other := words(6, mergedTimer()); slices.Equal(first, other) {
		t.Fatal("seeds 5 and 6 drew the same walks")
	}
	if next := words(5, exact(target)); slices.Equal(first, next) {
		t.Fatal("the next round's hypothesis got the same walks")
	}
	// Every walk starts from a state's access word (ε, start, start once)
	// and, sink transitions avoided before its last step, has at least one
	// step: at most 2+3 steps (the hypothesis needs bound 2), ending at its
	// first err.
	h := mergedTimer()
	for _, w := range first {
		ws := strings.Fields(w)
		if len(ws) < 1 || len(ws) > 2+5 {
			t.Fatalf("walk %q has %d symbols, want 1 to 7", w, len(ws))
		}
		out, _ := h.Machine.Run(target.Inputs.MustWord(ws...))
		if e := slices.Index(out, sem.Err); e >= 0 && e != len(ws)-1 {
			t.Fatalf("walk %q goes on past the hypothesis's err", w)
		}
	}
}

func TestConformanceRejectsBadSettings(t *testing.T) {
	h := mergedTimer()
	for _, tc := range []struct {
		eq   learn.EquivalenceOracle
		want string
	}{
		{&RandomWalk{MQ: &oracletest.Machine{M: swingTimer()}, Walks: 0}, "random walks: the budget must be at least 1 walk, got 0"},
		{&RandomWalk{MQ: &oracletest.Machine{M: swingTimer()}, Walks: 1, MaxSteps: -1}, "random walks: at most -1 steps; a walk needs at least 1"},
		{&Wp{MQ: &oracletest.Machine{M: swingTimer()}, Depth: -1}, "Wp-method: depth must be at least 0, got -1"},
	} {
		if _, err := tc.eq.FindCounterexample(context.Background(), h); err == nil || err.Error() != tc.want {
			t.Errorf("%T: got %v, want %q", tc.eq, err, tc.want)
		}
	}
	bad := mergedTimer()
	bad.Access[2] = mealy.Word{0}
	if _, err := (&Wp{MQ: &oracletest.Machine{M: swingTimer()}}).FindCounterexample(context.Background(), bad); err == nil ||
		err.Error() != "hypothesis: the access word of state 2 (once) leads to state 0" {
		t.Errorf("got %v", err)
	}
}

// The lock (push, look; states 0, 1, 2 reached by ε, push, push push) has
// W = {look, push look}; W_0 = W_1 = W, W_2 = {look}. Depth 0 asks the
// transition words with the identifiers of the states they reach, the
// state cover's words being prefixes of those:
//
//	look·W_0, push look·W_1, push push push·W_2, push push look·W_2
func TestWpSuiteOfTheLock(t *testing.T) {
	lock := target()
	h := exact(lock)
	sem := mealy.PlainSemantics()
	suite, err := (&Wp{Depth: 0, Sem: sem}).Suite(h)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range suite {
		got = append(got, lock.Inputs.Format(w))
	}
	want := []string{
		"look look", "look push look",
		"push look look", "push look push look",
		"push push push look", "push push look look",
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("depth 0 suite\n %q\nwant\n %q", got, want)
	}
	// Depth 1 puts ε, push or look between prefix and identifier; of the
	// 18 distinct words, 11 are not a prefix of another.
	for depth, want := range []int{6, 11} {
		if n, err := (&Wp{Depth: depth, Sem: sem}).SuiteSize(h); err != nil || n != want {
			t.Fatalf("depth %d: %d words, %v; want %d", depth, n, err, want)
		}
	}
}

// With a bound too small for the target, L* stops at a wrong model; the
// conformance stage after it sends the learner on to the target.
func TestLStarWithAConformanceStage(t *testing.T) {
	timer := swingTimer()
	socket, forcing := mealytest.ServerSocket()
	deep := loadModel(t, "deep-mealy.dot")
	for _, tc := range []struct {
		name    string
		m       *mealy.Machine
		forcing mealy.Forcing
		conf    func(mq *oracletest.Machine, sem mealy.Semantics, f mealy.Forcing) learn.EquivalenceOracle
	}{
		{"swing timer, wp 1", timer, mealy.Forcing{}, wp(1)},
		{"swing timer, random 64", timer, mealy.Forcing{}, random(64, 1, 0)},
		{"server socket, wp 1", socket, forcing, wp(1)},
		{"server socket, random 64", socket, forcing, random(64, 1, 0)},
		// L* starts deep-mealy with one state, and the target's y comes
		// after a a a a: three states more than the hypothesis has, and a
		// walk longer than the default's 0+3 steps.
		{"deep mealy, wp 3", deep, mealy.Forcing{}, wp(3)},
		{"deep mealy, random 64 of up to 6 steps", deep, mealy.Forcing{}, random(64, 1, 6)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sem := mealy.ClosureSemantics(tc.m.Inputs, tc.m.Outputs)
			// The bound counts every symbol, so bound 2 misses ServerSocket's
			// closed channel too (see TestPlainBoundMissesWhatForcedWaitsHide).
			bound := func() *Bound { return &Bound{MQ: &oracletest.Machine{M: tc.m}, Bound: 2, Sem: sem} }
			alone, err := learn.LStar(context.Background(), tc.m.Inputs, tc.m.Outputs, &oracletest.Machine{M: tc.m}, bound(), learn.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if ok, _ := alone.Hypothesis.Machine.Equivalent(tc.m); ok {
				t.Fatal("bound 2 alone learned the target; the case shows nothing")
			}
			confMQ := &oracletest.Machine{M: tc.m, Log: true}
			res, err := learn.LStar(context.Background(), tc.m.Inputs, tc.m.Outputs, &oracletest.Machine{M: tc.m},
				stages{bound(), tc.conf(confMQ, sem, tc.forcing)}, learn.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if ok, _ := res.Hypothesis.Machine.Equivalent(tc.m); !ok {
				t.Fatalf("learned %d states, not the target's %d", res.Hypothesis.Machine.NumStates(), tc.m.Minimize().NumStates())
			}
			t.Logf("%d rounds, %d words asked by the conformance stage", res.EQs, len(confMQ.Sent))
		})
	}
}

func wp(depth int) func(*oracletest.Machine, mealy.Semantics, mealy.Forcing) learn.EquivalenceOracle {
	return func(mq *oracletest.Machine, sem mealy.Semantics, f mealy.Forcing) learn.EquivalenceOracle {
		return &Wp{MQ: mq, Depth: depth, Sem: sem, Forcing: f}
	}
}

func random(walks int, seed uint64, maxSteps int) func(*oracletest.Machine, mealy.Semantics, mealy.Forcing) learn.EquivalenceOracle {
	return func(mq *oracletest.Machine, sem mealy.Semantics, f mealy.Forcing) learn.EquivalenceOracle {
		return &RandomWalk{MQ: mq, Walks: walks, Seed: seed, MaxSteps: maxSteps, Sem: sem, Forcing: f}
	}
}

func loadModel(tb testing.TB, name string) *mealy.Machine {
	tb.Helper()
	m, err := sim.LoadModel(filepath.Join("..", "..", "..", "testdata", "models", name), "")
	if err != nil {
		tb.Fatal(err)
	}
	return m.Machine
}

// BenchmarkWpSuite reports what one Wp check of the exact hypothesis
// costs: the words it asks (an upper bound on queries; the cache answers
// those it knows).
func BenchmarkWpSuite(b *testing.B) {
	socket, forcing := mealytest.ServerSocket()
	for _, tc := range []struct {
		name    string
		m       *mealy.Machine
		forcing mealy.Forcing
	}{
		{"server-socket", socket, forcing},
		{"deep-mealy", loadModel(b, "deep-mealy.dot"), mealy.Forcing{}},
		{"player-closure", loadModel(b, "player-closure.dot"), mealy.Forcing{}},
		{"vending-mealy", loadModel(b, "vending-mealy.dot"), mealy.Forcing{}},
	} {
		for _, depth := range []int{1, 2} {
			b.Run(tc.name+"/depth-"+strconv.Itoa(depth), func(b *testing.B) {
				w := &Wp{Depth: depth, Sem: mealy.ClosureSemantics(tc.m.Inputs, tc.m.Outputs), Forcing: tc.forcing}
				h := exact(tc.m)
				var n int
				for b.Loop() {
					var err error
					if n, err = w.SuiteSize(h); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(n), "words/check")
			})
		}
	}
}

// clip is the one rule every asked word passes: forced waits in place,
// nothing after the step the hypothesis first answers err in.
func TestClip(t *testing.T) {
	socket, forcing := mealytest.ServerSocket()
	sem := mealy.ClosureSemantics(socket.Inputs, socket.Outputs)
	for _, tc := range []struct {
		forcing mealy.Forcing
		word    string
		want    string
	}{
		{forcing, "bind", "bind wait"},
		{forcing, "bind wait accept wait", "bind wait accept wait"},
		{forcing, "bind accept wait", "bind wait"},                             // accept where the wait must come
		{forcing, "accept wait bind wait", "accept wait"},                      // err at accept: its step, then nothing
		{forcing, "wait wait bind wait bind", "wait wait bind wait bind wait"}, // err at the second bind
		{mealy.Forcing{}, "bind accept wait", "bind accept"},                   // no forcing: err at accept
		{mealy.Forcing{}, "wait bind", "wait bind"},
	} {
		c, err := newRunner(exact(socket), sem, tc.forcing)
		if err != nil {
			t.Fatal(err)
		}
		w := socket.Inputs.MustWord(strings.Fields(tc.word)...)
		if got := socket.Inputs.Format(c.clip(w)); got != tc.want {
			t.Errorf("clip(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
}

// A walk keeps off the sink until its last step: on a machine where only
// "go" and "wait" do not throw, walks still get as long as drawn.
func TestRandomWalksKeepOffTheSink(t *testing.T) {
	callins := []string{"go", "a", "b", "c", "d", "e", "f", "g"}
	in, out, err := mealy.ClosureAlphabets(callins, nil)
	if err != nil {
		t.Fatal(err)
	}
	wait := len(callins)
	const ok, quiet, errO = 0, 1, 2
	m := mealy.NewMachine(in, out, 3)
	for q := 0; q < 3; q++ {
		for i := range in.Size() {
			m.SetTransition(q, i, errO, 2)
		}
	}
	m.SetTransition(0, 0, ok, 1)
	m.SetTransition(0, wait, quiet, 0)
	m.SetTransition(1, 0, ok, 0)
	m.SetTransition(1, wait, quiet, 1)
	sem := mealy.ClosureSemantics(in, out)
	words, err := (&RandomWalk{Walks: 200, Seed: 1, MaxSteps: 6, Sem: sem}).Words(exact(m))
	if err != nil {
		t.Fatal(err)
	}
	long := 0
	for _, w := range words {
		o, _ := m.Run(w)
		if e := slices.Index(o, errO); e >= 0 && e != len(w)-1 {
			t.Fatalf("walk %q goes on past an err", in.Format(w))
		}
		if len(w) >= 4 {
			long++
		}
	}
	// Steps drawn from all nine inputs would throw 7 times in 9, leaving
	// hardly a walk of 4; keeping off the sink, L >= 4 (minus the access
	// word's symbol at most) is half the walks.
	if long < len(words)/4 {
		t.Fatalf("%d of %d distinct walks have 4 symbols or more", long, len(words))
	}
}
