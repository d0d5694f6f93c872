package cache_test

import (
	"context"
	"testing"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/oracle"
	"github.com/droidstar/droidstar/internal/oracle/cache"
	"github.com/droidstar/droidstar/internal/oracle/oracletest"
)

// counter is a machine with three inputs that counts a mod 5 and answers
// the count on every input: every word has its own answer, so a wrong one
// shows.
func counter() *mealy.Machine {
	in, out := mealy.MustAlphabet("a", "b", "c"), mealy.MustAlphabet("0", "1", "2", "3", "4")
	m := mealy.NewMachine(in, out, 5)
	for q := range 5 {
		m.SetTransition(q, 0, (q+1)%5, (q+1)%5)
		m.SetTransition(q, 1, q, q)
		m.SetTransition(q, 2, (q+2)%5, (q+2)%5)
	}
	return m
}

// words lists every word of length n over k symbols.
func words(k, n int) []mealy.Word {
	ws := []mealy.Word{{}}
	for range n {
		var next []mealy.Word
		for _, w := range ws {
			for a := range k {
				next = append(next, w.Concat(a))
			}
		}
		ws = next
	}
	return ws
}

// A capped cache stays under its cap, answers every batch right, keeps the
// learning phase's words, and runs again only what it dropped.
func TestCacheStaysUnderItsCap(t *testing.T) {
	m := counter()
	dev := &oracletest.Machine{M: m, Device: "dev", Ran: map[string]int{}}
	rec := &oracle.Recorder{}
	c := cache.New(dev, m.Inputs, m.Outputs, mealy.PlainSemantics(), rec)
	const maxNodes = 60
	c.MaxNodes = maxNodes
	learning := oracle.WithPhase(context.Background(), oracle.PhaseLearning)
	equiv := oracle.WithPhase(context.Background(), oracle.PhaseEquivalence)
	table := words(3, 2) // 9 words, 12 edges
	if _, err := c.Ask(learning, table); err != nil {
		t.Fatal(err)
	}
	all := words(3, 5) // 243 words of length 5: 363 edges in all
	for start := 0; start < len(all); start += 9 {
		batch := all[start:min(start+9, len(all))]
		got, err := c.Ask(equiv, batch)
		if err != nil {
			t.Fatal(err)
		}
		for k, w := range batch {
			want, _ := m.Run(w)
			if !got[k].Outputs.Equal(want) {
				t.Fatalf("%s answered %s, want %s", m.Inputs.Format(w), m.Outputs.Format(got[k].Outputs), m.Outputs.Format(want))
			}
		}
		if n := c.Nodes(); n > maxNodes {
			t.Fatalf("after the batch at %d the tree holds %d edges, more than its cap %d", start, n, maxNodes)
		}
	}
	// The table's words were never dropped.
	for _, w := range table {
		if _, ok := c.Lookup(w); !ok {
			t.Fatalf("the learning word %s was dropped", m.Inputs.Format(w))
		}
	}
	ranBefore := len(dev.Ran)
	if _, err := c.Ask(learning, table); err != nil {
		t.Fatal(err)
	}
	if len(dev.Ran) != ranBefore {
		t.Fatal("asking the table's words again ran a query")
	}
	// The first equivalence words were dropped: asked again, they run
	// again, and answer as before.
	first := all[0]
	if _, ok := c.Lookup(first); ok {
		t.Fatalf("%s is still in the tree: nothing was dropped", m.Inputs.Format(first))
	}
	got, err := c.Ask(equiv, []mealy.Word{first})
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := m.Run(first); !got[0].Outputs.Equal(want) {
		t.Fatalf("%s answered %v after it was dropped, want %v", m.Inputs.Format(first), got[0].Outputs, want)
	}
	if n := dev.Ran[m.Inputs.Format(first)]; n != 2 {
		t.Fatalf("%s ran %d times, want 2 (once before it was dropped, once after)", m.Inputs.Format(first), n)
	}
}

// Without a cap nothing is dropped.
func TestCacheWithoutCapKeepsEverything(t *testing.T) {
	m := counter()
	dev := &oracletest.Machine{M: m, Device: "dev", Ran: map[string]int{}}
	c := cache.New(dev, m.Inputs, m.Outputs, mealy.PlainSemantics(), &oracle.Recorder{})
	equiv := oracle.WithPhase(context.Background(), oracle.PhaseEquivalence)
	all := words(3, 4)
	for start := 0; start < len(all); start += 9 {
		if _, err := c.Ask(equiv, all[start:min(start+9, len(all))]); err != nil {
			t.Fatal(err)
		}
	}
	if n := c.Nodes(); n != 3+9+27+81 {
		t.Fatalf("the tree holds %d edges, want %d", n, 3+9+27+81)
	}
}
