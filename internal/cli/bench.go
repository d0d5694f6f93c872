package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/droidstar/droidstar/examples"
	"github.com/droidstar/droidstar/internal/adb/adbtest"
	"github.com/droidstar/droidstar/internal/bench"
	"github.com/droidstar/droidstar/internal/purpose"
)

func newBenchCmd(e *env) *cobra.Command {
	var shared string
	var only []string
	var lanes int
	var sc scalingFlags
	c := &cobra.Command{
		Use:   "bench",
		Short: "Benchmark the learner against DroidStar and AALpy, and on several devices",
		Long: `Bench learns, on the simulated device:
  droidstar  the six typestates DroidStar learned on a real device in 2016,
             with the distinguisher-bound oracle, checking each learned model
             equals the target, beside DroidStar's executed queries and wall time;
  mealy      the public Mealy benchmarks with a perfect teacher, beside AALpy's
             L* (Rivest-Schapire) executed queries and symbols;
  examples   the bundled examples, checking each against its model;
and over real ADB:
  scaling    one example (--scaling-example, default ` + bench.ScalingExample + `) learned with
             backend adb on 1, 2 and 4 fake devices (--scaling-devices) behind
             a private adb server, their harnesses answering from the
             example's model in real time; prints the wall time and the
             speed-up over one device (target: ` + scalingTargetText + `).
             It takes about a minute and needs adb on PATH (apt-get install
             adb); without it the default run skips it.
The reference data is read from the shared directory (--shared,
$DROIDSTAR_SHARED, or a "shared" folder beside the checkout); without it
the examples run in place of the droidstar and mealy suites. Exit code 1 if
any learned model differs from its target; a missed speed-up target is
reported, not an error.`,
		Example: `  droidstar bench
  droidstar bench --only droidstar --shared ../shared
  droidstar bench --only mealy
  droidstar bench --only scaling
  droidstar bench --only scaling --scaling-example fileobserver --scaling-devices 1,2,3,4`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(c *cobra.Command, args []string) error {
			want := map[string]bool{}
			for _, o := range only {
				switch o {
				case "droidstar", "mealy", "examples", "scaling":
					want[o] = true
				default:
					return usageError("--only: unknown suite %q (suites: droidstar, mealy, examples, scaling)", o)
				}
			}
			deflt := len(want) == 0
			if deflt {
				want = map[string]bool{"droidstar": true, "mealy": true, "examples": true, "scaling": true}
			}
			if want["scaling"] {
				if err := sc.check(); err != nil {
					return err
				}
			}
			dir := bench.SharedDir(shared)
			if dir == "" && (want["droidstar"] || want["mealy"]) {
				fmt.Fprintln(e.stdout, "The shared reference data (DroidStar's models and numbers, the Mealy benchmarks) was not found:")
				fmt.Fprintln(e.stdout, "pass --shared DIR or set DROIDSTAR_SHARED. Benchmarking the bundled examples instead of the droidstar and mealy suites.")
				fmt.Fprintln(e.stdout)
				want["droidstar"], want["mealy"], want["examples"] = false, false, true
			}
			bad := 0
			if want["droidstar"] {
				n, err := benchDroidStar(c, e.stdout, dir, lanes)
				if err != nil {
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
			// Explicitly asked for, scaling without adb fails with
			// adbtest's advice; in the default run it is only skipped, so
			// that bench stays usable without adb.
			if want["scaling"] && deflt && !bench.HaveADB() {
				fmt.Fprintln(e.stdout, "scaling: skipped, adb is not on PATH (apt-get install adb)")
				fmt.Fprintln(e.stdout)
			} else if want["scaling"] {
				n, err := benchScaling(c, e.stdout, sc)
				if err != nil {
					return err
				}
				bad += n
			}
			if bad > 0 {
				return fmt.Errorf("%d learned models differ from their targets", bad)
			}
			return nil
		},
	}
	c.Flags().StringVar(&shared, "shared", "", "directory with the shared reference data (default: $DROIDSTAR_SHARED or ../shared)")
	c.Flags().StringSliceVar(&only, "only", nil, "run only these suites: droidstar, mealy, examples, scaling")
	c.Flags().IntVar(&lanes, "lanes", 1, "simulated devices for the DroidStar suite")
	c.Flags().StringVar(&sc.example, "scaling-example", bench.ScalingExample, "example the scaling suite learns")
	c.Flags().IntSliceVar(&sc.devices, "scaling-devices", []int{1, 2, bench.ScalingTargetDevices}, "fake device counts the scaling suite learns with, one row each")
	// The tests' way to run the scaling suite over real ADB in a few
	// seconds; its numbers are not a benchmark, so it is not advertised.
	c.Flags().Float64Var(&sc.speed, "scaling-speed", 1, "run the fake devices this many times faster than real time")
	if err := c.Flags().MarkHidden("scaling-speed"); err != nil {
		panic(err)
	}
	return c
}

// scalingTargetText states the scaling suite's speed-up target.
var scalingTargetText = fmt.Sprintf("≥ %g× at %d devices", bench.ScalingTarget, bench.ScalingTargetDevices)

// scalingFlags are the scaling suite's settings.
type scalingFlags struct {
	example string
	devices []int
	speed   float64
}

// check rejects settings that would fail only after the other suites ran.
func (s scalingFlags) check() error {
	p, err := examples.Purpose(s.example)
	if err != nil {
		return usageError("--scaling-example: %v", err)
	}
	if !p.Backend.Has(purpose.BackendADB) {
		return usageError("--scaling-example: %s has no adb backend to learn over (it lists: %s)", p.File, strings.Join(p.Backend.Kinds, ", "))
	}
	if len(s.devices) == 0 {
		return usageError("--scaling-devices needs at least one device count")
	}
	for _, n := range s.devices {
		if n < 1 {
			return usageError("--scaling-devices: device counts must be at least 1, got %d", n)
		}
	}
	if s.speed <= 0 {
		return usageError("--scaling-speed must be positive, got %g", s.speed)
	}
	return nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "NO"
}

func benchDroidStar(c *cobra.Command, out io.Writer, shared string, lanes int) (int, error) {
	theirs, err := bench.LoadDroidStarStats(shared)
	if err != nil {
		return 0, err
	}
	fmt.Fprintln(out, "DroidStar's typestates (simulated device, distinguisher-bound oracle, same quiescence timeouts)")
	fmt.Fprintln(out, "DroidStar's columns are its own real-device runs (Oct 2016): executed queries and wall time.")
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "class\tstates\tequal\tEQ\texecuted\tDroidStar\tratio\texcluded\tdevice-s\tDroidStar s\tspeed-up\tbound needed\t")
	bad := 0
	var sumOurs, sumTheirs int
	for _, cs := range bench.DroidStarCases {
		row, err := bench.RunDroidStarCase(c.Context(), shared, cs, lanes)
		if err != nil {
			return bad, err
		}
		t := theirs[cs.Class]
		if !row.Equal {
			bad++
		}
		sumOurs += row.Executed
		sumTheirs += t.Executed
		theirSecs := float64(t.TimeMillis) / 1000
		fmt.Fprintf(w, "%s\t%d\t%s\t%d\t%d\t%d\t%.2f\t%d\t%.1f\t%.0f\t%.1fx\t%d\t\n",
			cs.Class, row.States, yesNo(row.Equal), row.EQs, row.Executed, t.Executed,
			bench.Ratio(row.Executed, t.Executed), row.Excluded, row.DeviceSecs, theirSecs, theirSecs/row.DeviceSecs, row.Needed)
	}
	fmt.Fprintf(w, "total\t\t\t\t%d\t%d\t%.2f\t\t\t\t\t\t\n", sumOurs, sumTheirs, bench.Ratio(sumOurs, sumTheirs))
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
	fmt.Fprintln(out, "Mealy benchmarks, L* with Rivest-Schapire and a perfect teacher, beside AALpy 1.6.1's L*")
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "model\tstates\tinputs\tequal\texecuted\tAALpy\tratio\tsymbols\tAALpy\tratio\tEQ\tAALpy EQ\t")
	bad := 0
	var q, qa, s, sa int
	for _, a := range rows {
		row, err := bench.RunMealy(c.Context(), shared, a)
		if err != nil {
			return bad, err
		}
		if !row.Equal {
			bad++
		}
		q, qa, s, sa = q+row.Executed, qa+a.Executed, s+row.Symbols, sa+a.Symbols
		fmt.Fprintf(w, "%s\t%d\t%d\t%s\t%d\t%d\t%.2f\t%d\t%d\t%.2f\t%d\t%d\t\n",
			a.Model, row.States, a.Inputs, yesNo(row.Equal), row.Executed, a.Executed, bench.Ratio(row.Executed, a.Executed),
			row.Symbols, a.Symbols, bench.Ratio(row.Symbols, a.Symbols), row.EQs, a.EQs)
	}
	fmt.Fprintf(w, "total\t\t\t\t%d\t%d\t%.2f\t%d\t%d\t%.2f\t\t\t\n", q, qa, bench.Ratio(q, qa), s, sa, bench.Ratio(s, sa))
	if err := w.Flush(); err != nil {
		return bad, err
	}
	fmt.Fprintln(out)
	return bad, nil
}

