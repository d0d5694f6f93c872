package cli

import "testing"

func TestPlural(t *testing.T) {
	for _, tt := range []struct {
		n    int
		word string
		want string
	}{
		{1, "query", "1 query"},
		{0, "query", "0 queries"},
		{2, "query", "2 queries"},
		{1, "state", "1 state"},
		{3, "state", "3 states"},
		{2, "key", "2 keys"},
		{2, "fingerprint", "2 fingerprints"},
		{-1, "answer", "-1 answers"},
	} {
		if got := plural(tt.n, tt.word); got != tt.want {
			t.Errorf("plural(%d, %q) = %q, want %q", tt.n, tt.word, got, tt.want)
		}
	}
}
