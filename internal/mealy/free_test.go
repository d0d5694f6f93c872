package mealy_test

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/mealy/mealytest"
)

// backlog is a server with two clients waiting, accept followed by a wait:
// states 0 (two waiting) and 2 (one) differ only on "accept wait accept
// wait", four symbols of which two are free.
func backlog() (*mealy.Machine, mealy.Forcing) {
	in, out, err := mealy.ClosureAlphabets([]string{"accept"}, []string{"accepted"})
	if err != nil {
		panic(err)
	}
	const accept, wait = 0, 1
	const ok, quiet, errO, accepted = 0, 1, 2, 3
	m := mealy.NewMachine(in, out, 7)
	for _, q := range []int{0, 2, 4} {
		m.SetTransition(q, accept, ok, q+1)
		m.SetTransition(q, wait, quiet, q)
	}
	for _, q := range []int{1, 3, 5, 6} {
		m.SetTransition(q, accept, errO, 6)
	}
	m.SetTransition(1, wait, accepted, 2)
	m.SetTransition(3, wait, accepted, 4)
	m.SetTransition(5, wait, quiet, 4)
	m.SetTransition(6, wait, errO, 6)
	return m, mealy.Forcing{Wait: wait, Forces: []bool{true, false}}
}

func TestFreeLength(t *testing.T) {
	m, f := mealytest.ServerSocket()
	cases := []struct {
		after, word string
		want        int
	}{
		{"", "", 0},
		{"", "bind wait accept wait", 2},
		{"", "wait wait", 2},
		{"", "bind accept", 2}, // not a wait: it counts (and is excluded)
		{"", "bind wait wait", 2},
		{"bind", "wait accept wait", 1},
		{"wait", "wait accept wait", 2},
	}
	for _, c := range cases {
		after := -1
		if c.after != "" {
			after, _ = m.Inputs.Index(c.after)
		}
		if got := f.FreeLength(after, m.Inputs.MustWord(strings.Fields(c.word)...)); got != c.want {
			t.Errorf("free length of %q after %q = %d, want %d", c.word, c.after, got, c.want)
		}
	}
	if (mealy.Forcing{}).FreeLength(-1, mealy.Word{0, 1, 2}) != 3 || !(mealy.Forcing{}).None() || f.None() {
		t.Error("a Forcing that forces nothing must count every symbol")
	}
	// A wait never forces one, whatever Forces says.
	if (mealy.Forcing{Wait: 1, Forces: []bool{false, true}}).Forced(1) {
		t.Error("wait forced a wait")
	}
}

func TestNeededFreeBound(t *testing.T) {
	cases := []struct {
		name        string
		make        func() (*mealy.Machine, mealy.Forcing)
		plain, free int
	}{
		// After bind and after close: "wait accept wait", of which only
		// accept is free.
		{"server socket", mealytest.ServerSocket, 3, 1},
		// Two clients or one: "accept wait accept wait".
		{"backlog", backlog, 4, 2},
	}
	for _, c := range cases {
		m, f := c.make()
		if got := m.NeededBound(); got != c.plain {
			t.Errorf("%s: plain needed bound %d, want %d", c.name, got, c.plain)
		}
		if got := m.NeededFreeBound(f); got != c.free {
			t.Errorf("%s: free needed bound %d, want %d", c.name, got, c.free)
		}
	}
}

// With nothing forced, free length is length: on random machines the two
// needed bounds agree.
func TestNeededFreeBoundWithoutForcingIsNeededBound(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for trial := 0; trial < 200; trial++ {
		n, k := 1+rng.Intn(8), 1+rng.Intn(3)
		in := make([]string, k)
		for i := range in {
			in[i] = string(rune('a' + i))
		}
		m := mealy.NewMachine(mealy.MustAlphabet(in...), mealy.MustAlphabet("0", "1"), n)
		for q := 0; q < n; q++ {
			for i := 0; i < k; i++ {
				// Output 1 rarely, so that some pairs need long words.
				out := 0
				if rng.Intn(5) == 0 {
					out = 1
				}
				m.SetTransition(q, i, out, rng.Intn(n))
			}
		}
		if plain, free := m.NeededBound(), m.NeededFreeBound(mealy.Forcing{Wait: -1}); plain != free {
			t.Fatalf("trial %d: NeededBound %d, NeededFreeBound without forcing %d", trial, plain, free)
		}
	}
}
