package dispatch

import (
	"testing"
	"time"

	"github.com/droidstar/droidstar/internal/mealy"
)

// The reset is predicted apart for answers that end in a quiet chain,
// after which the harness spends its settle time, and for the rest; a
// query whose outputs are not known yet is predicted the longer one.
func TestCostModelResetBySettle(t *testing.T) {
	in, out, err := mealy.ClosureAlphabets([]string{"start"}, []string{"fired"})
	if err != nil {
		t.Fatal(err)
	}
	sem := mealy.ClosureSemantics(in, out)
	const ms = time.Millisecond
	var c costModel
	quietEnd, quietOuts := in.MustWord("start", "wait"), out.MustWord("ok", "quiet")
	firedEnd, firedOuts := in.MustWord("start", "wait"), out.MustWord("ok", "fired")
	// quiet: 200ms wait plus 50ms post-reset and 100ms settle
	c.learn(sem, quietEnd, quietOuts, []time.Duration{0, 200 * ms}, 350*ms)
	if got := c.predict(sem, firedEnd, firedOuts); !near(got, 0.150) {
		t.Errorf("before an answer ending on a callback: %v s, want 0.150 (the only reset seen)", got)
	}
	// fired: a 30ms callback plus the post-reset alone
	c.learn(sem, firedEnd, firedOuts, []time.Duration{0, 30 * ms}, 80*ms)
	for _, tc := range []struct {
		outs mealy.Word
		want float64
	}{
		{quietOuts, 0.350},
		{firedOuts, 0.080},
	} {
		if got := c.predict(sem, quietEnd, tc.outs); !near(got, tc.want) {
			t.Errorf("%v: %v s, want %v", out.Format(tc.outs), got, tc.want)
		}
	}
	// blind: the longer reset and the longer wait
	if got, ok := c.predictBlind(sem, quietEnd, nil); !ok || !near(got, 0.150+0.200) {
		t.Errorf("blind: %v s (%v), want 0.350", got, ok)
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
