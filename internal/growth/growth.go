// Package growth tells, from the counterexamples of successive equivalence
// rounds, when a target looks non-regular: a class that counts (n submits
// deliver n items) makes each round's counterexample the last one with one
// more repetition of the same symbols, and the learner adds a state per
// round for ever. No finite model is right then, and only a restriction
// that bounds the repeated symbols (at_most) ends the run; the package
// names them so that a user can write one.
package growth

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Streak is how many pumps in a chain the detector waits for: one happens
// by chance on ordinary targets (a counterexample one symbol longer than
// an earlier one), two in a chain with the hypothesis growing each time
// did not on any target we checked (the bundled examples, DroidStar's
// six, the public Mealy models, random machines of up to 2,000 states;
// see internal/bench's growth tests), and two is what lets a class that
// counts two things in turn (SubmissionPublisher) be told within five
// rounds.
const Streak = 2

// maxBlock is the longest repeated block the alignment looks for: the
// pumped part of a counting class is a symbol or two (submit, or consume
// wait), and longer blocks make chance matches likelier and the
// alignment slower.
const maxBlock = 4

// maxWord is the longest counterexample the alignment compares; longer
// ones (a conformance test's random walks) are not taken for a pump.
const maxWord = 2000

// Finding is a run of rounds whose counterexamples each repeated more of
// the same symbols than the one before.
type Finding struct {
	// Rounds are the equivalence rounds of the counterexamples, oldest
	// first: Streak+1 of them, each a pump of the one before.
	Rounds []int
	// Words are those counterexamples, as the symbols' names.
	Words [][]string
	// Symbols are the symbols the repetitions added, in the order they
	// first occur in the counterexamples, the latest first.
	Symbols []string
	// Bounds are the restrictions that would stop the growth: at most
	// as many of each counted symbol as the earliest counterexample that
	// a pump of it started from has, which keeps the behaviour that round
	// already showed.
	Bounds []Bound
	// States are the hypotheses' sizes in those rounds.
	States []int
}

// Bound is one suggested at_most restriction.
type Bound struct {
	AtMost int
	Of     string
}

// String is the bound as a restrictions item of a purpose file, in YAML's
// flow style.
func (b Bound) String() string { return fmt.Sprintf("{at_most: %d, of: [%s]}", b.AtMost, b.Of) }

// String says what grew, in a line: the symbols, the rounds and the words
// in a compact notation (submit^5 wait^5).
func (f Finding) String() string {
	var rs []string
	for _, r := range f.Rounds {
		rs = append(rs, strconv.Itoa(r))
	}
	rounds := strings.Join(rs[:len(rs)-1], ", ") + " and " + rs[len(rs)-1]
	return fmt.Sprintf("the target seems to count, which no finite model describes: the counterexamples of rounds %s each repeat more of %s than the one before (%s, ..., %s), and the hypothesis grew from %d to %d states",
		rounds, strings.Join(f.Symbols, ", "), Compact(f.Words[0]), Compact(f.Words[len(f.Words)-1]), f.States[0], f.States[len(f.States)-1])
}

// Compact writes a word with runs folded: submit submit wait is
// "submit^2 wait".
func Compact(w []string) string {
	var parts []string
	for i := 0; i < len(w); {
		j := i
		for j < len(w) && w[j] == w[i] {
			j++
		}
		if j-i == 1 {
			parts = append(parts, w[i])
		} else {
			parts = append(parts, fmt.Sprintf("%s^%d", w[i], j-i))
		}
		i = j
	}
	if len(parts) == 0 {
		return "(empty)"
	}
	return strings.Join(parts, " ")
}

// Detector watches one run's rounds. Passive names the symbols a
// restriction should not count even when they repeat: the closure's wait
// only collects what the other inputs caused, so bounding those bounds it.
type Detector struct {
	Passive []string

	rounds []int
	words  [][]string
	states []int
	// depth[k] is the longest chain of pumps that ends at words[k], and
	// parent[k] the word before it in that chain (-1: none).
	depth, parent []int
	// links are every pump seen: a class that counts two things (items
	// and consumers) alternates its counterexamples between them, so a
	// counterexample pumps an earlier one, not always the last.
	links []link
	fired bool
}

// link is one pump: words[to] repeats more of added than words[from].
type link struct {
	from, to int
	added    []string
}

