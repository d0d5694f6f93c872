package export

import (
	"fmt"
	"strings"
	"time"

	"github.com/droidstar/droidstar/internal/model"
)

// Column is one column of the statistics table: its heading and value.
type Column struct {
	Name, Value string
}

// table1Columns is how many of StatsColumns are the DroidStar paper's
// Table 1 (the rest are droidstar's own).
const table1Columns = 6

// StatsColumns are a run's statistics as Summary prints them: the columns
// of the DroidStar paper's Table 1 (states, time, MQ asked (executed), EQ,
// MQ per EQ asked (executed) rounded up, bound used (the bound the learned model
// needs)), then device time (summed over the lanes and devices), the
// estimated wall time on them, cache hits and excluded queries. A missing
// value is "–".
func StatsColumns(s *model.Stats, bound *model.Bound) []Column {
	tot := s.Total()
	perEQ, perEQExec := "–", "–"
	if s.EQs > 0 {
		perEQ = fmt.Sprint(ceilDiv(s.Equivalence.Asked, s.EQs))
		perEQExec = fmt.Sprint(ceilDiv(s.Equivalence.Executed, s.EQs))
	}
	boundCol := "–"
	if bound != nil {
		boundCol = fmt.Sprintf("%d (%d)", bound.Used, bound.LearnedNeeds)
	}
	device := "device time"
	if s.VirtualClock {
		device = "virtual device time"
	}
	// Summed over the lanes, device time says what the devices did; the
	// estimate says what the run takes in real time on them.
	wall := "–"
	if s.EstimatedWallSecs > 0 {
		wall = longSeconds(s.EstimatedWallSecs)
	}
	cols := []Column{
		{"states", fmt.Sprint(s.States)},
		{"time (s)", seconds(s.WallSecs)},
		{"MQ asked (executed)", fmt.Sprintf("%d (%d)", tot.Asked, tot.Executed)},
		{"EQ", fmt.Sprint(s.EQs)},
		{"MQ per EQ asked (executed)", fmt.Sprintf("%s (%s)", perEQ, perEQExec)},
		{"bound used (learned needs)", boundCol},
		{device, longSeconds(s.DeviceSecs)},
		{"estimated wall time", wall},
		{"cache hits", fmt.Sprint(tot.CacheHits)},
		{"excluded", fmt.Sprint(tot.Excluded)},
	}
	if t := s.Timeout; t != nil {
		cols = append(cols, Column{"quiescence timeout", TimeoutText(t)})
	}
	return cols
}

// TimeoutText says what --timeout auto chose and why, after "timeout: ":
// the start, and each wait context raised above it ("exec+2" is the
// second wait after exec, "+1" the first from the initial state; see
// calibrate.Context).
func TimeoutText(t *model.AutoTimeout) string {
	ms := func(v float64) string { return (time.Duration(v * float64(time.Millisecond))).String() }
	var chose string
	switch {
	case len(t.Contexts) > 0:
		raised := make([]string, len(t.Contexts))
		for k, c := range t.Contexts {
			why := fmt.Sprintf("%dx the slowest callback there, %s", calibrationMargin, ms(c.SlowestMs))
			switch {
			case c.TimeoutMs == calibrationMargin*c.SlowestMs:
			case c.TimeoutMs >= t.CeilingMs:
				why = "the ceiling, the purpose's timeouts.quiescence; " + why
			default:
				why = "each raise at least doubles it; " + why
			}
			raised[k] = fmt.Sprintf("%s to %s (%s)", c.Context, ms(c.TimeoutMs), why)
		}
		chose = "raised " + strings.Join(raised, ", ") + "; the other contexts stayed at the start"
	case t.SlowestMs == 0:
		chose = "none raised: no callback was seen"
	default:
		chose = fmt.Sprintf("none raised: %dx the slowest callback seen, %s, is less than the start", calibrationMargin, ms(t.SlowestMs))
	}
	return fmt.Sprintf("auto per wait context, started at %s; %s; raised %s, %s asked again under a longer one, %s",
		ms(t.StartMs), chose, plural(t.Raises, "time"), plural(t.Stale, "quiet answer"), plural(t.Late, "late callback"))
}

// calibrationMargin is internal/oracle/calibrate's Margin, which the
// document does not record (export links no pipeline stage; a test
// keeps the two equal).
const calibrationMargin = 2

// Seconds formats a duration in seconds as the summary does: "0.012",
// "4.5 s", "3m20s".
func Seconds(s float64) string { return longSeconds(s) }
