package growth

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func w(s string) []string { return strings.Fields(s) }

// rep is s repeated n times, as a word.
func rep(s string, n int) string { return strings.TrimSpace(strings.Repeat(s+" ", n)) }

func TestPumped(t *testing.T) {
	for _, c := range []struct {
		prev, next string
		added      string // "" with ok false: no pump
		ok         bool
	}{
		{"submit submit wait wait", "submit submit submit wait wait wait", "submit wait", true},
		{"a", "a a", "a", true},
		{"x a b y", "x a b a b y", "a b", true},
		{"consume submit wait", "consume consume submit wait wait", "consume wait", true},
		{"a b c", "a b b c c", "b c", true},
		// Growing, but not by repeating what is there.
		{"a b", "a b c", "", false},
		{"a b", "c a b", "", false},
		{"a b c", "a c b c", "", false},
		{"a b", "a c b", "", false},
		// Not growing.
		{"a b", "a b", "", false},
		{"a b b", "a b", "", false},
		// A different word of the same symbols.
		{"a b a", "b a b b", "", false},
		// A block longer than maxBlock is not looked for.
		{"a b c d e", "a b c d e a b c d e", "", false},
	} {
		added, ok := Pumped(w(c.prev), w(c.next))
		if ok != c.ok || strings.Join(added, " ") != c.added {
			t.Errorf("Pumped(%q, %q) = %q, %v; want %q, %v", c.prev, c.next, strings.Join(added, " "), ok, c.added, c.ok)
		}
	}
}

func TestCompact(t *testing.T) {
	for in, want := range map[string]string{
		"submit submit wait": "submit^2 wait",
		"a b a":              "a b a",
		"":                   "(empty)",
	} {
		if got := Compact(w(in)); got != want {
			t.Errorf("Compact(%q) = %q, want %q", in, got, want)
		}
	}
}

// round is one Add: a counterexample and the hypothesis's size.
type round struct {
	word   string
	states int
}

func TestDetector(t *testing.T) {
	counter := func(n int) []round {
		var rs []round
		for k := 1; k <= n; k++ {
			rs = append(rs, round{rep("submit", k+1) + " " + rep("wait", k+1), k + 1})
		}
		return rs
	}
	for _, c := range []struct {
		name   string
		rounds []round
		// fires is the 1-based round the finding comes at, 0 for none.
		fires   int
		found   []int // the finding's rounds
		symbols []string
		bounds  []Bound
	}{
		{name: "counter", rounds: counter(6), fires: 3, found: []int{1, 2, 3}, symbols: []string{"submit", "wait"},
			bounds: []Bound{{AtMost: 2, Of: "submit"}}},
		{name: "two counted symbols, in turn", fires: 3, found: []int{1, 2, 3}, rounds: []round{
			{"consume submit wait", 3}, {"consume submit submit wait wait", 4},
			{"consume consume submit submit wait wait wait wait", 6}, {"consume consume submit submit submit wait wait wait wait wait wait", 8},
		}, symbols: []string{"consume", "submit", "wait"}, bounds: []Bound{{AtMost: 1, Of: "consume"}, {AtMost: 1, Of: "submit"}}},
		{name: "a pumped block", fires: 3, found: []int{1, 2, 3}, rounds: []round{
			{"open " + rep("read wait", 1), 2}, {"open " + rep("read wait", 2), 3}, {"open " + rep("read wait", 3), 4}, {"open " + rep("read wait", 4), 5},
		}, symbols: []string{"read", "wait"}, bounds: []Bound{{AtMost: 1, Of: "read"}}},
		{name: "only waits grow", fires: 3, found: []int{1, 2, 3}, rounds: []round{
			{"start wait", 2}, {"start wait wait", 3}, {"start wait wait wait", 4}, {"start wait wait wait wait", 5},
		}, symbols: []string{"wait"}, bounds: []Bound{{AtMost: 1, Of: "wait"}}},
		{name: "one round short", rounds: counter(2)},
		{name: "growing but not repeating", rounds: []round{
			{"a", 2}, {"a b", 3}, {"a b c", 4}, {"a b c a", 5}, {"a b c a b", 6}, {"a b c a b c d", 7},
		}},
		{name: "pumps broken by another word", rounds: []round{
			{"a a", 2}, {"a a a", 3}, {"b c", 4}, {"b c c", 5}, {"d", 6}, {"d d", 7},
		}},
		{name: "hypothesis did not grow", rounds: []round{
			{"a a", 2}, {"a a a", 2}, {"a a a a", 2}, {"a a a a a", 2}, {"a a a a a a", 2},
		}},
		{name: "a round that did not grow, skipped", fires: 4, found: []int{1, 2, 4}, symbols: []string{"a"}, bounds: []Bound{{AtMost: 2, Of: "a"}}, rounds: []round{
			{"a a", 2}, {"a a a", 3}, {"a a a a", 3}, {"a a a a a", 4}, {"a a a a a a", 5},
		}},
		// The first rounds of java.util.concurrent.SubmissionPublisher
		// unrestricted on the jvm backend: submits and consumers in turn.
		{name: "two counters interleaved", fires: 5, found: []int{1, 2, 5}, symbols: []string{"consume", "submit", "wait"},
			bounds: []Bound{{AtMost: 1, Of: "consume"}, {AtMost: 1, Of: "submit"}}, rounds: []round{
				{"consume submit wait", 2}, {"consume submit submit wait wait", 3}, {"consume consume submit wait wait", 4},
				{"consume submit consume wait submit wait wait", 5}, {"consume submit submit submit wait wait wait", 6},
				{"consume consume consume submit wait wait wait", 7}, {"consume submit submit consume wait submit wait wait wait", 8},
				{"consume submit submit submit submit wait wait wait wait", 9},
			}},
		{name: "pumps that shrink in between", rounds: []round{
			{"a b", 2}, {"a a b", 3}, {"a b", 4}, {"a b b", 5}, {"a b", 6}, {"a a b", 7},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := Detector{Passive: []string{"wait"}}
			fired := 0
			for k, r := range c.rounds {
				f := d.Add(k+1, w(r.word), r.states)
				if f == nil {
					continue
				}
				if fired != 0 {
					t.Fatalf("fired again at round %d", k+1)
				}
				fired = k + 1
				if !slices.Equal(f.Symbols, c.symbols) || !slices.Equal(f.Bounds, c.bounds) {
					t.Errorf("symbols %v, bounds %v; want %v, %v", f.Symbols, f.Bounds, c.symbols, c.bounds)
				}
				if !slices.Equal(f.Rounds, c.found) {
					t.Errorf("rounds %v, want %v", f.Rounds, c.found)
				}
			}
			if fired != c.fires {
				t.Errorf("fired at round %d, want %d", fired, c.fires)
			}
		})
	}
}

func TestFindingString(t *testing.T) {
	d := Detector{Passive: []string{"wait"}}
	var f *Finding
	for k := 1; k <= 3; k++ {
		f = d.Add(k, w(rep("submit", k+1)+" "+rep("wait", k+1)), k+1)
	}
	if f == nil {
		t.Fatal("no finding")
	}
	want := "the target seems to count, which no finite model describes: the counterexamples of rounds 1, 2 and 3 each repeat more of submit, wait than the one before (submit^2 wait^2, ..., submit^4 wait^4), and the hypothesis grew from 2 to 4 states"
	if got := f.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got, want := fmt.Sprint(f.Bounds[0]), "{at_most: 2, of: [submit]}"; got != want {
		t.Errorf("bound %q, want %q", got, want)
	}
}
