package cache

import "testing"

func TestClear(t *testing.T) {
	for _, tc := range []struct {
		votes []int
		want  bool
	}{
		{[]int{5}, true}, {[]int{4, 1}, true}, {[]int{3, 1, 1}, true},
		{[]int{3, 2}, false}, {[]int{2, 2, 1}, false}, {[]int{1, 1}, false}, {[]int{6, 2}, true}, {[]int{4, 4}, false},
	} {
		if got := Clear(tc.votes); got != tc.want {
			t.Errorf("Clear(%v) = %v, want %v", tc.votes, got, tc.want)
		}
	}
}
