package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/droidstar/droidstar/internal/model"
)

// DefaultGrace is how long a stop on SIGINT or SIGTERM waits for the
// queries already running (learn --grace).
const DefaultGrace = 10 * time.Second

// stopper turns SIGINT and SIGTERM into an orderly stop: the first signal
// stops dispatching (when a run has said how) and cancels the command's
// context after a grace period; a second SIGINT ends the process at once.
type stopper struct {
	stderr io.Writer
	cancel context.CancelFunc
	exit   func(int)

	mu    sync.Mutex
	sig   os.Signal
	hook  func() // stops dispatching; nil: cancel at once
	grace time.Duration
	timer *time.Timer
}

// watch handles the signals arriving on sigs until done is closed.
func (s *stopper) watch(sigs <-chan os.Signal, done <-chan struct{}) {
	for {
		select {
		case sig := <-sigs:
			s.signal(sig)
		case <-done:
			return
		}
	}
}

func (s *stopper) signal(sig os.Signal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sig != nil {
		if sig != os.Interrupt {
			// timeout(1) and process supervisors send SIGTERM to the
			// process and to its group, so droidstar gets it twice at
			// once: only a second Ctrl-C means "now".
			return
		}
		fmt.Fprintf(s.stderr, "droidstar: %s again: stopping at once\n", signalName(sig))
		s.exit(exitCode(s.sig))
		return
	}
	s.sig = sig
	if s.hook == nil {
		fmt.Fprintf(s.stderr, "droidstar: %s: stopping\n", signalName(sig))
		s.cancel()
		return
	}
	fmt.Fprintf(s.stderr, "droidstar: %s: no new queries; the running ones get up to %s to finish (interrupt again to stop at once)\n", signalName(sig), s.grace)
	s.hook()
	s.timer = time.AfterFunc(s.grace, s.cancel)
}

// dispatching says how to stop the run now under way gently: stop
// dispatching, and give the running queries grace before cancelling.
// The returned function ends that (the run is over).
func (s *stopper) dispatching(stop func(), grace time.Duration) (release func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hook, s.grace = stop, grace
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.hook = nil
		if s.timer != nil {
			s.timer.Stop()
		}
	}
}

// received is the first signal, or nil.
func (s *stopper) received() os.Signal {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sig
}

// exitCode is the shell's code for a death by sig: 130 for SIGINT, 143
// for SIGTERM.
func exitCode(sig os.Signal) int {
	if n, ok := sig.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return ExitFail
}

func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}

// interruptedError is a command stopped by a signal; its message is the
// one interruptedMessage writes.
type interruptedError struct {
	sig os.Signal
	// executed is the number of queries the devices ran.
	executed int
	// partial is the partial model's file ("" if none was written) and
	// size the last hypothesis's size (no states: none yet).
	partial string
	size    hypothesisSize
	// writeErr is why the partial model could not be written.
	writeErr error
	// store is the query store's file that kept the executed queries, ""
	// when the run had none.
	store string
	// targets, for a run of several (a matrix), say what became of each,
	// one line each; partial, size and writeErr are then unused.
	targets []string
}

func (e *interruptedError) Error() string { return interruptedMessage(e) }

// interruptedMessage is the one place that says what a stop kept, so
// that what a run keeps (a query store, say) is added here alone.
func interruptedMessage(e *interruptedError) string {
	msg := fmt.Sprintf("interrupted by %s: %s executed", signalName(e.sig), plural(e.executed, "query"))
	if e.store != "" {
		msg += " and kept in the query store " + e.store
	}
	if e.targets == nil {
		if note := partialNote(e.partial, e.size, e.writeErr); note != "" {
			msg += "; " + note
		}
	}
	if e.store != "" {
		msg += "; run the same command to resume"
	} else {
		msg += "; run the same command to start again"
	}
	for _, t := range e.targets {
		msg += "\n  " + t
	}
	return msg
}

// hypothesisSize is a partial model's size as the progress display and
// the summary count it: the typestate's states, and the error sink apart.
type hypothesisSize struct {
	states int  // 0: no hypothesis yet
	sink   bool // the model also has the error sink
}

// sizeOf measures a partial model document.
func sizeOf(doc *model.Document) hypothesisSize {
	if doc.Stats == nil || doc.Stats.States == 0 {
		return hypothesisSize{states: len(doc.States)}
	}
	return hypothesisSize{states: doc.Stats.States, sink: len(doc.States) > doc.Stats.States}
}

func (h hypothesisSize) String() string {
	if h.sink {
		return plural(h.states, "state") + " + error sink"
	}
	return plural(h.states, "state")
}

// partialNote says where a stopped run's partial model is: the last
// hypothesis of that size, or (no states) the statistics alone.
func partialNote(file string, size hypothesisSize, writeErr error) string {
	switch {
	case writeErr != nil:
		return fmt.Sprintf("writing the partial model failed: %v", writeErr)
	case file == "":
		return ""
	case size.states > 0:
		return fmt.Sprintf("the last hypothesis (%s) is in %s", size, file)
	}
	return "no hypothesis yet: the statistics are in " + file
}

// interrupted reports err as a stop by the stopper's signal, with the
// signal's exit code, when one arrived.
func (s *stopper) interrupted(err error) error {
	sig := s.received()
	if sig == nil || err == nil {
		return err
	}
	var ie *interruptedError
	if errors.As(err, &ie) {
		return &exitError{code: exitCode(sig), err: err}
	}
	if errors.Is(err, context.Canceled) {
		return &exitError{code: exitCode(sig), err: fmt.Errorf("interrupted by %s", signalName(sig))}
	}
	return &exitError{code: exitCode(sig), err: fmt.Errorf("interrupted by %s: %w", signalName(sig), err)}
}
