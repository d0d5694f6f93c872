package learn

import (
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/mealy"
)

// treeOf builds an L# learner whose tree holds the given answers, each
// "inputs / outputs" with symbols separated by spaces, and whose basis is
// the nodes of the given access words, in order.
func treeOf(t *testing.T, inputs, outputs *mealy.Alphabet, answers []string, basis ...string) *lsharp {
	t.Helper()
	l := newLSharp(inputs, nil)
	for _, a := range answers {
		in, out, _ := strings.Cut(a, " / ")
		w, err := inputs.Word(strings.Fields(in)...)
		if err != nil {
			t.Fatal(err)
		}
		o, err := outputs.Word(strings.Fields(out)...)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.t.insert(w, o); err != nil {
			t.Fatal(err)
		}
	}
	l.basis, l.basisOf = nil, map[int32]int{}
	for q, b := range basis {
		n := l.node(t, b)
		l.basis = append(l.basis, n)
		l.basisOf[n] = q
	}
	return l
}

func (l *lsharp) node(t *testing.T, access string) int32 {
	t.Helper()
	w, err := l.inputs.Word(strings.Fields(access)...)
	if err != nil {
		t.Fatal(err)
	}
	n := l.t.node(w)
	if n < 0 {
		t.Fatalf("the tree does not hold %q", access)
	}
	return n
}

// The basis ε, a, b: "a" tells ε from a only, "c c" tells ε from both.
var identifyAnswers = []string{
	"a a / x y",
	"b a / x x",
	"c c / x x",
	"a c c / x x y",
	"b c c / x x y",
}

// identify follows the predicted candidate: from ε the witness that tells
// it from both others at once, though a shorter one tells it from one;
// from a, whose outputs differ from both on "a", that one.
func TestIdentifyFollowsThePrediction(t *testing.T) {
	inputs, outputs := mealy.MustAlphabet("a", "b", "c"), mealy.MustAlphabet("x", "y")
	l := treeOf(t, inputs, outputs, identifyAnswers, "", "a", "b")
	for _, tc := range []struct {
		p    int
		want string
	}{
		{0, "c c"},
		{1, "a"},
	} {
		if got := inputs.Format(l.identify(tc.p, []int{0, 1, 2})); got != tc.want {
			t.Errorf("identify(%d) = %q, want %q", tc.p, got, tc.want)
		}
	}
	// separate, which follows no candidate, tells ε from a and loses b.
	if got := inputs.Format(l.separate([]int{0, 1, 2})); got != "a" {
		t.Errorf("separate = %q, want %q", got, "a")
	}
}

// basisSide asks one query from a candidate that two open nodes share, on
// a word both hold and on which the last hypothesis predicts the
// candidate answers otherwise, and rules the candidate out for both; the
// node whose answer the prediction matches keeps it.
func TestBasisSideRulesACandidateOutForSeveralNodes(t *testing.T) {
	inputs, outputs := mealy.MustAlphabet("a", "b", "c", "d"), mealy.MustAlphabet("x", "y")
	const x, y = 0, 1
	answers := []string{
		"a a / x y",
		"b c / x x",
		"c c / x x",
		"d c / x y",
	}
	l := treeOf(t, inputs, outputs, answers, "", "a")
	// The last hypothesis: a leads to state 1, which answers y to c.
	h := mealy.NewMachine(inputs, outputs, 2)
	for in := 0; in < 4; in++ {
		h.SetTransition(0, in, x, 0)
		h.SetTransition(1, in, x, 1)
	}
	h.SetTransition(0, 0, x, 1)
	h.SetTransition(1, 2, y, 1)
	l.prev = &Hypothesis{Machine: h}
	opens := []openNode{
		{f: l.node(t, "b"), p: 0, rest: []int{1}},
		{f: l.node(t, "c"), p: 0, rest: []int{1}},
		{f: l.node(t, "d"), p: 0, rest: []int{1}},
	}
	queries := l.basisSide(opens)
	if len(queries) != 1 || inputs.Format(queries[0]) != "a c" {
		t.Fatalf("queries %v, want the one query a c", queries)
	}
	for k, want := range []int{0, 0, 1} {
		if len(opens[k].rest) != want {
			t.Errorf("open node %d keeps candidates %v, want %d", k, opens[k].rest, want)
		}
	}
	// One open node alone is asked as before: no query from the basis.
	if queries := l.basisSide(opens[2:]); len(queries) != 0 {
		t.Errorf("queries %v for one open node, want none", queries)
	}
}

// identifyingTail appends the word that identifies the state the last
// hypothesis reaches, and nothing before the first hypothesis.
func TestIdentifyingTail(t *testing.T) {
	inputs, outputs := mealy.MustAlphabet("a", "b", "c"), mealy.MustAlphabet("x", "y")
	l := treeOf(t, inputs, outputs, identifyAnswers, "", "a", "b")
	q := mealy.Word{2}
	if got := inputs.Format(l.identifyingTail(q)); got != "c" {
		t.Errorf("before a hypothesis: %q, want %q", got, "c")
	}
	h := mealy.NewMachine(inputs, outputs, 3)
	for s := 0; s < 3; s++ {
		for in := 0; in < 3; in++ {
			h.SetTransition(s, in, 0, s)
		}
	}
	h.SetTransition(0, 2, 0, 1) // c leads to state 1, identified by "a"
	l.prev = &Hypothesis{Machine: h}
	if got := inputs.Format(l.identifyingTail(q)); got != "c a" {
		t.Errorf("after c: %q, want %q", got, "c a")
	}
}
