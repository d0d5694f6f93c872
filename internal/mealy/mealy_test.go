package mealy

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// timer is a CountDownTimer-like closure machine with a redundant copy of
// its final state (state 3 duplicates state 2) and an unreachable state 5.
//
//	0 --start/ok--> 1 --wait/finished--> 2;  1 --cancel/ok--> 3
//	0: cancel/ok, wait/quiet self-loops; 2 and 3: cancel/ok, wait/quiet loops
//	every start outside state 0 throws (to the sink 4)
func timer() *Machine {
	in, out, err := ClosureAlphabets([]string{"start", "cancel"}, []string{"finished"})
	if err != nil {
		panic(err)
	}
	const start, cancel, wait = 0, 1, 2
	const ok, quiet, errO, finished = 0, 1, 2, 3
	m := NewMachine(in, out, 6)
	m.SetTransition(0, start, ok, 1)
	m.SetTransition(0, cancel, ok, 0)
	m.SetTransition(0, wait, quiet, 0)
	m.SetTransition(1, start, errO, 4)
	m.SetTransition(1, cancel, ok, 3)
	m.SetTransition(1, wait, finished, 2)
	for _, q := range []int{2, 3, 5} {
		m.SetTransition(q, start, errO, 4)
		m.SetTransition(q, cancel, ok, q)
		m.SetTransition(q, wait, quiet, q)
	}
	for i := 0; i < 3; i++ {
		m.SetTransition(4, i, errO, 4)
	}
	return m
}

func TestValidateNamesTheMissingTransition(t *testing.T) {
	m := NewMachine(MustAlphabet("a", "b"), MustAlphabet("x"), 1)
	m.SetTransition(0, 0, 0, 0)
	if err := m.Validate(); err == nil || err.Error() != `state 0 has no transition on input "b"` {
		t.Fatalf("got %v", err)
	}
}

func TestRunAndMinimize(t *testing.T) {
	m := timer()
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	out, q := m.Run(m.Inputs.MustWord("start", "wait", "start", "cancel"))
	if got := m.Outputs.Format(out); got != "ok finished err err" || q != 4 {
		t.Fatalf("run: %s ending in %d", got, q)
	}
	min := m.Minimize()
	if min.NumStates() != 4 || !min.IsMinimal() || m.IsMinimal() {
		t.Fatalf("minimal machine has %d states (minimal=%v), original minimal=%v", min.NumStates(), min.IsMinimal(), m.IsMinimal())
	}
	if ok, err := m.Equivalent(min); !ok || err != nil {
		t.Fatalf("minimised machine not equivalent: %v", err)
	}
}

func TestCounterexampleIsShortest(t *testing.T) {
	a := timer()
	b := timer()
	// b's timer never fires after a cancel... but fires again on wait in state 3.
	fin, _ := b.Outputs.Index("finished")
	b.SetTransition(3, 2, fin, 2)
	w, differ, err := a.Counterexample(b)
	if err != nil || !differ {
		t.Fatalf("no counterexample: %v", err)
	}
	if got := a.Inputs.Format(w); got != "start cancel wait" {
		t.Fatalf("counterexample %q, want %q", got, "start cancel wait")
	}
	if _, differ, _ := a.Counterexample(a.Minimize()); differ {
		t.Fatal("a machine differs from its minimisation")
	}
}

func TestCounterexampleMatchesInputsByName(t *testing.T) {
	a := NewMachine(MustAlphabet("x", "y"), MustAlphabet("0", "1"), 1)
	a.SetTransition(0, 0, 0, 0)
	a.SetTransition(0, 1, 1, 0)
	b := NewMachine(MustAlphabet("y", "x"), MustAlphabet("1", "0"), 1)
	b.SetTransition(0, 0, 0, 0) // y/1
	b.SetTransition(0, 1, 1, 0) // x/0
	if ok, err := a.Equivalent(b); !ok || err != nil {
		t.Fatalf("same machine with reordered alphabets: equivalent=%v err=%v", ok, err)
	}
	c := NewMachine(MustAlphabet("x", "z"), MustAlphabet("0"), 1)
	if _, err := a.Equivalent(c); err == nil || err.Error() != `input alphabets differ: "y" only in the first` {
		t.Fatalf("got %v", err)
	}
}

