package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/droidstar/droidstar/examples"
	"github.com/droidstar/droidstar/internal/bench"
	"github.com/droidstar/droidstar/internal/run"
)

func newBenchCmd(e *env) *cobra.Command {
	var shared string
	var only []string
	var lanes int
	c := &cobra.Command{
		Use:   "bench",
		Short: "Benchmark the learner against DroidStar and AALpy",
		Long: `Bench learns, on the simulated device:
  droidstar  the six typestates DroidStar learned on a real device in 2016,
             with the distinguisher-bound oracle, checking each learned model
             equals the target, beside DroidStar's executed queries and wall time:
             device-seconds on one lane, and the estimated wall time on 1 and
             --lanes lanes, with geometric means over the six; what padding
             does to them, and each learner's (--learner's choices);
  mealy      the public Mealy benchmarks with a perfect teacher, learned by
             each learner (--learner's choices), beside AALpy's L*, KV and L#:
             executed queries, symbols and equivalence queries;
  examples   the bundled examples, checking each against its model;
  checks     what each equivalence check costs and catches: every target of
             the three suites learned with the bound oracle alone, with
             --bound auto, and with the bound oracle followed by each
             conformance test (executed queries, and whether the learned
             model equals the target);
  timeout    --timeout auto beside the fixed timeout on one lane: device-seconds
             and their ratio (with the geometric mean) for the examples with
             latency ranges and, with the shared data, DroidStar's six under
             the bundled examples' latencies (our assumptions), checking both
             runs learn the same model.
The reference data is read from the shared directory (--shared,
$DROIDSTAR_SHARED, or a "shared" folder beside the checkout); without it
the examples run in place of the droidstar and mealy suites. Exit code 1 if
any learned model differs from its target.

How learning scales over several devices is measured apart, because it runs
fake devices that the droidstar binary does not contain: 'make bench-scaling'
in a checkout (see the README).`,
		Example: `  droidstar bench
  droidstar bench --only droidstar --shared ../shared
  droidstar bench --only mealy`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(c *cobra.Command, args []string) error {
			want := map[string]bool{}
			for _, o := range only {
				switch o {
				case "droidstar", "mealy", "examples", "checks", "timeout":
					want[o] = true
				default:
					return usageError("--only: unknown suite %q (suites: droidstar, mealy, examples, checks, timeout)", o)
				}
			}
			if len(want) == 0 {
				want = map[string]bool{"droidstar": true, "mealy": true, "examples": true, "checks": true, "timeout": true}
			}
			dir := bench.SharedDir(shared)
			if dir == "" && (want["droidstar"] || want["mealy"]) {
				fmt.Fprintln(e.stdout, "The shared reference data (DroidStar's models and numbers, the Mealy benchmarks) was not found:")
				fmt.Fprintln(e.stdout, "pass --shared DIR or set DROIDSTAR_SHARED. Benchmarking the bundled examples instead of the droidstar and mealy suites.")
				fmt.Fprintln(e.stdout)
				want["droidstar"], want["mealy"], want["examples"] = false, false, true
			}
			if lanes < 1 {
				return usageError("--lanes must be at least 1, got %d", lanes)
			}
			bad := 0
			if want["droidstar"] {
				for _, every := range []bool{true, false} {
					n, err := benchDroidStar(c, e.stdout, dir, lanes, every)
					if err != nil {
						return err
					}
					bad += n
				}
				n, err := benchDroidStarPad(c, e.stdout, dir, 1)
				if err != nil {
					return err
				}
				bad += n
				if n, err = benchDroidStarLearners(c, e.stdout, dir, lanes); err != nil {
					return err
				}
				bad += n
			}
			if want["mealy"] {
				n, err := benchMealy(c, e.stdout, dir)
				if err != nil {
					return err
				}
				bad += n
			}
			if want["examples"] {
				n, err := benchExamples(c, e.stdout)
				if err != nil {
					return err
				}
				bad += n
			}
			if want["timeout"] {
				n, err := benchTimeout(c, e.stdout, dir)
				if err != nil {
					return err
				}
				bad += n
			}
			if want["checks"] {
				if err := benchChecks(c, e.stdout, dir); err != nil {
					return err
				}
			}
			if bad > 0 {
				return fmt.Errorf("%d learned models differ from their targets", bad)
			}
			return nil
		},
	}
	c.Flags().StringVar(&shared, "shared", "", "directory with the shared reference data (default: $DROIDSTAR_SHARED or ../shared)")
	c.Flags().StringSliceVar(&only, "only", nil, "run only these suites: droidstar, mealy, examples, checks, timeout")
	c.Flags().IntVar(&lanes, "lanes", 4, "lanes of the DroidStar suite's second run (the first runs on 1)")
	return c
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "NO"
}

