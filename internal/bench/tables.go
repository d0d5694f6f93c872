package bench

import (
	"context"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/droidstar/droidstar/examples"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/run"
)

// Suites are the bench's suites.
func Suites() []string { return []string{"droidstar", "mealy", "examples", "checks", "timeout"} }

// DefaultLanes are the lanes of the DroidStar suite's second run unless
// told otherwise; the benchmark document's tables use them.
const DefaultLanes = 4

// Options choose what Run benchmarks: the suites (none: all), where the
// shared reference data is ("": none), and the lanes of the DroidStar
// suite's second run.
type Options struct {
	Only   []string
	Shared string
	Lanes  int
}

// Run prints the tables of the suites o chooses to out, and says how many
// learned models differ from their targets. Without the shared data the
// bundled examples run in place of the droidstar and mealy suites, and
// out says so.
func Run(ctx context.Context, out io.Writer, o Options) (bad int, err error) {
	want := map[string]bool{}
	for _, s := range o.Only {
		want[s] = true
	}
	if len(want) == 0 {
		for _, s := range Suites() {
			want[s] = true
		}
	}
	if o.Shared == "" && (want["droidstar"] || want["mealy"]) {
		fmt.Fprintln(out, "The shared reference data (DroidStar's models and numbers, the Mealy benchmarks) was not found:")
		fmt.Fprintln(out, "pass --shared DIR or set DROIDSTAR_SHARED. Benchmarking the bundled examples instead of the droidstar and mealy suites.")
		fmt.Fprintln(out)
		want["droidstar"], want["mealy"], want["examples"] = false, false, true
	}
	// add runs one table and counts its differing models.
	add := func(n int, err error) error {
		bad += n
		return err
	}
	if want["droidstar"] {
		for _, every := range []bool{true, false} {
			if err := add(tableDroidStar(ctx, out, o.Shared, o.Lanes, every)); err != nil {
				return bad, err
			}
		}
		if err := add(tablePadding(ctx, out, o.Shared, 1)); err != nil {
			return bad, err
		}
		if err := add(tableLearners(ctx, out, o.Shared, o.Lanes)); err != nil {
			return bad, err
		}
	}
	if want["mealy"] {
		if err := add(tableMealy(ctx, out, o.Shared)); err != nil {
			return bad, err
		}
	}
	if want["examples"] {
		if err := add(tableExamples(ctx, out)); err != nil {
			return bad, err
		}
	}
	if want["timeout"] {
		if err := add(tableTimeout(ctx, out, o.Shared)); err != nil {
			return bad, err
		}
	}
	if want["checks"] {
		// A wrong model is what this suite measures: it fails nothing.
		if err := tableChecks(ctx, out, o.Shared); err != nil {
			return bad, err
		}
	}
	return bad, nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "NO"
}

