package cli

import (
	"bytes"
	"context"
	"os"
	"syscall"
	"testing"
	"time"
)

// The first signal stops dispatching (or cancels at once when no run has
// said how); a second SIGINT ends the process with the first signal's
// code, and a second SIGTERM (timeout(1) sends one to the process and one
// to its group) changes nothing.
func TestStopperSignals(t *testing.T) {
	cases := []struct {
		name      string
		hook      bool
		sigs      []os.Signal
		stderr    string
		stopped   int
		cancelled bool
		exit      int // -1: none
	}{
		{name: "SIGINT with a run", hook: true, sigs: []os.Signal{os.Interrupt},
			stderr:  "droidstar: SIGINT: no new queries; the running ones get up to 1h0m0s to finish (interrupt again to stop at once)\n",
			stopped: 1, exit: -1},
		{name: "SIGINT twice", hook: true, sigs: []os.Signal{os.Interrupt, os.Interrupt},
			stderr: "droidstar: SIGINT: no new queries; the running ones get up to 1h0m0s to finish (interrupt again to stop at once)\n" +
				"droidstar: SIGINT again: stopping at once\n",
			stopped: 1, exit: 130},
		{name: "SIGTERM then SIGINT", hook: true, sigs: []os.Signal{syscall.SIGTERM, os.Interrupt},
			stderr: "droidstar: SIGTERM: no new queries; the running ones get up to 1h0m0s to finish (interrupt again to stop at once)\n" +
				"droidstar: SIGINT again: stopping at once\n",
			stopped: 1, exit: 143},
		{name: "SIGTERM twice", hook: true, sigs: []os.Signal{syscall.SIGTERM, syscall.SIGTERM},
			stderr:  "droidstar: SIGTERM: no new queries; the running ones get up to 1h0m0s to finish (interrupt again to stop at once)\n",
			stopped: 1, exit: -1},
		{name: "SIGINT with no run", sigs: []os.Signal{os.Interrupt},
			stderr: "droidstar: SIGINT: stopping\n", cancelled: true, exit: -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			exit := -1
			s := &stopper{stderr: &stderr, cancel: cancel, exit: func(code int) { exit = code }}
			stopped := 0
			if tc.hook {
				release := s.dispatching(func() { stopped++ }, time.Hour)
				defer release()
			}
			for _, sig := range tc.sigs {
				s.signal(sig)
			}
			if stderr.String() != tc.stderr || stopped != tc.stopped || (ctx.Err() != nil) != tc.cancelled || exit != tc.exit {
				t.Errorf("stderr %q, stopped %d times, cancelled %v, exit %d; want %q, %d, %v, %d",
					stderr.String(), stopped, ctx.Err() != nil, exit, tc.stderr, tc.stopped, tc.cancelled, tc.exit)
			}
			if s.received() != tc.sigs[0] {
				t.Errorf("received %v, want %v", s.received(), tc.sigs[0])
			}
		})
	}
}

// The message says what the stop kept: for learn the partial model, for a
// matrix each target on a line of its own.
func TestInterruptedMessage(t *testing.T) {
	cases := []struct {
		e    interruptedError
		want string
	}{
		{interruptedError{sig: os.Interrupt, executed: 12, partial: "out/A.partial.json", size: hypothesisSize{states: 3, sink: true}, store: "q.db"},
			"interrupted by SIGINT: 12 queries executed and kept in the query store q.db; the last hypothesis (3 states + error sink) is in out/A.partial.json; run the same command to resume"},
		{interruptedError{sig: syscall.SIGTERM, executed: 1, partial: "out/A.partial.json"},
			"interrupted by SIGTERM: 1 query executed; no hypothesis yet: the statistics are in out/A.partial.json; run the same command to start again"},
		{interruptedError{sig: os.Interrupt, executed: 40, store: "q.db", targets: []string{"a: learned: out/a.json", "b: not run"}},
			"interrupted by SIGINT: 40 queries executed and kept in the query store q.db; run the same command to resume\n  a: learned: out/a.json\n  b: not run"},
	}
	for _, tc := range cases {
		if got := interruptedMessage(&tc.e); got != tc.want {
			t.Errorf("got  %q\nwant %q", got, tc.want)
		}
	}
}