// benchDroidStar learns DroidStar's six beside DroidStar's numbers, the
// bound counting every symbol as DroidStar's did (every) or only the free
// ones, as learn does by default.
func benchDroidStar(c *cobra.Command, out io.Writer, shared string, lanes int, every bool) (int, error) {
	theirs, err := bench.LoadDroidStarStats(shared)
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
	for _, cs := range bench.DroidStarCases {
		row, err := bench.RunDroidStarCaseWith(c.Context(), shared, cs, bench.DroidStarRun{Lanes: 1, Pad: run.Defaults().Pad, BoundCountsEvery: every})
		if err != nil {
			return bad, err
		}
		many, err := bench.RunDroidStarCaseWith(c.Context(), shared, cs, bench.DroidStarRun{Lanes: lanes, Pad: run.Defaults().Pad, BoundCountsEvery: every})
		if err != nil {
			return bad, err
		}
		def, err := bench.RunDroidStarCaseWith(c.Context(), shared, cs, bench.DroidStarRun{Lanes: 1, Pad: run.Defaults().Pad, Conformance: conf, BoundCountsEvery: every})
		if err != nil {
			return bad, err
		}
		floor, err := bench.DroidStarFloor(c.Context(), shared, cs, every)
		if err != nil {
			return bad, err
		}
		sumFloor += floor
		t := theirs[cs.Class]
		for _, r := range []*bench.DroidStarRow{row, many, def} {
			if !r.Equal {
				bad++
			}
		}
		sumOurs += row.Executed
		sumTheirs += t.Executed
		sumDefault += def.Executed
		theirSecs := float64(t.TimeMillis) / 1000
		qRatios = append(qRatios, bench.Ratio(row.Executed, t.Executed))
		devRatios = append(devRatios, row.DeviceSecs/theirSecs)
		wallRatios = append(wallRatios, many.EstimatedWallSecs/theirSecs)
		fmt.Fprintf(w, "%s\t%d\t%s\t%d\t%d\t%d\t%.2f\t%d\t%.2f\t%.1f\t%.3f\t%.1f\t%.3f\t%.0f\t%d\t%d\t\n",
			cs.Class, row.States, yesNo(row.Equal && many.Equal && def.Equal), row.EQs, floor, row.Executed, bench.Ratio(row.Executed, floor), t.Executed, bench.Ratio(row.Executed, t.Executed), row.DeviceSecs, row.DeviceSecs/theirSecs,
			many.EstimatedWallSecs, many.EstimatedWallSecs/theirSecs, theirSecs, def.Executed, row.LearnedNeeds)
	}
	fmt.Fprintf(w, "total\t\t\t\t%d\t%d\t%.2f\t%d\t%.2f\t\t\t\t\t\t%d\t\t\n", sumFloor, sumOurs, bench.Ratio(sumOurs, sumFloor), sumTheirs, bench.Ratio(sumOurs, sumTheirs), sumDefault)
	fmt.Fprintf(w, "geo mean\t\t\t\t\t\t\t\t%.2f\t\t%.3f\t\t%.3f\t\t\t\t\n", bench.GeoMean(qRatios), bench.GeoMean(devRatios), bench.GeoMean(wallRatios))
	if err := w.Flush(); err != nil {
		return bad, err
	}
	fmt.Fprintln(out)
	return bad, nil
}