func benchExamples(c *cobra.Command, out io.Writer) (int, error) {
	fmt.Fprintln(out, "Bundled examples (simulated device, models written from the Android reference)")
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "example\tstates\tmatches model\tEQ\texecuted\tdevice-s\tbound needed\t")
	bad := 0
	for _, name := range examples.Names() {
		row, err := bench.RunExample(c.Context(), name)
		if err != nil {
			return bad, err
		}
		if !row.Equal {
			bad++
		}
		fmt.Fprintf(w, "%s\t%d\t%s\t%d\t%d\t%.1f\t%d\t\n", name, row.States, yesNo(row.Equal), row.EQs, row.Executed, row.DeviceSecs, row.Needed)
	}
	if err := w.Flush(); err != nil {
		return bad, err
	}
	fmt.Fprintln(out)
	return bad, nil
}

func benchScaling(c *cobra.Command, out io.Writer, s scalingFlags) (int, error) {
	if !bench.HaveADB() {
		return 0, fmt.Errorf("the scaling suite: %w", adbtest.ErrNoADB)
	}
	counts := make([]string, len(s.devices))
	for i, n := range s.devices {
		counts[i] = strconv.Itoa(n)
	}
	fmt.Fprintf(out, "Scaling: %s learned over real ADB on %s fake devices, their harnesses answering from its model in real time\n",
		s.example, strings.Join(counts, ", "))
	if s.speed != 1 {
		fmt.Fprintf(out, "(the devices run %g× faster than real time: these are no benchmark numbers)\n", s.speed)
	}
	rows, err := bench.RunScalingWith(c.Context(), s.example, s.devices, bench.ScalingOptions{Speed: s.speed, Host: "droidstar " + Version})
	if err != nil {
		return 0, err
	}
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "devices\twall s\tspeed-up\texecuted\tdevice-s\tqueries per device\tmatches model\t")
	bad := 0
	var one, target *bench.ScalingRow
	for i, row := range rows {
		if !row.Equal {
			bad++
		}
		switch row.Devices {
		case 1:
			one = &rows[i]
		case bench.ScalingTargetDevices:
			target = &rows[i]
		}
		per := make([]string, len(row.Queries))
		for k, q := range row.Queries {
			per[k] = strconv.Itoa(q)
		}
		fmt.Fprintf(w, "%d\t%.1f\t%.2f×\t%d\t%.1f\t%s\t%s\t\n",
			row.Devices, row.WallSecs, row.SpeedUp, row.Executed, row.DeviceSecs, strings.Join(per, " "), yesNo(row.Equal))
	}
	if err := w.Flush(); err != nil {
		return bad, err
	}
	if rows[0].Devices != 1 {
		fmt.Fprintf(out, "(speed-ups are over %d devices, the first count)\n", rows[0].Devices)
	}
	switch {
	case one == nil || target == nil:
		fmt.Fprintf(out, "target: %s: not measured (--scaling-devices needs 1 and %d)\n", scalingTargetText, bench.ScalingTargetDevices)
	default:
		got := one.WallSecs / target.WallSecs
		verdict := "met"
		if got < bench.ScalingTarget {
			verdict = "NOT met"
		}
		fmt.Fprintf(out, "target: %s: %s (%.2f×)\n", scalingTargetText, verdict, got)
	}
	fmt.Fprintln(out)
	return bad, nil
}
