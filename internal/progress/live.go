package progress

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/droidstar/droidstar/internal/engine"
)

// refreshRate paces redraws. The clock shows whole seconds and snapshots
// come a few times a second, so drawing faster would only cost CPU and,
// over SSH, bandwidth.
const refreshRate = 250 * time.Millisecond

// maxBar caps the phase bar: on a wide terminal a full-width bar would
// push the estimate of what is left far from the numbers it belongs to.
const maxBar = 30

// bars is the live display: a single mpb bar whose decorators read the
// latest snapshot. The bar's own line holds what a watcher looks for
// first, the phase and what is left of it, short enough for an 80-column
// terminal; the counts and the devices go on extra lines below it, where
// a narrow terminal may cut them. One bar rather than one per device,
// because devices may come and go during a run and Update should never
// have to wait on mpb to add or drop a bar.
type bars struct {
	p    *mpb.Progress
	main *mpb.Bar
}

func startBars(d *Display, width int) *bars {
	// Auto refresh is forced because mpb otherwise draws nothing to a
	// writer that is not a terminal; the caller asked for a live display
	// and gets one, which also lets tests render into a buffer.
	p := mpb.New(
		mpb.WithOutput(d.out),
		mpb.WithWidth(width),
		mpb.WithAutoRefresh(),
		mpb.WithRefreshRate(refreshRate),
	)
	main := p.MustAdd(0, mpb.BarFillerFunc(d.fillBar),
		mpb.BarFillerTrim(),
		mpb.PrependDecorators(decor.Any(d.phaseText)),
		mpb.AppendDecorators(decor.Any(d.leftText)),
		mpb.BarExtender(mpb.BarFillerFunc(d.fillDetail), false),
		// Removing the bar on completion makes mpb erase its lines in
		// the last frame, so Finish's summary is all that stays.
		mpb.BarRemoveOnComplete(),
	)
	return &bars{p: p, main: main}
}

// stop completes the bar and waits until mpb has drawn its last frame
// and all its goroutines are gone.
func (b *bars) stop() {
	b.main.SetTotal(-1, true)
	b.p.Wait()
}

// view is what one frame shows.
type view struct {
	s       engine.Snapshot
	elapsed time.Duration
	left    time.Duration
	leftOK  bool
}

// view runs the clock on from the last snapshot, so elapsed time and the
// estimate keep moving while a long query holds up the next snapshot.
func (d *Display) view() view {
	d.mu.Lock()
	defer d.mu.Unlock()
	v := view{s: d.cur, elapsed: d.cur.Elapsed}
	v.left, v.leftOK = eta(d.cur, d.start)
	if since := d.now().Sub(d.seenAt); !d.finished && since > 0 {
		v.elapsed += since
		v.left = max(v.left-since, 0)
	}
	return v
}

func (d *Display) phaseText(decor.Statistics) string {
	return phaseName(d.view().s.Phase, "starting")
}

func (d *Display) leftText(decor.Statistics) string {
	v := d.view()
	text := clockOr(v.left, v.leftOK) + " left" + sep + clock(v.elapsed) + " elapsed"
	if !measured(v.s) {
		return text
	}
	return doneOfTotal(v.s) + sep + text
}

// fillBar draws the phase's progress between its name and the estimate,
// or just a separator while the phase's size is unknown.
func (d *Display) fillBar(w io.Writer, st decor.Statistics) error {
	done, total := fraction(d.view().s)
	inner := min(st.AvailableWidth-4, maxBar) // 4: " [" and "] "
	if total <= 0 || inner < 5 {
		if st.AvailableWidth >= utf8.RuneCountInString(sep) {
			_, err := io.WriteString(w, sep)
			return err
		}
		return nil
	}
	full := inner * min(max(done, 0), total) / total
	_, err := fmt.Fprintf(w, " [%s%s] ", strings.Repeat("=", full), strings.Repeat("-", inner-full))
	return err
}

// fillDetail puts the counts below the bar, and a line per device once
// there are two or more; with one device the counts already say it all.
func (d *Display) fillDetail(w io.Writer, st decor.Statistics) error {
	s := d.view().s
	lines := []string{"  " + counts(s)}
	if len(s.Devices) > 1 {
		lines = append(lines, deviceLines(s.Devices, true)...)
	}
	for _, line := range lines {
		// mpb counts lines to move the cursor back up; a line the
		// terminal wraps would throw that count off.
		if _, err := io.WriteString(w, truncate(line, st.AvailableWidth)+"\n"); err != nil {
			return err
		}
	}
	return nil
}

func truncate(s string, width int) string {
	if width <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= width {
		return s
	}
	r := []rune(s)
	return string(r[:width-1]) + "…"
}
