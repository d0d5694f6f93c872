// Package progress shows how a learning run is getting on: a live display
// of bars when stderr is a terminal, throttled log lines when it is not
// (CI logs would otherwise fill up with redraws), or nothing at all.
//
// The learning engine pushes snapshots (engine.Snapshot); the Display never asks for them,
// so it needs no knowledge of the learner and can be fed from any
// goroutine.
package progress

import (
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/droidstar/droidstar/internal/engine"
)

// Options configure a Display.
type Options struct {
	Out      io.Writer // normally os.Stderr; nil means os.Stderr
	Terminal bool      // live display when true; plain log lines when false
	Quiet    bool      // nothing at all
	// Interval throttles plain mode to at most one line per interval
	// (default 10s); a phase change always gets a line. The first line
	// waits one interval, so a run shorter than that prints nothing, not
	// even the final summary.
	Interval time.Duration
	// Width is the live display's width when Out is not a terminal (mpb's
	// default of 80 when 0); a terminal's own width always wins.
	Width int
	Now   func() time.Time // for tests; default time.Now
}

type mode int

const (
	quiet mode = iota
	plain
	live
)

// Display renders snapshots. Update and Finish may be called from any
// goroutine. Finish must be called once the run ends, also on error, or
// the live display's goroutines keep running and the terminal is left
// with half a frame on it.
type Display struct {
	out      io.Writer
	mode     mode
	interval time.Duration
	now      func() time.Time

	mu       sync.Mutex
	cur      engine.Snapshot
	seenAt   time.Time // when cur arrived; the live view runs the clock on from there
	start    phaseStart
	printed  bool      // plain: a line has been written
	created  time.Time // plain: a run shorter than one interval prints nothing
	lastLine time.Time // plain: when it was written
	finished bool

	finish sync.Once
	bars   *bars // live mode only
}

// phaseStart remembers where the current phase began, so the estimate
// uses this phase's pace rather than the whole run's: an equivalence
// round is far slower per step than filling the table.
type phaseStart struct {
	phase   string
	elapsed time.Duration
	done    int
	queries int
}

// New starts a display. In live mode its rendering goroutines run until
// Finish.
func New(o Options) *Display {
	d := &Display{out: o.Out, interval: o.Interval, now: o.Now}
	if d.out == nil {
		d.out = os.Stderr
	}
	if d.interval <= 0 {
		d.interval = 10 * time.Second
	}
	if d.now == nil {
		d.now = time.Now
	}
	d.seenAt = d.now()
	d.created = d.seenAt
	switch {
	case o.Quiet:
		d.mode = quiet
	case o.Terminal:
		d.mode = live
		d.bars = startBars(d, o.Width)
	default:
		d.mode = plain
	}
	return d
}

// IsTerminal says whether f is an interactive terminal, i.e. whether a
// live display on it would be seen rather than logged.
func IsTerminal(f *os.File) bool {
	return f != nil && term.IsTerminal(int(f.Fd()))
}

// Update records the run's state. It is cheap: live mode only stores the
// snapshot for the next frame, plain mode writes a line at most once per
// interval. Updates after Finish are ignored.
func (d *Display) Update(s engine.Snapshot) {
	if d.mode == quiet {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.finished {
		return
	}
	changed := d.record(s)
	if d.mode != plain {
		return
	}
	now := d.now()
	// A run over within one interval needs no log lines: the summary says
	// it all, and short runs (tests, the simulator) stay quiet.
	if !d.printed && now.Sub(d.created) < d.interval {
		return
	}
	if d.printed && !changed && now.Sub(d.lastLine) < d.interval {
		return
	}
	d.printed, d.lastLine = true, now
	io.WriteString(d.out, prefix+statusLine(d.cur, d.start)+"\n")
}

// record stores s as the current snapshot and reports whether it begins
// a new phase. Callers hold d.mu.
func (d *Display) record(s engine.Snapshot) (changed bool) {
	// The caller may reuse its slice for the next snapshot while a frame
	// is still reading this one.
	s.Devices = append([]engine.Device(nil), s.Devices...)
	changed = s.Phase != d.start.phase
	if changed {
		d.start = phaseStart{phase: s.Phase, elapsed: s.Elapsed, done: s.Done, queries: s.Queries}
	}
	d.cur, d.seenAt = s, d.now()
	return changed
}

// Finish shows final as the run's outcome: its Phase names the outcome
// ("learned", "interrupted"; empty reads "finished"). Live mode clears
// the bars first so only the summary stays on screen. Later calls do
// nothing; concurrent ones return once the first has finished.
func (d *Display) Finish(final engine.Snapshot) {
	d.finish.Do(func() {
		if d.mode == quiet {
			return
		}
		d.mu.Lock()
		d.record(final)
		d.finished = true
		d.mu.Unlock()
		if d.bars != nil {
			// Not under d.mu: the last frames are drawn while we wait,
			// and drawing takes the lock.
			d.bars.stop()
		}
		if d.mode == plain && !d.printed {
			return
		}
		io.WriteString(d.out, summary(final))
	})
}
