package nouns

import "testing"

func TestCount(t *testing.T) {
	cases := []struct {
		n    int
		noun string
		want string
	}{
		{0, "state", "0 states"},
		{1, "state", "1 state"},
		{2, "state", "2 states"},
		{1, "query", "1 query"},
		{3, "query", "3 queries"},
		{2, "day", "2 days"},
		{1, "callback", "1 callback"},
		{5, "callback", "5 callbacks"},
		{2, "y", "2 ys"},
		{2, "key", "2 keys"},
		{2, "fingerprint", "2 fingerprints"},
		{-1, "answer", "-1 answers"},
	}
	for _, c := range cases {
		if got := Count(c.n, c.noun); got != c.want {
			t.Errorf("Count(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
	if got := Of(1, "device"); got != "device" {
		t.Errorf("Of(1, device) = %q", got)
	}
}