func TestDistinguishersAndNeededBound(t *testing.T) {
	m := timer().Minimize()
	d := m.Distinguishers()
	// After minimisation: 0 initial, 1 running, 2 sink, 3 done (BFS order).
	cases := []struct {
		p, q int
		want string
	}{
		{0, 1, "start"}, // ok vs err
		{0, 3, "start"},
		{1, 3, "wait"},  // finished vs quiet
		{0, 2, "start"}, // ok vs err; first input in alphabet order wins ties
		{2, 3, "cancel"},
	}
	for _, c := range cases {
		if got := m.Inputs.Format(d.Word(c.p, c.q)); got != c.want {
			t.Errorf("distinguisher of %d,%d = %q, want %q", c.p, c.q, got, c.want)
		}
	}
	if b := m.NeededBound(); b != 1 {
		t.Fatalf("needed bound %d, want 1", b)
	}
	// Two states that only a two-letter word tells apart.
	two := NewMachine(MustAlphabet("a"), MustAlphabet("x", "y"), 3)
	two.SetTransition(0, 0, 0, 1)
	two.SetTransition(1, 0, 0, 2)
	two.SetTransition(2, 0, 1, 2)
	if b := two.NeededBound(); b != 2 {
		t.Fatalf("needed bound %d, want 2", b)
	}
	if w := two.Distinguishers().Word(0, 1); !reflect.DeepEqual(w, Word{0, 0}) {
		t.Fatalf("distinguisher %v", w)
	}
}

func TestTypestateDropsErrAndQuietLoops(t *testing.T) {
	ts, err := timer().Minimize().Typestate()
	if err != nil {
		t.Fatal(err)
	}
	want := []Edge{
		{From: 0, To: 1, Input: 0, Label: "start", Kind: Callin},
		{From: 0, To: 0, Input: 1, Label: "cancel", Kind: Callin},
		{From: 1, To: 3, Input: 1, Label: "cancel", Kind: Callin},
		{From: 1, To: 3, Input: 2, Label: "finished", Kind: Callback},
		{From: 3, To: 3, Input: 1, Label: "cancel", Kind: Callin},
	}
	if !reflect.DeepEqual(ts.Edges, want) || ts.Sink != 2 || !reflect.DeepEqual(ts.States, []int{0, 1, 3}) {
		t.Fatalf("typestate %+v", ts)
	}
	bad := timer()
	bad.SetTransition(0, 2, 0, 0) // a wait answering ok
	if _, err := bad.Typestate(); err == nil || err.Error() != `state 0: "wait" answered "ok"; a wait answers a callback or "quiet"` {
		t.Fatalf("got %v", err)
	}
	plain := NewMachine(MustAlphabet("a"), MustAlphabet("x"), 1)
	plain.SetTransition(0, 0, 0, 0)
	if _, err := plain.Typestate(); err == nil {
		t.Fatal("a plain Mealy machine has no typestate view")
	}
}

func TestTypestateKeepsQuietEdgesThatMove(t *testing.T) {
	in, out, _ := ClosureAlphabets([]string{"cancel"}, nil)
	m := NewMachine(in, out, 2)
	m.SetTransition(0, 0, 0, 0)
	m.SetTransition(0, 1, 1, 1) // the object settles by itself
	m.SetTransition(1, 0, 0, 1)
	m.SetTransition(1, 1, 1, 1)
	ts, err := m.Typestate()
	if err != nil {
		t.Fatal(err)
	}
	if len(ts.Edges) != 3 || ts.Edges[1] != (Edge{From: 0, To: 1, Input: 1, Label: "quiet", Kind: Timeout}) {
		t.Fatalf("edges %+v", ts.Edges)
	}
}

func TestAlphabetErrors(t *testing.T) {
	if _, err := NewAlphabet("a", "a"); err == nil || err.Error() != `duplicate symbol "a"` {
		t.Fatalf("got %v", err)
	}
	if _, err := MustAlphabet("a").Word("b"); err == nil || err.Error() != `unknown symbol "b" (alphabet: a)` {
		t.Fatalf("got %v", err)
	}
	if _, _, err := ClosureAlphabets([]string{"wait"}, nil); err == nil || err.Error() != `inputs: duplicate symbol "wait"` {
		t.Fatalf("got %v", err)
	}
}

// Only an answer that ends in a quiet chain (a wait answered quiet after
// the last callin, and no err) makes the harness spend its settle time.
func TestSemanticsEndsQuiet(t *testing.T) {
	in, out, err := ClosureAlphabets([]string{"start"}, []string{"fired"})
	if err != nil {
		t.Fatal(err)
	}
	sem := ClosureSemantics(in, out)
	cases := []struct {
		inputs, outputs string
		want            bool
	}{
		{"", "", false},
		{"start", "ok", false},
		{"wait", "quiet", true},
		{"start wait", "ok fired", false},
		{"start wait wait", "ok fired quiet", true},
		{"start wait wait", "ok quiet quiet", true},
		{"start wait start", "ok quiet ok", false},
		{"start wait start", "ok quiet err", false},
		{"wait start wait", "quiet err err", false},
	}
	for _, c := range cases {
		i, o := in.MustWord(strings.Fields(c.inputs)...), out.MustWord(strings.Fields(c.outputs)...)
		if got := sem.EndsQuiet(i, o); got != c.want {
			t.Errorf("EndsQuiet(%s / %s) = %v, want %v", c.inputs, c.outputs, got, c.want)
		}
	}
	if PlainSemantics().EndsQuiet(in.MustWord(Wait), out.MustWord(Quiet)) {
		t.Error("a plain machine ended quiet")
	}
}

