package equivalence

import (
	"context"
	"slices"
	"testing"

	"github.com/droidstar/droidstar/internal/learn"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/oracle/oracletest"
)

// lock opens after n pushes and says so on look: states i and i+1 differ
// first on push^(n-i-1)·look, so the lock needs bound n.
func lock(n int) *mealy.Machine {
	m := mealy.NewMachine(mealy.MustAlphabet("push", "look"), mealy.MustAlphabet("ok", "closed", "open"), n+1)
	for q := 0; q <= n; q++ {
		m.SetTransition(q, 0, 0, min(q+1, n))
		out := 1
		if q == n {
			out = 2
		}
		m.SetTransition(q, 1, out, q)
	}
	return m
}

func TestAutoBoundRaisesWhileARaisedRoundFindsCounterexamples(t *testing.T) {
	for _, tc := range []struct {
		name      string
		lock, max int
		// settled is the bound it stops at, found what the rounds at each
		// bound from 1 found.
		settled   int
		found     []int
		capped    bool
		wantEqual bool
	}{
		// The round at 2 finds push push look; learning goes on, and the
		// first round at 3 finds nothing.
		{"needs 2", 2, 6, 3, []int{0, 1, 0}, false, true},
		{"needs 1", 1, 6, 2, []int{0, 0}, false, true},
		{"ceiling at the need", 2, 2, 2, []int{0, 1}, true, true},
		// The rule's limit: the one-state hypothesis differs from lock(3)
		// only on push³·look, which no round at 2 asks, so nothing says
		// to go on. The summary then says "exact if the target needs
		// bound <= 2", which is all the check showed.
		{"needs more than the first raise sees", 3, 6, 2, []int{0, 0}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := lock(tc.lock)
			if need := target.NeededBound(); need != tc.lock {
				t.Fatalf("lock(%d) needs bound %d", tc.lock, need)
			}
			mq := &oracletest.Machine{M: target}
			var raises [][2]int
			auto := &AutoBound{Bound: &Bound{MQ: mq, Sem: mealy.PlainSemantics()}, Start: 1, Max: tc.max,
				OnRaise: func(from, to int) { raises = append(raises, [2]int{from, to}) }}
			res, err := learn.LStar(context.Background(), target.Inputs, target.Outputs, mq, auto, learn.Options{})
			if err != nil {
				t.Fatal(err)
			}
			used, found, capped := auto.Settled()
			if used != tc.settled || !slices.Equal(found, tc.found) || capped != tc.capped {
				t.Fatalf("settled on %d, found %v, capped %v; want %d, %v, %v", used, found, capped, tc.settled, tc.found, tc.capped)
			}
			for k, r := range raises {
				if r != [2]int{1 + k, 2 + k} {
					t.Fatalf("raise %d went %d→%d", k, r[0], r[1])
				}
			}
			if len(raises) != used-1 {
				t.Fatalf("%d raises to settle on %d", len(raises), used)
			}
			equal, err := res.Hypothesis.Machine.Equivalent(target)
			if err != nil {
				t.Fatal(err)
			}
			if equal != tc.wantEqual {
				t.Fatalf("learned model equals the target: %v, want %v", equal, tc.wantEqual)
			}
		})
	}
}

func TestAutoBoundRefusesAnEmptyRange(t *testing.T) {
	auto := &AutoBound{Bound: &Bound{MQ: &oracletest.Machine{M: lock(2)}, Sem: mealy.PlainSemantics()}, Start: 3, Max: 2}
	_, err := auto.FindCounterexample(context.Background(), merged())
	if err == nil || err.Error() != "automatic bound: need 1 <= start <= max, got start 3, max 2" {
		t.Fatalf("got %v", err)
	}
}
