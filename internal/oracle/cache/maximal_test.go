package cache

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/droidstar/droidstar/internal/mealy"
)

// maximalWordsByTrie is the plain statement of maximalWords: the missed
// words longest first (ties in batch order), each kept when it adds a
// node to a trie of those before it.
func maximalWordsByTrie(queries []mealy.Word, idx []int) []mealy.Word {
	words := make([]mealy.Word, 0, len(idx))
	for _, k := range idx {
		words = append(words, queries[k])
	}
	sort.SliceStable(words, func(a, b int) bool { return len(words[a]) > len(words[b]) })
	type trie struct{ kids map[int]*trie }
	root := &trie{}
	var out []mealy.Word
	for _, w := range words {
		n, fresh := root, false
		for _, in := range w {
			if n.kids == nil {
				n.kids = map[int]*trie{}
			}
			child := n.kids[in]
			if child == nil {
				child = &trie{}
				n.kids[in] = child
				fresh = true
			}
			n = child
		}
		if fresh {
			out = append(out, w)
		}
	}
	return out
}

func TestMaximalWords(t *testing.T) {
	w := func(s ...int) mealy.Word { return s }
	for _, tt := range []struct {
		name    string
		queries []mealy.Word
		idx     []int
		want    []mealy.Word
	}{
		{name: "one", queries: []mealy.Word{w(1, 0)}, idx: []int{0}, want: []mealy.Word{w(1, 0)}},
		{name: "prefix dropped", queries: []mealy.Word{w(1), w(1, 0), w(0)}, idx: []int{0, 1, 2}, want: []mealy.Word{w(1, 0), w(0)}},
		{name: "duplicates once", queries: []mealy.Word{w(0, 1), w(0, 1), w(0)}, idx: []int{0, 1, 2}, want: []mealy.Word{w(0, 1)}},
		{name: "longest first, ties in batch order", queries: []mealy.Word{w(2), w(1, 1), w(0, 2), w(1, 1, 1)}, idx: []int{0, 1, 2, 3},
			want: []mealy.Word{w(1, 1, 1), w(0, 2), w(2)}},
		{name: "only the missed", queries: []mealy.Word{w(0, 0, 0), w(0, 0), w(1)}, idx: []int{1, 2}, want: []mealy.Word{w(0, 0), w(1)}},
		{name: "empty word under another", queries: []mealy.Word{w(), w(0)}, idx: []int{0, 1}, want: []mealy.Word{w(0)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := maximalWords(tt.queries, tt.idx); !slices.EqualFunc(got, tt.want, mealy.Word.Equal) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// The sorted statement gives the trie's words in the trie's order on
// random batches full of prefixes and duplicates, of words longer than
// the sort keys and of symbols too large for them.
func TestMaximalWordsAgreesWithTrie(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 1000; n++ {
		symbols := 3
		if n%5 == 0 {
			symbols = 300
		}
		queries := make([]mealy.Word, 1+r.IntN(40))
		for k := range queries {
			if k > 0 && r.IntN(3) == 0 {
				// a prefix or a copy of an earlier query
				p := queries[r.IntN(k)]
				queries[k] = slices.Clone(p[:r.IntN(len(p)+1)])
				continue
			}
			queries[k] = make(mealy.Word, 1+r.IntN(12))
			for j := range queries[k] {
				queries[k][j] = r.IntN(symbols)
				if symbols > 3 && r.IntN(2) == 0 {
					queries[k][j] = r.IntN(3)
				}
			}
		}
		var idx []int
		for k := range queries {
			if r.IntN(4) != 0 {
				idx = append(idx, k)
			}
		}
		if len(idx) == 0 {
			continue
		}
		got, want := maximalWords(queries, idx), maximalWordsByTrie(queries, idx)
		if !slices.EqualFunc(got, want, mealy.Word.Equal) {
			t.Fatalf("batch %v missed %v: got %v, want %v", queries, idx, got, want)
		}
	}
}
