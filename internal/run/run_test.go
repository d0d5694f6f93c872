package run

import (
	"errors"
	"testing"
)

// A failed run's error carries the timing warnings recorded before it,
// and only those, and stays the error it was (its exit code too).
func TestWithTimingWarnings(t *testing.T) {
	base := errors.New("devices disagree on start wait")
	err := withTimingWarnings(base, []string{
		"the harness on jvm-1 was restarted",
		"timing: callback fired arrived after a wait had answered quiet: timeouts.quiescence is too short for it",
	})
	want := "devices disagree on start wait\ntiming warnings before the stop, which may explain it:\n" +
		"  timing: callback fired arrived after a wait had answered quiet: timeouts.quiescence is too short for it"
	if err.Error() != want || !errors.Is(err, base) {
		t.Fatalf("got %q\nwant %q", err, want)
	}
	if err := withTimingWarnings(base, []string{"the harness on jvm-1 was restarted"}); err != base {
		t.Fatalf("no timing warning: got %q", err)
	}
}
