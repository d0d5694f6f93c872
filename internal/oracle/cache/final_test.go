package cache

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/oracle"
)

// scripted answers a one-state target (every input answers x) except
// for the wrong answers it is told to give, once each, and records what it
// ran.
type scripted struct {
	in, out *mealy.Alphabet
	mu      sync.Mutex
	wrong   map[string][]string // query → outputs, given once
	ran     []string
}

func (s *scripted) Ask(_ context.Context, qs []mealy.Word) ([]oracle.Answer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	answers := make([]oracle.Answer, len(qs))
	for k, q := range qs {
		key := s.in.Format(q)
		s.ran = append(s.ran, key)
		outs := make([]string, len(q))
		for j := range outs {
			outs[j] = "x"
		}
		if w, ok := s.wrong[key]; ok {
			outs = w
			delete(s.wrong, key)
		}
		word, err := s.out.Word(outs...)
		if err != nil {
			return nil, err
		}
		answers[k] = oracle.Answer{Outputs: word, ErrAt: -1}
	}
	return answers, nil
}

func words(t *testing.T, a *mealy.Alphabet, ss ...string) []mealy.Word {
	t.Helper()
	var out []mealy.Word
	for _, s := range ss {
		w, err := a.Word(strings.Fields(s)...)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, w)
	}
	return out
}

// The final check runs again exactly the executed words whose answers
// alone tell two rows apart, and a wrong one among them is voted away.
func TestVerifyNear(t *testing.T) {
	in, _ := mealy.NewAlphabet("a", "b")
	out, _ := mealy.NewAlphabet("x", "y")
	for _, tc := range []struct {
		name    string
		wrong   map[string][]string // wrong answers while learning
		rerun   []string            // the final check's re-runs, in order
		revised bool
	}{
		{
			// Row b differs from rows ε and a by the answer to b·b only:
			// b·b runs again, and a·b (row a's side of that difference).
			// Edge b is under two executed words: not run again.
			name: "one wrong answer splits a row", wrong: map[string][]string{"b b": {"x", "y"}},
			rerun: []string{"a b", "b b", "b b", "b b", "b b"}, revised: true,
		},
		{
			// b·a and b·b both differ: no single answer separates row b
			// from the others, and nothing runs again.
			name: "two wrong answers", wrong: map[string][]string{"b a": {"x", "y"}, "b b": {"x", "y"}},
		},
		{
			name: "all rows alike",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dev := &scripted{in: in, out: out, wrong: tc.wrong}
			c := New(dev, in, out, mealy.PlainSemantics(), &oracle.Recorder{})
			c.Repeat = 3
			ctx := context.Background()
			rows := words(t, in, "", "a", "b")
			cols := words(t, in, "a", "b")
			var queries []mealy.Word
			for _, r := range rows {
				for _, e := range cols {
					queries = append(queries, r.Concat(e...))
				}
			}
			answers, err := c.Ask(ctx, queries)
			if err != nil {
				t.Fatal(err)
			}
			obs := oracle.Observations{Rows: rows, States: 1, Columns: cols}
			for k, r := range rows {
				var cells []mealy.Word
				for j := range cols {
					cells = append(cells, answers[k*len(cols)+j].Outputs[len(r):])
				}
				obs.Cells = append(obs.Cells, cells)
			}
			dev.ran = nil
			revised, err := c.VerifyNear(ctx, obs)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(dev.ran, tc.rerun) || revised != tc.revised {
				t.Fatalf("re-ran %q, revised %v; want %q, %v", dev.ran, revised, tc.rerun, tc.revised)
			}
			// Checked words are not run again by a second final check.
			if tc.revised {
				return
			}
			dev.ran = nil
			if _, err := c.VerifyNear(ctx, obs); err != nil || len(dev.ran) != 0 {
				t.Fatalf("second check re-ran %q (%v)", dev.ran, err)
			}
		})
	}
}

// A discrimination tree's rows ask only the columns on their path (nil
// cells): rows are compared where both asked. Row b, told apart from rows
// ε and a by the wrong answer to b·b alone, runs that word again as when
// every cell is known (TestVerifyNear's first case), and the vote
// overturns it; column a, which row b did not ask, compares nothing.
func TestVerifyNearSparseRows(t *testing.T) {
	in, _ := mealy.NewAlphabet("a", "b")
	out, _ := mealy.NewAlphabet("x", "y")
	dev := &scripted{in: in, out: out, wrong: map[string][]string{"b b": {"x", "y"}}}
	c := New(dev, in, out, mealy.PlainSemantics(), &oracle.Recorder{})
	c.Repeat = 3
	ctx := context.Background()
	rows := words(t, in, "", "a", "b")
	cols := words(t, in, "b", "a")
	asked := [][]bool{{true, true}, {true, true}, {true, false}}
	obs := oracle.Observations{Rows: rows, States: 1, Columns: cols}
	for r, row := range rows {
		cells := make([]mealy.Word, len(cols))
		for j, e := range cols {
			if !asked[r][j] {
				continue
			}
			a, err := c.Ask(ctx, []mealy.Word{row.Concat(e...)})
			if err != nil {
				t.Fatal(err)
			}
			cells[j] = a[0].Outputs[len(row):]
		}
		obs.Cells = append(obs.Cells, cells)
	}
	dev.ran = nil
	revised, err := c.VerifyNear(ctx, obs)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a b", "b b", "b b", "b b", "b b"}; !slices.Equal(dev.ran, want) || !revised {
		t.Fatalf("re-ran %q, revised %v; want %q, true", dev.ran, revised, want)
	}
}

// A re-run that disagrees part-way and loses the vote checked nothing
// after the disagreement: the word runs again, and a wrong answer there
// is still found.
func TestRecheckAfterLostVote(t *testing.T) {
	in, _ := mealy.NewAlphabet("a", "b")
	out, _ := mealy.NewAlphabet("x", "y")
	dev := &scripted{in: in, out: out, wrong: map[string][]string{"a b": {"x", "y"}}}
	c := New(dev, in, out, mealy.PlainSemantics(), &oracle.Recorder{})
	c.Repeat = 3
	ctx := context.Background()
	w := words(t, in, "a b")
	if _, err := c.Ask(ctx, w); err != nil {
		t.Fatal(err)
	}
	// The first re-run flips its first answer: the vote keeps x there,
	// and the second re-run finds the wrong y.
	dev.wrong["a b"] = []string{"y", "x"}
	revised, err := c.recheck(ctx, w)
	if err != nil || !revised {
		t.Fatalf("revised %v, %v", revised, err)
	}
	got, _ := c.Lookup(w[0])
	if out.Format(got.Outputs) != "x x" {
		t.Fatalf("tree answers %s", out.Format(got.Outputs))
	}
}