// benchDroidStarLearners shows what each learner does to the DroidStar
// suite, class by class: executed queries, device-seconds on one lane and
// the estimated wall time on lanes lanes, with the default padding and
// DroidStar's counting of the bound.
func benchDroidStarLearners(c *cobra.Command, out io.Writer, shared string, lanes int) (int, error) {
	theirs, err := bench.LoadDroidStarStats(shared)
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
	for _, cs := range bench.DroidStarCases {
		t := theirs[cs.Class]
		theirSecs := float64(t.TimeMillis) / 1000
		cells := make([][3]string, len(names))
		equal := true
		for k, n := range names {
			one, err := bench.RunDroidStarCaseWith(c.Context(), shared, cs, bench.DroidStarRun{Learner: n, Lanes: 1, Pad: run.Defaults().Pad, BoundCountsEvery: true})
			if err != nil {
				return bad, err
			}
			many, err := bench.RunDroidStarCaseWith(c.Context(), shared, cs, bench.DroidStarRun{Learner: n, Lanes: lanes, Pad: run.Defaults().Pad, BoundCountsEvery: true})
			if err != nil {
				return bad, err
			}
			equal = equal && one.Equal && many.Equal
			cells[k] = [3]string{fmt.Sprint(one.Executed), fmt.Sprintf("%.1f", one.DeviceSecs), fmt.Sprintf("%.1f", many.EstimatedWallSecs)}
			sums[k] += one.Executed
			ratios[k][0] = append(ratios[k][0], bench.Ratio(one.Executed, t.Executed))
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
			fmt.Fprintf(w, "%.3f\t", bench.GeoMean(ratios[k][part]))
		}
	}
	fmt.Fprintln(w)
	if err := w.Flush(); err != nil {
		return bad, err
	}
	fmt.Fprintln(out)
	return bad, nil
}

