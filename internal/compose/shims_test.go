package compose

import (
	"errors"
	"testing"

	"github.com/droidstar/droidstar/internal/purpose"
)

// A device's refusal of a listener class without a shim says why droidstar
// generated none on this host; other errors pass as they are.
func TestWithShimHint(t *testing.T) {
	refusal := func() error {
		return purpose.ErrorList{{File: "p.yaml", Line: 7, Col: 13, Field: "target.listeners[0].type",
			Msg: "android.animation.AnimatorListenerAdapter is neither an interface nor a class with a shim"}}
	}
	err := withShimHint(refusal(), "it found no JDK to compile them with")
	want := "p.yaml:7:13: target.listeners[0].type: android.animation.AnimatorListenerAdapter is neither an interface" +
		" nor a class with a shim; droidstar generates shims for abstract listener classes on this host, but it found" +
		" no JDK to compile them with"
	if err.Error() != want {
		t.Errorf("got  %s\nwant %s", err, want)
	}
	if err := withShimHint(refusal(), ""); err.Error() != refusal().Error() {
		t.Errorf("nothing skipped: %s", err)
	}
	other := errors.New("no device")
	if err := withShimHint(other, "it found no JDK"); err != other {
		t.Errorf("another error: %v", err)
	}
}
