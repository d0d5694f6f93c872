// Package modeltest makes seeded random model documents for tests and
// benchmarks of large models: complete plain Mealy machines whose states
// are all reachable, of any size.
package modeltest

import (
	"fmt"
	"math/rand/v2"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
)

// Random is a complete Mealy model of the given number of states, inputs
// and outputs, the same for the same seed. A breadth-first spanning tree
// reaches every state (so none is dropped as unreachable); every other
// transition goes to a random state with a random output.
func Random(states, inputs, outputs int, seed uint64) (*model.Document, error) {
	if states < 1 || inputs < 1 || outputs < 1 {
		return nil, fmt.Errorf("modeltest: need at least one state, input and output (got %d, %d, %d)", states, inputs, outputs)
	}
	in, err := mealy.NewAlphabet(names("i", inputs)...)
	if err != nil {
		return nil, err
	}
	out, err := mealy.NewAlphabet(names("o", outputs)...)
	if err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(seed, 0x6d6f64656c74))
	m := mealy.NewMachine(in, out, states)
	next := 1 // the next state the spanning tree reaches
	for q := 0; q < states; q++ {
		for i := 0; i < inputs; i++ {
			to := r.IntN(states)
			// Every state is reached before its turn comes (next > q),
			// so the tree spans the machine.
			if next < states {
				to = next
				next++
			}
			m.SetTransition(q, i, r.IntN(outputs), to)
		}
	}
	return model.FromMachine(fmt.Sprintf("random%d", states), model.SemanticsMealy, m, nil), nil
}

func names(prefix string, n int) []string {
	out := make([]string, n)
	for k := range out {
		out[k] = fmt.Sprintf("%s%d", prefix, k)
	}
	return out
}