// Add records round's counterexample and the size of the hypothesis it
// refuted, and returns a finding the first time a chain of Streak pumps
// ends at it (each counterexample in it the one before with more of the
// same symbols, each from a larger hypothesis); later calls return nil.
func (d *Detector) Add(round int, word []string, states int) *Finding {
	to := len(d.words)
	depth, parent := 0, -1
	for k := range d.words {
		added, ok := Pumped(d.words[k], word)
		if !ok || states <= d.states[k] {
			continue
		}
		d.links = append(d.links, link{from: k, to: to, added: added})
		if d.depth[k]+1 > depth {
			depth, parent = d.depth[k]+1, k
		}
	}
	d.rounds = append(d.rounds, round)
	d.words = append(d.words, slices.Clone(word))
	d.states = append(d.states, states)
	d.depth, d.parent = append(d.depth, depth), append(d.parent, parent)
	if d.fired || depth < Streak {
		return nil
	}
	d.fired = true
	var chain []int
	for k := to; k >= 0; k = d.parent[k] {
		chain = append([]int{k}, chain...)
	}
	f := &Finding{}
	for _, k := range chain {
		f.Rounds = append(f.Rounds, d.rounds[k])
		f.Words = append(f.Words, d.words[k])
		f.States = append(f.States, d.states[k])
	}
	// The symbols are those of every pump that took part in a chain of
	// two or more: the chain's own, and another counted symbol growing
	// beside it, which one restriction less would leave to the next run.
	first := map[string]int{} // symbol: the index of the earliest word a pump of it started from
	for _, l := range d.links {
		if d.depth[l.to] < Streak-1 && !slices.Contains(chain, l.to) {
			continue
		}
		for _, s := range l.added {
			if k, seen := first[s]; !seen || l.from < k {
				first[s] = l.from
			}
		}
	}
	for _, w := range append([][]string{word}, d.words...) {
		for _, s := range w {
			if _, grown := first[s]; grown && !slices.Contains(f.Symbols, s) {
				f.Symbols = append(f.Symbols, s)
			}
		}
	}
	counted := slices.DeleteFunc(slices.Clone(f.Symbols), func(s string) bool { return slices.Contains(d.Passive, s) })
	if len(counted) == 0 {
		// Only passive symbols grew: bounding them is all there is.
		counted = f.Symbols
	}
	for _, s := range counted {
		f.Bounds = append(f.Bounds, Bound{AtMost: max(1, count(d.words[first[s]], s)), Of: s})
	}
	return f
}

func count(w []string, s string) int {
	n := 0
	for _, x := range w {
		if x == s {
			n++
		}
	}
	return n
}

// Pumped says whether next is prev with blocks inserted, each block a
// repetition of the block just before it in next (x u z becomes x u u z,
// for one or more places), and returns the inserted symbols, in order.
// next must be longer; a word that grew any other way is no pump.
func Pumped(prev, next []string) ([]string, bool) {
	n, m := len(prev), len(next)
	if m <= n || m > maxWord {
		return nil, false
	}
	// reach[i][j]: prev[:i] aligns with next[:j]; from[i][j] says how
	// (0: matched a symbol, L > 0: inserted a block of L).
	reach := make([][]bool, n+1)
	from := make([][]int8, n+1)
	for i := range reach {
		reach[i] = make([]bool, m+1)
		from[i] = make([]int8, m+1)
	}
	reach[0][0] = true
	for i := 0; i <= n; i++ {
		for j := 0; j <= m; j++ {
			if !reach[i][j] {
				continue
			}
			if i < n && j < m && prev[i] == next[j] && !reach[i+1][j+1] {
				reach[i+1][j+1], from[i+1][j+1] = true, 0
			}
			for l := 1; l <= maxBlock && l <= j && j+l <= m; l++ {
				if !reach[i][j+l] && slices.Equal(next[j-l:j], next[j:j+l]) {
					reach[i][j+l], from[i][j+l] = true, int8(l)
				}
			}
		}
	}
	if !reach[n][m] {
		return nil, false
	}
	var added []string
	for i, j := n, m; i > 0 || j > 0; {
		if l := int(from[i][j]); l > 0 {
			added = append(slices.Clone(next[j-l:j]), added...)
			j -= l
			continue
		}
		i, j = i-1, j-1
	}
	return added, true
}
