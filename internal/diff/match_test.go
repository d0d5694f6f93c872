package diff

import (
	"math/rand"
	"reflect"
	"testing"
)

// bestWeight is the heaviest total weight of a matching that uses only
// positive pairs, by trying every one.
func bestWeight(w [][]int64) int64 {
	used := make([]bool, len(w[0]))
	var rec func(r int) int64
	rec = func(r int) int64 {
		if r == len(w) {
			return 0
		}
		best := rec(r + 1) // r unmatched
		for c := range used {
			if !used[c] && w[r][c] > 0 {
				used[c] = true
				if v := w[r][c] + rec(r+1); v > best {
					best = v
				}
				used[c] = false
			}
		}
		return best
	}
	return rec(0)
}

func TestMaxWeightMatchingIsHeaviest(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for trial := 0; trial < 400; trial++ {
		rows, cols := 1+rng.Intn(6), 1+rng.Intn(6)
		w := make([][]int64, rows)
		for r := range w {
			w[r] = make([]int64, cols)
			for c := range w[r] {
				if rng.Intn(4) > 0 {
					w[r][c] = int64(rng.Intn(5)) // many ties and zeros
				}
			}
		}
		m, err := maxWeightMatching(w)
		if err != nil {
			t.Fatal(err)
		}
		var total int64
		seen := map[int]bool{}
		for r, c := range m {
			if c < 0 {
				continue
			}
			if seen[c] || w[r][c] <= 0 {
				t.Fatalf("%v: not a matching of positive pairs: %v", w, m)
			}
			seen[c] = true
			total += w[r][c]
		}
		if want := bestWeight(w); total != want {
			t.Fatalf("%v: matching %v weighs %d, the heaviest %d", w, m, total, want)
		}
		again, _ := maxWeightMatching(w)
		if !reflect.DeepEqual(again, m) {
			t.Fatalf("%v: %v then %v", w, m, again)
		}
	}
}

func TestMaxWeightMatchingEdgeCases(t *testing.T) {
	cases := []struct {
		w    [][]int64
		want []int
	}{
		{nil, []int{}},
		{[][]int64{{0, 0}}, []int{-1}},
		{[][]int64{{3}}, []int{0}},
		// The greedy choice (row 0 takes its heaviest, column 0) is not the best.
		{[][]int64{{5, 4}, {4, 0}}, []int{1, 0}},
		{[][]int64{{1}, {2}, {3}}, []int{-1, -1, 0}},
	}
	for _, c := range cases {
		got, err := maxWeightMatching(c.w)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v: %v (%v), want %v", c.w, got, err, c.want)
		}
	}
}
