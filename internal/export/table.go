package export

import (
	"fmt"

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
	return []Column{
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
}

// Seconds formats a duration in seconds as the summary does: "0.012",
// "4.5 s", "3m20s".
func Seconds(s float64) string { return longSeconds(s) }
