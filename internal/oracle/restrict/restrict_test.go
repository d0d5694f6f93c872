package restrict_test

import (
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/oracle/restrict"
)

func TestFirstViolation(t *testing.T) {
	in, out, err := mealy.ClosureAlphabets([]string{"start", "cancel"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sem := mealy.ClosureSemantics(in, out)
	rules := []restrict.Rule{
		{Kind: restrict.First, Symbols: []string{"start", "cancel"}, Text: "first"},
		{Kind: restrict.AtMost, Count: 1, Symbols: []string{"start"}, Text: "one start"},
		{Kind: restrict.FollowedByWait, Symbols: []string{"start"}, Text: "wait after start"},
	}
	a, err := restrict.Compile(in, sem, rules)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		word string
		at   int
		why  string
	}{
		{"", -1, ""},
		{"start wait cancel", -1, ""},
		{"start", -1, ""},
		{"wait start", 0, "first"},
		{"start wait start", 2, "one start"},
		{"start cancel", 1, "wait after start"},
	}
	for _, c := range cases {
		w := in.MustWord(strings.Fields(c.word)...)
		if at, why := a.FirstViolation(w); at != c.at || why != c.why {
			t.Errorf("%q: violation at %d (%q), want %d (%q)", c.word, at, why, c.at, c.why)
		}
	}
	if _, err := restrict.Compile(in, sem, []restrict.Rule{{Kind: restrict.AtMost, Symbols: []string{"stop"}, Text: "at most 0 of [stop]"}}); err == nil ||
		err.Error() != `restriction "at most 0 of [stop]" names "stop", which is not an input` {
		t.Errorf("unknown symbol: %v", err)
	}
	if _, err := restrict.Compile(in, mealy.PlainSemantics(), rules); err == nil {
		t.Error("rules without the closure semantics compiled")
	}
}

// The followed_by_wait rules, and only they, tell the bound which inputs
// drag a wait along.
func TestForcing(t *testing.T) {
	in, out, err := mealy.ClosureAlphabets([]string{"bind", "accept", "close"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sem := mealy.ClosureSemantics(in, out)
	a, err := restrict.Compile(in, sem, []restrict.Rule{
		{Kind: restrict.FollowedByWait, Symbols: []string{"bind"}, Text: "wait after bind"},
		{Kind: restrict.AtMost, Count: 1, Symbols: []string{"accept"}, Text: "one accept"},
		{Kind: restrict.FollowedByWait, Symbols: []string{"close"}, Text: "wait after close"},
	})
	if err != nil {
		t.Fatal(err)
	}
	f := a.Forcing()
	var forced []string
	for i := 0; i < in.Size(); i++ {
		if f.Forced(i) {
			forced = append(forced, in.Name(i))
		}
	}
	if strings.Join(forced, " ") != "bind close" || f.Wait != sem.Wait {
		t.Fatalf("forced %v, wait %d; want bind close, wait %d", forced, f.Wait, sem.Wait)
	}
	none, err := restrict.Compile(in, sem, []restrict.Rule{{Kind: restrict.AtMost, Count: 1, Symbols: []string{"accept"}, Text: "one accept"}})
	if err != nil {
		t.Fatal(err)
	}
	if !none.Forcing().None() {
		t.Fatal("at_most forced a wait")
	}
}
