package query

import (
	"strings"
	"testing"
)

// Each timing problem is told by the query's symbols, with advice that
// fits its cause: stragglers that a dispose call may cause get no advice
// to raise a settle time that runs before it.
func TestTimingWarnings(t *testing.T) {
	r := Result{
		Timing: []Timing{
			{Kind: "between-callins", At: 1, Callback: "prepared"},
			{Kind: "late", At: 3, Callback: "completed"},
		},
		Stragglers: 2,
	}
	q := []string{"prepareAsync", "start", "wait", "wait"}
	want := []string{
		"timing: callback prepared arrived between callins prepareAsync and start with no wait between them (bounded asynchrony does not hold): " +
			"if prepareAsync starts it, a followed_by_wait restriction on prepareAsync makes a wait collect it",
		"timing: callback completed arrived after a wait had answered quiet: timeouts.quiescence is too short for it",
		"timing: callbacks of an earlier query's instance arrived during a later query and were dropped as stragglers: " +
			"if target.dispose (release) causes them, no timeouts.settle helps, since the settle time runs before dispose; " +
			"they change no answer; otherwise a longer timeouts.settle lets them arrive in their own query",
	}
	if got := r.TimingWarnings(q, "release"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	noDispose := Result{Stragglers: 1}.TimingWarnings(q, "")
	wantNoDispose := "timing: callbacks of an earlier query's instance arrived during a later query and were dropped as stragglers: " +
		"a longer timeouts.settle lets them arrive in their own query"
	if len(noDispose) != 1 || noDispose[0] != wantNoDispose {
		t.Errorf("without dispose: %q\nwant %q", noDispose, wantNoDispose)
	}
	if got := (Result{}).TimingWarnings(q, "release"); len(got) != 0 {
		t.Errorf("no problem, warnings %q", got)
	}
}