// benchDroidStarPad shows what padding does to the DroidStar suite: the
// executed queries and device-seconds without it and with --pad's default,
// for the bound oracle alone and with the default conformance test.
func benchDroidStarPad(c *cobra.Command, out io.Writer, shared string, lanes int) (int, error) {
	conf := run.DefaultConformance
	fmt.Fprintf(out, "Padding (%s, the default, beside --pad 0 --pad-check 0): executed queries and device-seconds\n", defaultPadFlags())
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "class\tequal\tbound\tpadded\tratio\tdevice-s\tpadded\tratio\t+%s\tpadded\tratio\tdevice-s\tpadded\tratio\t\n", run.DefaultConformance)
	bad := 0
	var sum [8]float64
	for _, cs := range bench.DroidStarCases {
		var rows [4]*bench.DroidStarRow
		var err error
		for k, r := range []bench.DroidStarRun{{Lanes: lanes}, {Lanes: lanes, Pad: run.Defaults().Pad},
			{Lanes: lanes, Conformance: conf}, {Lanes: lanes, Pad: run.Defaults().Pad, Conformance: conf}} {
			if rows[k], err = bench.RunDroidStarCaseWith(c.Context(), shared, cs, r); err != nil {
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
			fmt.Fprintf(w, "%d\t%d\t%.2f\t%.1f\t%.1f\t%.2f\t", a.Executed, b.Executed, bench.Ratio(b.Executed, a.Executed),
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

func benchMealy(c *cobra.Command, out io.Writer, shared string) (int, error) {
	rows, err := bench.LoadAALpy(shared)
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
			row, err := bench.RunMealy(c.Context(), shared, a, name)
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
	table := func(title string, get func(cell) int, theirs func(bench.AALpyCounts) int) error {
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
			fmt.Fprintf(w, "%s%d\t%d\t%d\t%.2f\t\n", line, l, kv, ls, bench.Ratio(best, ls))
		}
		line := "total\t\t\t"
		for j := range learners {
			line += fmt.Sprintf("%d\t", sums[j])
		}
		n := len(learners)
		fmt.Fprintf(w, "%s%d\t%d\t%d\t%.2f\t\n", line, sums[n], sums[n+1], sums[n+2], bench.Ratio(sums[n+3], sums[n+2]))
		line = "vs AALpy L#\t\t\t"
		for j := range learners {
			line += fmt.Sprintf("%.2f\t", bench.Ratio(sums[j], sums[n+2]))
		}
		fmt.Fprintf(w, "%s%.2f\t%.2f\t1.00\t\t\n", line, bench.Ratio(sums[n], sums[n+2]), bench.Ratio(sums[n+1], sums[n+2]))
		if err := w.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(out, "the best droidstar learner is at or below AALpy's L# on %d of %d models\n\n", atOrBelow, len(rows))
		return nil
	}
	if err := table("executed queries", func(c cell) int { return c.executed }, func(a bench.AALpyCounts) int { return a.Executed }); err != nil {
		return bad, err
	}
	if err := table("symbols", func(c cell) int { return c.symbols }, func(a bench.AALpyCounts) int { return a.Symbols }); err != nil {
		return bad, err
	}
	if err := table("equivalence queries", func(c cell) int { return c.eqs }, func(a bench.AALpyCounts) int { return a.EQs }); err != nil {
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

func benchExamples(c *cobra.Command, out io.Writer) (int, error) {
	fmt.Fprintln(out, "Bundled examples (simulated device, models written from the Android reference)")
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "example\tstates\tmatches model\tEQ\texecuted\tdevice-s\tlearned needs bound\t")
	bad := 0
	for _, name := range examples.Names() {
		row, err := bench.RunExample(c.Context(), name)
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

// benchChecksConfigs are the equivalence checks the checks suite compares:
// the bound oracle alone (the case's bound), --bound auto, and the bound
// oracle followed by each conformance test.
func benchChecksConfigs() []bench.Checks {
	out := []bench.Checks{{Name: "bound"}, {Name: "auto", Bound: run.BoundAuto}}
	for _, s := range []string{"random:50", "random:200", "random:1000", "wp:0", "wp:1"} {
		out = append(out, bench.Checks{Name: "+" + s, Conformance: s})
	}
	// As learn runs them: padded as by default.
	for k := range out {
		out[k].Pad = run.Defaults().Pad
	}
	return out
}

// benchChecks prints, per target, the executed queries under each check
// (x: the learned model differs from the target), then per check the
// models learned exactly, the queries and what the conformance test found.
// A wrong model is what this suite measures, so it fails nothing.
func benchChecks(c *cobra.Command, out io.Writer, shared string) error {
	targets, err := bench.CheckTargets(shared)
	if err != nil {
		return err
	}
	configs := benchChecksConfigs()
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
	for _, t := range targets {
		line := fmt.Sprintf("%s\t", t.Name)
		for k, cf := range configs {
			row, err := bench.RunChecks(c.Context(), t, cf)
			if err != nil {
				return err
			}
			if k == 0 {
				line += fmt.Sprintf("%d\t", row.States)
			}
			cell := fmt.Sprint(row.Executed)
			if cf.Bound == run.BoundAuto {
				cell += fmt.Sprintf(" [%d]", row.BoundUsed)
			}
			if !row.Equal {
				cell += " x"
			} else {
				totals[k].exact++
			}
			totals[k].executed += row.Executed
			totals[k].conformance += row.Conformance
			totals[k].found += row.Found
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
			bench.Ratio(totals[k].executed, totals[0].executed), totals[k].conformance, totals[k].found)
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