// tableDroidStar learns DroidStar's six beside DroidStar's numbers, the
// bound counting every symbol as DroidStar's did (every) or only the free
// ones, as learn does by default.
func tableDroidStar(ctx context.Context, out io.Writer, shared string, lanes int, every bool) (int, error) {
	theirs, err := LoadDroidStarStats(shared)
	if err != nil {
		return 0, err
	}
	conf := run.DefaultConformance
	if every {
		fmt.Fprintf(out, "DroidStar's typestates (simulated device, same alphabets, quiescence timeouts, restrictions and bound,\n")
		fmt.Fprintf(out, "counting every symbol as DroidStar did: --bound-counts every), learned with the distinguisher-bound\n")
		fmt.Fprintf(out, "oracle alone (conformance off) and %s, the default.\n", defaultPadFlags())
		fmt.Fprintln(out, "DroidStar's columns are its own real-device runs (Oct 2016): executed queries and wall time.")
		fmt.Fprintf(out, "executed and device-s: on 1 lane; wall %d lanes: the estimated wall time (each batch's makespan)\n", lanes)
		fmt.Fprintf(out, "on %d lanes; /DS: over DroidStar's wall time; default: executed with the default checks (+%s).\n", lanes, run.DefaultConformance)
		fmt.Fprintln(out, "floor: the queries the last bound check runs on the true model from an empty cache (its maximal")
		fmt.Fprintln(out, "words, without the waits after a quiet and the symbols after an err that the closure's rules answer),")
		fmt.Fprintln(out, "and the initial state's transitions into the error sink, which the check skips (they answer err).")
	} else {
		fmt.Fprintf(out, "The same with learn's default --bound-counts free: a wait a followed_by_wait restriction forces is\n")
		fmt.Fprintf(out, "part of its callin's step, so FileObserver's bound 2 reaches further than DroidStar's (and costs more).\n")
	}
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "class\tstates\tequal\tEQ\tfloor\texecuted\t/floor\tDroidStar\tratio\tdevice-s\t/DS\twall %d lanes\t/DS\tDroidStar s\tdefault\tlearned needs bound\t\n", lanes)
	bad := 0
	var sumOurs, sumTheirs, sumDefault, sumFloor int
	var qRatios, devRatios, wallRatios []float64
	for _, cs := range DroidStarCases {
		row, err := RunDroidStarCaseWith(ctx, shared, cs, DroidStarRun{Lanes: 1, Pad: run.Defaults().Pad, BoundCountsEvery: every})
		if err != nil {
			return bad, err
		}
		many, err := RunDroidStarCaseWith(ctx, shared, cs, DroidStarRun{Lanes: lanes, Pad: run.Defaults().Pad, BoundCountsEvery: every})
		if err != nil {
			return bad, err
		}
		def, err := RunDroidStarCaseWith(ctx, shared, cs, DroidStarRun{Lanes: 1, Pad: run.Defaults().Pad, Conformance: conf, BoundCountsEvery: every})
		if err != nil {
			return bad, err
		}
		floor, err := DroidStarFloor(ctx, shared, cs, every)
		if err != nil {
			return bad, err
		}
		sumFloor += floor
		t := theirs[cs.Class]
		for _, r := range []*DroidStarRow{row, many, def} {
			if !r.Equal {
				bad++
			}
		}
		sumOurs += row.Executed
		sumTheirs += t.Executed
		sumDefault += def.Executed
		theirSecs := float64(t.TimeMillis) / 1000
		qRatios = append(qRatios, Ratio(row.Executed, t.Executed))
		devRatios = append(devRatios, row.DeviceSecs/theirSecs)
		wallRatios = append(wallRatios, many.EstimatedWallSecs/theirSecs)
		fmt.Fprintf(w, "%s\t%d\t%s\t%d\t%d\t%d\t%.2f\t%d\t%.2f\t%.1f\t%.3f\t%.1f\t%.3f\t%.0f\t%d\t%d\t\n",
			cs.Class, row.States, yesNo(row.Equal && many.Equal && def.Equal), row.EQs, floor, row.Executed, Ratio(row.Executed, floor), t.Executed, Ratio(row.Executed, t.Executed), row.DeviceSecs, row.DeviceSecs/theirSecs,
			many.EstimatedWallSecs, many.EstimatedWallSecs/theirSecs, theirSecs, def.Executed, row.LearnedNeeds)
	}
	fmt.Fprintf(w, "total\t\t\t\t%d\t%d\t%.2f\t%d\t%.2f\t\t\t\t\t\t%d\t\t\n", sumFloor, sumOurs, Ratio(sumOurs, sumFloor), sumTheirs, Ratio(sumOurs, sumTheirs), sumDefault)
	fmt.Fprintf(w, "geo mean\t\t\t\t\t\t\t\t%.2f\t\t%.3f\t\t%.3f\t\t\t\t\n", GeoMean(qRatios), GeoMean(devRatios), GeoMean(wallRatios))
	if err := w.Flush(); err != nil {
		return bad, err
	}
	fmt.Fprintln(out)
	return bad, nil
}

