package diff

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
)

// randomMealy is a seeded random complete Mealy machine of n states over
// 10 inputs and 4 outputs, every state reachable: state q+1.. are reached
// first along a breadth-first tree, the other transitions go anywhere.
func randomMealy(n int, seed int64) *mealy.Machine {
	rng := rand.New(rand.NewSource(seed))
	inputs := mealy.MustAlphabet("a", "b", "c", "d", "e", "f", "g", "h", "i", "j")
	outputs := mealy.MustAlphabet("ok", "x", "y", "z")
	m := mealy.NewMachine(inputs, outputs, n)
	next := 1
	for q := 0; q < n; q++ {
		for i := 0; i < inputs.Size(); i++ {
			to := rng.Intn(n)
			if next < n {
				to = next
				next++
			}
			m.SetTransition(q, i, rng.Intn(outputs.Size()), to)
		}
	}
	return m
}

// mutate changes k random transitions of a copy of m (a new output or a
// new target), as a model learned again on another device might differ.
func mutate(m *mealy.Machine, k int, seed int64) *mealy.Machine {
	rng := rand.New(rand.NewSource(seed))
	c := m.Clone()
	for ; k > 0; k-- {
		q, i := rng.Intn(c.NumStates()), rng.Intn(c.Inputs.Size())
		if rng.Intn(2) == 0 {
			c.SetTransition(q, i, (c.Out[q][i]+1)%c.Outputs.Size(), c.Next[q][i])
		} else {
			c.SetTransition(q, i, c.Out[q][i], rng.Intn(c.NumStates()))
		}
	}
	return c
}

// BenchmarkCompareLarge compares plain Mealy models of 1k and 10k states,
// rendered as text: two unrelated random models (the worst case for the
// state matching and the product), and a model against a copy with 1% of
// its transitions changed (a class learned again on another Android).
// The speed and memory target is time and bytes per op growing about
// linearly with the states: see -benchmem.
func BenchmarkCompareLarge(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		old := randomMealy(n, 1)
		cases := []struct {
			name string
			new  *mealy.Machine
		}{
			{"unrelated", randomMealy(n, 2)},
			{"mutated", mutate(old, n*10/100, 3)},
		}
		oldDoc := model.FromMachine("old", model.SemanticsMealy, old, nil)
		for _, c := range cases {
			newDoc := model.FromMachine("new", model.SemanticsMealy, c.new, nil)
			b.Run(fmt.Sprintf("%s/%d", c.name, n), func(b *testing.B) {
				b.ReportAllocs()
				for k := 0; k < b.N; k++ {
					r, err := Compare(oldDoc, newDoc, Options{OldFile: "old.json", NewFile: "new.json"})
					if err != nil {
						b.Fatal(err)
					}
					_ = r.Text()
				}
			})
		}
	}
}
