package harness

import (
	"testing"

	"github.com/droidstar/droidstar/internal/purpose"
)

// TestBlames: which configure refusals are the purpose's, shown at its
// line, and which are droidstar's own.
func TestBlames(t *testing.T) {
	p := &purpose.Purpose{File: "p.yaml", Where: map[string]purpose.Pos{
		"target.listeners[1]":      {Line: 7, Col: 7},
		"target.listeners[1].type": {Line: 7, Col: 13},
		"callins[0]":               {Line: 10, Col: 5},
	}}
	c := &Configuration{purpose: p}
	cases := []struct {
		code, where string
		want        bool
		placed      string
	}{
		{"bad-request", "target.listeners[1].type", true, "p.yaml:7:13: target.listeners[1].type: m"},
		{"bad-request", "callins[0].call", true, "p.yaml:10:5: callins[0].call: m"},
		{"bad-request", "target.new", false, ""},
		{"bad-request", "", false, ""},
		{"internal", "callins[0]", false, ""},
		{"unknown-method", "callins[0].call", true, "p.yaml:10:5: callins[0].call: m"},
		{"unknown-class", "class", true, "p.yaml:1:1: class: m"},
	}
	for _, tc := range cases {
		e := &RemoteError{Op: "configure", Code: tc.code, Where: tc.where, Message: "m"}
		if got := c.Blames(e); got != tc.want {
			t.Errorf("Blames(%s at %q) = %v, want %v", tc.code, tc.where, got, tc.want)
			continue
		}
		if tc.want {
			if got := c.PurposeError(e).Error(); got != tc.placed {
				t.Errorf("PurposeError(%s at %q) = %q, want %q", tc.code, tc.where, got, tc.placed)
			}
		}
	}
}