// tableLearners shows what each learner does to the DroidStar
// suite, class by class: executed queries, device-seconds on one lane and
// the estimated wall time on lanes lanes, with the default padding and
// DroidStar's counting of the bound.
func tableLearners(ctx context.Context, out io.Writer, shared string, lanes int) (int, error) {
	theirs, err := LoadDroidStarStats(shared)
	if err != nil {
		return 0, err
	}
	names := run.Learners()
	fmt.Fprintf(out, "Learners (--learner; counting every symbol, %s, the bound oracle alone): executed queries,\n", defaultPadFlags())
	fmt.Fprintf(out, "device-seconds on 1 lane and the estimated wall time on %d lanes; geo means over DroidStar's.\n", lanes)
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(w, "class\tequal\t")
	for _, part := range []string{"executed", "device-s", fmt.Sprintf("wall %d lanes", lanes)} {
		for _, n := range names {
			fmt.Fprintf(w, "%s %s\t", n, part)
		}
	}
	fmt.Fprintln(w)
	bad := 0
	ratios := make([][3][]float64, len(names))
	sums := make([]int, len(names))
	for _, cs := range DroidStarCases {
		t := theirs[cs.Class]
		theirSecs := float64(t.TimeMillis) / 1000
		cells := make([][3]string, len(names))
		equal := true
		for k, n := range names {
			one, err := RunDroidStarCaseWith(ctx, shared, cs, DroidStarRun{Learner: n, Lanes: 1, Pad: run.Defaults().Pad, BoundCountsEvery: true})
			if err != nil {
				return bad, err
			}
			many, err := RunDroidStarCaseWith(ctx, shared, cs, DroidStarRun{Learner: n, Lanes: lanes, Pad: run.Defaults().Pad, BoundCountsEvery: true})
			if err != nil {
				return bad, err
			}
			equal = equal && one.Equal && many.Equal
			cells[k] = [3]string{fmt.Sprint(one.Executed), fmt.Sprintf("%.1f", one.DeviceSecs), fmt.Sprintf("%.1f", many.EstimatedWallSecs)}
			sums[k] += one.Executed
			ratios[k][0] = append(ratios[k][0], Ratio(one.Executed, t.Executed))
			ratios[k][1] = append(ratios[k][1], one.DeviceSecs/theirSecs)
			ratios[k][2] = append(ratios[k][2], many.EstimatedWallSecs/theirSecs)
		}
		if !equal {
			bad++
		}
		fmt.Fprintf(w, "%s\t%s\t", cs.Class, yesNo(equal))
		for part := range 3 {
			for k := range names {
				fmt.Fprintf(w, "%s\t", cells[k][part])
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprint(w, "total\t\t")
	for _, sum := range sums {
		fmt.Fprintf(w, "%d\t", sum)
	}
	fmt.Fprintln(w, strings.Repeat("\t", 2*len(names)))
	fmt.Fprint(w, "geo mean\t\t")
	for part := range 3 {
		for k := range names {
			fmt.Fprintf(w, "%.3f\t", GeoMean(ratios[k][part]))
		}
	}
	fmt.Fprintln(w)
	if err := w.Flush(); err != nil {
		return bad, err
	}
	fmt.Fprintln(out)
	return bad, nil
}

// tablePadding shows what padding does to the DroidStar suite: the
// executed queries and device-seconds without it and with --pad's default,
// for the bound oracle alone and with the default conformance test.
func tablePadding(ctx context.Context, out io.Writer, shared string, lanes int) (int, error) {
	conf := run.DefaultConformance
	fmt.Fprintf(out, "Padding (%s, the default, beside --pad 0 --pad-check 0): executed queries and device-seconds\n", defaultPadFlags())
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "class\tequal\tbound\tpadded\tratio\tdevice-s\tpadded\tratio\t+%s\tpadded\tratio\tdevice-s\tpadded\tratio\t\n", run.DefaultConformance)
	bad := 0
	var sum [8]float64
	for _, cs := range DroidStarCases {
		var rows [4]*DroidStarRow
		var err error
		for k, r := range []DroidStarRun{{Lanes: lanes}, {Lanes: lanes, Pad: run.Defaults().Pad},
			{Lanes: lanes, Conformance: conf}, {Lanes: lanes, Pad: run.Defaults().Pad, Conformance: conf}} {
			if rows[k], err = RunDroidStarCaseWith(ctx, shared, cs, r); err != nil {
				return bad, err
			}
		}
		equal := true
		for k, r := range rows {
			equal = equal && r.Equal
			sum[2*k] += float64(r.Executed)
			sum[2*k+1] += r.DeviceSecs
		}
		if !equal {
			bad++
		}
		fmt.Fprintf(w, "%s\t%s\t", cs.Class, yesNo(equal))
		for _, k := range []int{0, 2} {
			a, b := rows[k], rows[k+1]
			fmt.Fprintf(w, "%d\t%d\t%.2f\t%.1f\t%.1f\t%.2f\t", a.Executed, b.Executed, Ratio(b.Executed, a.Executed),
				a.DeviceSecs, b.DeviceSecs, b.DeviceSecs/a.DeviceSecs)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "total\t\t%.0f\t%.0f\t%.2f\t%.1f\t%.1f\t%.2f\t%.0f\t%.0f\t%.2f\t%.1f\t%.1f\t%.2f\t\n",
		sum[0], sum[2], sum[2]/sum[0], sum[1], sum[3], sum[3]/sum[1], sum[4], sum[6], sum[6]/sum[4], sum[5], sum[7], sum[7]/sum[5])
	if err := w.Flush(); err != nil {
		return bad, err
	}
	fmt.Fprintln(out)
	return bad, nil
}

func tableMealy(ctx context.Context, out io.Writer, shared string) (int, error) {
	rows, err := LoadAALpy(shared)
	if err != nil {
		return 0, err
	}
	learners := run.Learners()
	type cell struct{ executed, symbols, eqs int }
	ours := make([][]cell, len(rows))
	secs := make([]float64, len(learners))
	bad := 0
	for k, a := range rows {
		ours[k] = make([]cell, len(learners))
		for j, name := range learners {
			row, err := RunMealy(ctx, shared, a, name)
			if err != nil {
				return bad, fmt.Errorf("%s: %w", name, err)
			}
			if !row.Equal || row.States != a.States {
				bad++
				fmt.Fprintf(out, "%s: %s learned %d states (equal: %s), want %d\n", a.Model, name, row.States, yesNo(row.Equal), a.States)
			}
			ours[k][j] = cell{row.Executed, row.Symbols, row.EQs}
			secs[j] += row.WallSecs
		}
	}
	fmt.Fprintln(out, "Mealy benchmarks with a perfect teacher: each droidstar learner beside AALpy 1.6.1's L* and KV")
	fmt.Fprintln(out, "(Rivest-Schapire) and L# (separating sequences, ADS). best: the fewest of droidstar's learners.")
	table := func(title string, get func(cell) int, theirs func(AALpyCounts) int) error {
		fmt.Fprintln(out, title)
		w := tabwriter.NewWriter(out, 0, 4, 2, ' ', tabwriter.AlignRight)
		header := "model\tstates\tinputs\t"
		for _, name := range learners {
			header += name + "\t"
		}
		fmt.Fprintln(w, header+"AALpy L*\tAALpy KV\tAALpy L#\tbest/L#\t")
		sums := make([]int, len(learners)+4)
		atOrBelow := 0
		for k, a := range rows {
			line := fmt.Sprintf("%s\t%d\t%d\t", a.Model, a.States, a.Inputs)
			best := -1
			for j := range learners {
				v := get(ours[k][j])
				sums[j] += v
				if best < 0 || v < best {
					best = v
				}
				line += fmt.Sprintf("%d\t", v)
			}
			l, kv, ls := theirs(a.LStar), theirs(a.KV), theirs(a.LSharp)
			sums[len(learners)] += l
			sums[len(learners)+1] += kv
			sums[len(learners)+2] += ls
			sums[len(learners)+3] += best
			if best <= ls {
				atOrBelow++
			}
			fmt.Fprintf(w, "%s%d\t%d\t%d\t%.2f\t\n", line, l, kv, ls, Ratio(best, ls))
		}
		line := "total\t\t\t"
		for j := range learners {
			line += fmt.Sprintf("%d\t", sums[j])
		}
		n := len(learners)
		fmt.Fprintf(w, "%s%d\t%d\t%d\t%.2f\t\n", line, sums[n], sums[n+1], sums[n+2], Ratio(sums[n+3], sums[n+2]))
		line = "vs AALpy L#\t\t\t"
		for j := range learners {
			line += fmt.Sprintf("%.2f\t", Ratio(sums[j], sums[n+2]))
		}
		fmt.Fprintf(w, "%s%.2f\t%.2f\t1.00\t\t\n", line, Ratio(sums[n], sums[n+2]), Ratio(sums[n+1], sums[n+2]))
		if err := w.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(out, "the best droidstar learner is at or below AALpy's L# on %d of %d models\n\n", atOrBelow, len(rows))
		return nil
	}
	if err := table("executed queries", func(c cell) int { return c.executed }, func(a AALpyCounts) int { return a.Executed }); err != nil {
		return bad, err
	}
	if err := table("symbols", func(c cell) int { return c.symbols }, func(a AALpyCounts) int { return a.Symbols }); err != nil {
		return bad, err
	}
	if err := table("equivalence queries", func(c cell) int { return c.eqs }, func(a AALpyCounts) int { return a.EQs }); err != nil {
		return bad, err
	}
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "learner\tseconds for all models\t")
	for j, name := range learners {
		fmt.Fprintf(w, "%s\t%.2f\t\n", name, secs[j])
	}
	if err := w.Flush(); err != nil {
		return bad, err
	}
	fmt.Fprintln(out)
	return bad, nil
}

func tableExamples(ctx context.Context, out io.Writer) (int, error) {
	fmt.Fprintln(out, "Bundled examples (simulated device, models written from the Android reference)")
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "example\tstates\tmatches model\tEQ\texecuted\tdevice-s\tlearned needs bound\t")
	bad := 0
	for _, name := range examples.Names() {
		row, err := RunExample(ctx, name)
		if err != nil {
			return bad, err
		}
		if !row.Equal {
			bad++
		}
		fmt.Fprintf(w, "%s\t%d\t%s\t%d\t%d\t%.1f\t%d\t\n", name, row.States, yesNo(row.Equal), row.EQs, row.Executed, row.DeviceSecs, row.LearnedNeeds)
	}
	if err := w.Flush(); err != nil {
		return bad, err
	}
	fmt.Fprintln(out)
	return bad, nil
}

// checksConfigs are the equivalence checks the checks suite compares:
// the bound oracle alone (the case's bound), --bound auto, and the bound
// oracle followed by each conformance test.
func checksConfigs() []Checks {
	out := []Checks{{Name: "bound"}, {Name: "auto", Bound: run.BoundAuto}}
	for _, s := range []string{"random:50", "random:200", "random:1000", "wp:0", "wp:1"} {
		out = append(out, Checks{Name: "+" + s, Conformance: s})
	}
	// As learn runs them: padded as by default.
	for k := range out {
		out[k].Pad = run.Defaults().Pad
	}
	return out
}

// tableChecks prints, per target, the executed queries under each check
// (x: the learned model differs from the target), then per check the
// models learned exactly, the queries and what the conformance test found.
// A wrong model is what this suite measures, so it fails nothing.
func tableChecks(ctx context.Context, out io.Writer, shared string) error {
	targets, err := CheckTargets(shared)
	if err != nil {
		return err
	}
	configs := checksConfigs()
	// One cell at a time: --bound auto on the largest Mealy models runs
	// tens of millions of queries, and two of those at once would hold
	// both caches.
	grid, err := checksGrid(ctx, targets, configs, RunChecks, 1)
	if err != nil {
		return err
	}
	return writeChecks(out, targets, configs, grid)
}

// checksCell learns one target under one set of checks: RunChecks, or a
// test's stand-in for the cells it does not learn.
type checksCell func(context.Context, CheckTarget, Checks) (*ChecksRow, error)

// checksGrid learns every target under every check with cell, up to par
// cells at once: grid[target][check].
func checksGrid(ctx context.Context, targets []CheckTarget, configs []Checks, cell checksCell, par int) ([][]*ChecksRow, error) {
	grid := make([][]*ChecksRow, len(targets))
	for k := range grid {
		grid[k] = make([]*ChecksRow, len(configs))
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, max(par, 1))
	errs := make(chan error, len(targets)*len(configs))
	var wg sync.WaitGroup
	for k, t := range targets {
		for j, cf := range configs {
			sem <- struct{}{}
			wg.Add(1)
			go func() {
				defer func() { <-sem; wg.Done() }()
				row, err := cell(ctx, t, cf)
				if err != nil {
					errs <- err
					cancel()
					return
				}
				grid[k][j] = row
			}()
		}
	}
	wg.Wait()
	close(errs)
	// The first error, not the cancellations it caused in the others.
	if err, ok := <-errs; ok {
		return nil, err
	}
	return grid, nil
}

// writeChecks prints the checks suite's two tables from its grid.
func writeChecks(out io.Writer, targets []CheckTarget, configs []Checks, grid [][]*ChecksRow) error {
	fmt.Fprintln(out, "Equivalence checks: executed queries per target (x: the learned model differs from its target;")
	fmt.Fprintf(out, "auto: the bound it settled on in brackets). Simulated device, virtual clock, %s.\n", defaultPadFlags())
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', tabwriter.AlignRight)
	header := "target\tstates\t"
	for _, cf := range configs {
		header += cf.Name + "\t"
	}
	fmt.Fprintln(w, header)
	type total struct{ exact, executed, conformance, found int }
	totals := make([]total, len(configs))
	for k, t := range targets {
		line := fmt.Sprintf("%s\t%d\t", t.Name, grid[k][0].States)
		for j, cf := range configs {
			row := grid[k][j]
			cell := fmt.Sprint(row.Executed)
			if cf.Bound == run.BoundAuto {
				cell += fmt.Sprintf(" [%d]", row.BoundUsed)
			}
			if !row.Equal {
				cell += " x"
			} else {
				totals[j].exact++
			}
			totals[j].executed += row.Executed
			totals[j].conformance += row.Conformance
			totals[j].found += row.Found
			line += cell + "\t"
		}
		fmt.Fprintln(w, line)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(out)
	w = tabwriter.NewWriter(out, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "checks\texact\texecuted\tvs bound\tconformance executed\tcounterexamples from conformance\t")
	for k, cf := range configs {
		fmt.Fprintf(w, "%s\t%d of %d\t%d\t%.2fx\t%d\t%d\t\n", cf.Name, totals[k].exact, len(targets), totals[k].executed,
			Ratio(totals[k].executed, totals[0].executed), totals[k].conformance, totals[k].found)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(out)
	return nil
}

// defaultPadFlags are the padding flags learn defaults to, as the tables'
// headings name them.
func defaultPadFlags() string {
	d := run.Defaults().Pad
	return fmt.Sprintf("--pad %d --pad-check %d", d.Learning, d.Check)
}

// timeoutRow is one target learned with its fixed timeout and with
// --timeout auto, on one lane.
type timeoutRow struct {
	name                  string
	ceiling               time.Duration
	settled               *model.AutoTimeout
	fixedSecs, autoSecs   float64
	sameModel, bothTarget bool
}

// tableTimeout learns the examples with latency ranges, and DroidStar's six
// under the bundled examples' latencies when the shared data is there,
// with the fixed timeout and with --timeout auto, and compares the
// device-seconds on one lane. It returns how many learned models differ
// from their targets or from each other.
func tableTimeout(ctx context.Context, out io.Writer, shared string) (int, error) {
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
		fixed, err := RunExampleRun(ctx, name, ExampleRun{Pad: run.Defaults().Pad})
		if err != nil {
			return bad, err
		}
		auto, err := RunExampleRun(ctx, name, ExampleRun{Pad: run.Defaults().Pad, Timeout: run.TimeoutAuto})
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
	for _, cs := range DroidStarCases {
		fixed, err := RunDroidStarCaseWith(ctx, shared, cs, DroidStarRun{Lanes: 1, Pad: run.Defaults().Pad, Latencies: true})
		if err != nil {
			return bad, err
		}
		auto, err := RunDroidStarCaseWith(ctx, shared, cs, DroidStarRun{Lanes: 1, Pad: run.Defaults().Pad, Latencies: true, Timeout: run.TimeoutAuto})
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
	fmt.Fprintf(w, "geo mean\t\t\t\t\t\t\t\t%.3f\t\t\n", GeoMean(ratios))
	if err := w.Flush(); err != nil {
		return bad, err
	}
	fmt.Fprintln(out)
	return bad, nil
}
