package progress

import (
	"fmt"
	"strings"
	"time"

	"github.com/droidstar/droidstar/internal/engine"
	"github.com/droidstar/droidstar/internal/nouns"
)

// prefix marks plain-mode lines, which end up interleaved with other
// tools' output in CI logs.
const prefix = "droidstar: "

// sep separates the parts of a line.
const sep = " · "

// statusLine is the plain-mode progress line without its prefix.
func statusLine(s engine.Snapshot, start phaseStart) string {
	var b strings.Builder
	b.WriteString(phaseName(s.Phase, "starting"))
	if measured(s) {
		fmt.Fprintf(&b, " (%s, %s left)", doneOfTotal(s), clockOr(eta(s, start)))
	}
	b.WriteString(sep)
	b.WriteString(counts(s))
	b.WriteString(sep)
	b.WriteString(clock(s.Elapsed) + " elapsed")
	return b.String()
}

// counts is the part of a line every mode shares: hypothesis size, where
// the answers came from and the device time they cost.
func counts(s engine.Snapshot) string {
	return fmt.Sprintf("hypothesis %s%s%d executed, %d from cache, %d excluded%sdevice %.1f s",
		plural(s.States, "state"), sep, s.Executed, s.CacheHits, s.Excluded, sep, s.DeviceSecs)
}

// summary is the closing output of plain and live mode alike, so a run
// reads the same in a terminal scrollback as in a CI log.
func summary(s engine.Snapshot) string {
	var b strings.Builder
	b.WriteString(prefix)
	b.WriteString(phaseName(s.Phase, "finished"))
	b.WriteString(sep)
	fmt.Fprintf(&b, "hypothesis %s%s%s%s",
		plural(s.States, "state"), sep, plural(s.Round, "equivalence round"), sep)
	fmt.Fprintf(&b, "%d asked: %d executed, %d from cache, %d excluded%sdevice %.1f s%s%s elapsed\n",
		s.Asked, s.Executed, s.CacheHits, s.Excluded, sep, s.DeviceSecs, sep, clock(s.Elapsed))
	if len(s.Devices) > 1 {
		for _, line := range deviceLines(s.Devices, false) {
			b.WriteString(prefix + line + "\n")
		}
	}
	return b.String()
}

// deviceLines gives one aligned line per device, so a device that lags
// behind the others stands out.
func deviceLines(devs []engine.Device, state bool) []string {
	w := 0
	for _, dv := range devs {
		w = max(w, len(dv.Serial))
	}
	lines := make([]string, 0, len(devs))
	for _, dv := range devs {
		busy := ""
		if state {
			busy = "idle  "
			if dv.Busy {
				busy = "busy  "
			}
		}
		lines = append(lines, fmt.Sprintf("  %-*s  %s%d executed%sdevice %.1f s",
			w, dv.Serial, busy, dv.Executed, sep, dv.DeviceSecs))
	}
	return lines
}

// measured says whether the phase has a size: steps, or an estimate of
// its queries.
func measured(s engine.Snapshot) bool { return s.Total > 0 || s.QueriesTotal > 0 }

// fraction is how far the phase has got, as done of total: its steps
// when it has them, else its queries.
func fraction(s engine.Snapshot) (done, total int) {
	if s.Total > 0 {
		return s.Done, s.Total
	}
	return s.Queries, s.QueriesTotal
}

func doneOfTotal(s engine.Snapshot) string {
	var parts []string
	if s.Total > 0 {
		text := fmt.Sprintf("%d/%d", s.Done, s.Total)
		if s.Unit != "" {
			text += " " + s.Unit
		}
		parts = append(parts, text)
	}
	if s.QueriesTotal > 0 {
		parts = append(parts, fmt.Sprintf("%d of about %s run", s.Queries, plural(s.QueriesTotal, "query")))
	}
	return strings.Join(parts, ", ")
}

// eta extrapolates the pace of the current phase so far over what is
// left of it. The pace counts only the queries run (or steps done) since
// the phase was first seen: a phase first seen half done has no known
// pace yet. Until it has one, the run's own pace per query run on a
// device is spread over the queries the phase is expected to run, so
// that a phase has an estimate from its first snapshot once any query of
// the run has run.
func eta(s engine.Snapshot, start phaseStart) (time.Duration, bool) {
	if s.Total > 0 && s.Done >= s.Total {
		return 0, true
	}
	queriesLeft := max(s.QueriesTotal-s.Queries, 0)
	if s.Total <= 0 && s.QueriesTotal > 0 && queriesLeft == 0 {
		return 0, true
	}
	if spent := s.Elapsed - start.elapsed; start.phase == s.Phase && spent > 0 {
		// The queries the devices ran since the phase was first seen
		// pace it best: they are what takes the time, where a step
		// (a transition of a round) may take minutes or, answered by
		// the cache, nothing.
		if ran := s.Queries - start.queries; ran > 0 && queriesLeft > 0 {
			return pace(spent, ran, queriesLeft), true
		}
		if steps := s.Done - start.done; s.Total > 0 && steps > 0 {
			return pace(spent, steps, s.Total-s.Done), true
		}
	}
	if s.QueriesTotal > 0 && s.Executed > 0 && s.Elapsed > 0 {
		return pace(s.Elapsed, s.Executed, queriesLeft), true
	}
	return 0, false
}

// pace is what is left of something that took spent for done of it.
func pace(spent time.Duration, done, left int) time.Duration {
	return time.Duration(float64(spent) / float64(done) * float64(left))
}

// clockOr formats an estimate as "about 1:10", or "?" when there is none.
func clockOr(d time.Duration, ok bool) string {
	if !ok {
		return "?"
	}
	return "about " + clock(d)
}

// clock formats a duration as a wall clock would, m:ss or h:mm:ss:
// readers compare it with a watch, and fractions of seconds are noise
// next to runs of minutes.
func clock(d time.Duration) string {
	d = d.Round(time.Second)
	if d < 0 {
		d = 0
	}
	h := int(d / time.Hour)
	m := int(d % time.Hour / time.Minute)
	sec := int(d % time.Minute / time.Second)
	if h > 0 {
		return fmt.Sprintf("%d:%02d:%02d", h, m, sec)
	}
	return fmt.Sprintf("%d:%02d", m, sec)
}

func phaseName(phase, empty string) string {
	if phase == "" {
		return empty
	}
	return phase
}

func plural(n int, noun string) string { return nouns.Count(n, noun) }
