package cli

import (
	"fmt"
	"io"
	"reflect"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/droidstar/droidstar/examples"
	"github.com/droidstar/droidstar/internal/bench"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/run"
)

// timeoutRow is one target learned with its fixed timeout and with
// --timeout auto, on one lane.
type timeoutRow struct {
	name                  string
	ceiling               time.Duration
	settled               *model.AutoTimeout
	fixedSecs, autoSecs   float64
	sameModel, bothTarget bool
}

// benchTimeout learns the examples with latency ranges, and DroidStar's six
// under the bundled examples' latencies when the shared data is there,
// with the fixed timeout and with --timeout auto, and compares the
// device-seconds on one lane. It returns how many learned models differ
// from their targets or from each other.
func benchTimeout(c *cobra.Command, out io.Writer, shared string) (int, error) {
	start := run.DefaultTimeoutStart
	fmt.Fprintf(out, "Calibrated quiescence: --timeout auto (one timeout per wait context, from %s, %dx the slowest callback seen in it, never above the fixed timeout)\n", start, run.TimeoutMargin)
	fmt.Fprintf(out, "beside the fixed timeout, one lane, --pad %d, the bound oracle alone; same model: both learned the same\n", run.Defaults().Pad.Learning)
	fmt.Fprintln(out, "transitions and equal the target. Bundled examples with latency ranges, under their documented latencies:")
	var rows []timeoutRow
	bad := 0
	for _, name := range examples.Names() {
		p, err := examples.Purpose(name)
		if err != nil {
			return bad, err
		}
		s := p.Backend.Sim
		if s == nil || (len(s.LatencyMax) == 0 && s.DefaultLatencyMax == 0) {
			continue
		}
		fixed, err := bench.RunExampleRun(c.Context(), name, bench.ExampleRun{Pad: run.Defaults().Pad})
		if err != nil {
			return bad, err
		}
		auto, err := bench.RunExampleRun(c.Context(), name, bench.ExampleRun{Pad: run.Defaults().Pad, Timeout: run.TimeoutAuto})
		if err != nil {
			return bad, err
		}
		rows = append(rows, timeoutRow{name: name, ceiling: p.Timeouts.Quiescence, settled: auto.Timeout,
			fixedSecs: fixed.DeviceSecs, autoSecs: auto.DeviceSecs,
			sameModel: reflect.DeepEqual(fixed.Transitions, auto.Transitions), bothTarget: fixed.Equal && auto.Equal})
	}
	n, err := timeoutTable(out, "example", rows)
	bad += n
	if err != nil || shared == "" {
		return bad, err
	}
	fmt.Fprintln(out, "DroidStar's six under the latencies of the bundled example of the same class (our assumptions, documented")
	fmt.Fprintln(out, "in each example's purpose; DroidStar measured none), with DroidStar's own timeouts:")
	rows = nil
	for _, cs := range bench.DroidStarCases {
		fixed, err := bench.RunDroidStarCaseWith(c.Context(), shared, cs, bench.DroidStarRun{Lanes: 1, Pad: run.Defaults().Pad, Latencies: true})
		if err != nil {
			return bad, err
		}
		auto, err := bench.RunDroidStarCaseWith(c.Context(), shared, cs, bench.DroidStarRun{Lanes: 1, Pad: run.Defaults().Pad, Latencies: true, Timeout: run.TimeoutAuto})
		if err != nil {
			return bad, err
		}
		rows = append(rows, timeoutRow{name: cs.Class, ceiling: cs.Quiescence, settled: auto.Timeout,
			fixedSecs: fixed.DeviceSecs, autoSecs: auto.DeviceSecs,
			sameModel: reflect.DeepEqual(fixed.Transitions, auto.Transitions), bothTarget: fixed.Equal && auto.Equal})
	}
	n, err = timeoutTable(out, "class", rows)
	return bad + n, err
}

func timeoutTable(out io.Writer, first string, rows []timeoutRow) (int, error) {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "%s\tfixed timeout\tcontexts raised\tlongest settled\tslowest callback\traises\tfixed device-s\tauto device-s\tauto/fixed\tsame model\t\n", first)
	bad := 0
	var ratios []float64
	var sumFixed, sumAuto float64
	for _, r := range rows {
		if !r.sameModel || !r.bothTarget {
			bad++
		}
		ratio := r.autoSecs / r.fixedSecs
		ratios = append(ratios, ratio)
		sumFixed += r.fixedSecs
		sumAuto += r.autoSecs
		t := r.settled
		fmt.Fprintf(w, "%s\t%s\t%d\t%s\t%s\t%d\t%.1f\t%.1f\t%.3f\t%s\t\n", r.name, r.ceiling, len(t.Contexts),
			time.Duration(t.SettledMs*float64(time.Millisecond)), time.Duration(t.SlowestMs*float64(time.Millisecond)), t.Raises,
			r.fixedSecs, r.autoSecs, ratio, yesNo(r.sameModel && r.bothTarget))
	}
	fmt.Fprintf(w, "total\t\t\t\t\t\t%.1f\t%.1f\t%.3f\t\t\n", sumFixed, sumAuto, sumAuto/sumFixed)
	fmt.Fprintf(w, "geo mean\t\t\t\t\t\t\t\t%.3f\t\t\n", bench.GeoMean(ratios))
	if err := w.Flush(); err != nil {
		return bad, err
	}
	fmt.Fprintln(out)
	return bad, nil
}