// The closure's two rules, on indices: err forces err, a wait after quiet
// forces quiet; a plain machine forces nothing.
func TestSemanticsForced(t *testing.T) {
	in, out, err := ClosureAlphabets([]string{"start"}, []string{"fired"})
	if err != nil {
		t.Fatal(err)
	}
	sem := ClosureSemantics(in, out)
	start, wait := in.MustWord("start")[0], in.MustWord(Wait)[0]
	o := out.MustWord(OK, Quiet, Err, "fired")
	ok, quiet, errOut, fired := o[0], o[1], o[2], o[3]
	cases := []struct {
		prev, in, want int
		forced         bool
	}{
		{-1, start, 0, false},
		{-1, wait, 0, false},
		{quiet, wait, quiet, true},
		{quiet, start, 0, false},
		{errOut, start, errOut, true},
		{errOut, wait, errOut, true},
		{fired, wait, 0, false},
		{ok, wait, 0, false},
	}
	for _, c := range cases {
		if got, forced := sem.Forced(c.prev, c.in); forced != c.forced || got != c.want {
			t.Errorf("Forced(%d, %d) = %d, %v; want %d, %v", c.prev, c.in, got, forced, c.want, c.forced)
		}
	}
	if _, forced := PlainSemantics().Forced(errOut, wait); forced {
		t.Error("a plain machine forced an output")
	}
	if s := ClosureSemantics(MustAlphabet("a"), out); s.Closure {
		t.Errorf("no wait input, yet %+v", s)
	}
	w := Word{ok, fired, ok, ok}
	sem.ErrFrom(w, 2)
	if want := (Word{ok, fired, errOut, errOut}); !w.Equal(want) {
		t.Errorf("ErrFrom: %v", w)
	}
}

func TestAccessTreeAgreesWithAccessWords(t *testing.T) {
	m := timer()
	access, reachable := m.AccessWords()
	tree := m.AccessTree()
	if want := []int{0, 1, 4, 3, 2}; !reflect.DeepEqual(tree.Order, want) {
		t.Errorf("breadth-first order %v, want %v", tree.Order, want)
	}
	for q := 0; q < m.NumStates(); q++ {
		if got := tree.Word(q); !reflect.DeepEqual(got, access[q]) {
			t.Errorf("state %d: tree word %v, access word %v", q, got, access[q])
		}
		if tree.Reachable(q) != reachable[q] || m.Reachable()[q] != reachable[q] {
			t.Errorf("state %d: reachable %v (tree) %v (Reachable), want %v", q, tree.Reachable(q), m.Reachable()[q], reachable[q])
		}
	}
	if tree.Depth[5] != -1 || tree.Parent[5] != -1 || tree.Word(5) != nil {
		t.Errorf("unreachable state 5: depth %d, parent %d, word %v", tree.Depth[5], tree.Parent[5], tree.Word(5))
	}
}

// moorePartition is Moore's refinement, the obvious (quadratic) reference
// that Partition must agree with.
func moorePartition(m *Machine) []int {
	reachable := m.Reachable()
	n := m.NumStates()
	block := make([]int, n)
	key := func(row []int) string { return intsKey(row) }
	assign := func(rowOf func(q int) []int) int {
		sig := map[string]int{}
		next := make([]int, n)
		for q := 0; q < n; q++ {
			if !reachable[q] {
				next[q] = -1
				continue
			}
			k := key(rowOf(q))
			b, ok := sig[k]
			if !ok {
				b = len(sig)
				sig[k] = b
			}
			next[q] = b
		}
		block = next
		return len(sig)
	}
	blocks := assign(func(q int) []int { return m.Out[q] })
	for {
		count := assign(func(q int) []int {
			row := []int{block[q]}
			for i := range m.Next[q] {
				row = append(row, block[m.Next[q][i]])
			}
			return row
		})
		if count == blocks {
			return block
		}
		blocks = count
	}
}

func TestPartitionAgreesWithMoore(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	in, out := MustAlphabet("a", "b", "c"), MustAlphabet("x", "y")
	for trial := 0; trial < 300; trial++ {
		n := 1 + rng.IntN(40)
		m := NewMachine(in, out, n)
		chain := trial%3 == 0 // long distinguishing words
		for q := 0; q < n; q++ {
			for i := 0; i < in.Size(); i++ {
				to, o := rng.IntN(n), rng.IntN(2)
				if chain {
					to, o = min(q+1, n-1), 0
					if i > 0 {
						to = rng.IntN(n)
					}
					if q == n-1 && i == 0 {
						o = 1
					}
				}
				m.SetTransition(q, i, o, to)
			}
		}
		want := moorePartition(m)
		got, blocks := m.Partition()
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d (%d states): Partition %v, Moore %v", trial, n, got, want)
		}
		if max := slices.Max(want); blocks != max+1 {
			t.Fatalf("trial %d: %d blocks, want %d", trial, blocks, max+1)
		}
	}
}
