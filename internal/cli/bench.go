package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/droidstar/droidstar/internal/bench"
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
			for _, o := range only {
				if !slices.Contains(bench.Suites(), o) {
					return usageError("--only: unknown suite %q (suites: %s)", o, strings.Join(bench.Suites(), ", "))
				}
			}
			if lanes < 1 {
				return usageError("--lanes must be at least 1, got %d", lanes)
			}
			bad, err := bench.Run(c.Context(), e.stdout, bench.Options{Only: only, Shared: bench.SharedDir(shared), Lanes: lanes})
			if err != nil {
				return err
			}
			if bad > 0 {
				return fmt.Errorf("%d learned models differ from their targets", bad)
			}
			return nil
		},
	}
	c.Flags().StringVar(&shared, "shared", "", "the reference data (default: $DROIDSTAR_SHARED, else ../shared)")
	c.Flags().StringSliceVar(&only, "only", nil, "run only these suites: "+strings.Join(bench.Suites(), ", "))
	c.Flags().IntVar(&lanes, "lanes", 4, "lanes of the DroidStar suite's second run (the first runs on 1)")
	return c
}
