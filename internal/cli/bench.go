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
		Long: `Bench learns on the simulated device and prints tables, suite by suite:
  droidstar  DroidStar's six typestates beside DroidStar's real-device runs:
             executed queries, device time, estimated wall time on --lanes
             lanes, what padding saves, and each learner
  mealy      13 public Mealy benchmarks with a perfect teacher, each learner
             beside AALpy's L*, KV and L#
  examples   the bundled examples, each checked against its model
  timeout    --timeout auto beside the fixed timeout
  checks     what each equivalence check costs and catches, on every target
             above (minutes: --bound auto on the larger Mealy models)
What each column means, the method, and every table as it prints now are in
internal/bench/README.md in the source tree.

The reference data is read from the shared directory (--shared,
$DROIDSTAR_SHARED, or a "shared" folder beside the checkout); without it
the examples run in place of the droidstar and mealy suites. Exit code 1 if
a learned model differs from its target (not in the checks suite, where a
wrong model is what it measures).

The Go benchmarks and the scaling over several devices run from a checkout
(make bench-go, bench-large, bench-scaling; the same README says how).`,
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
	c.Flags().IntVar(&lanes, "lanes", bench.DefaultLanes, "lanes for the droidstar suite's second run (the first uses 1)")
	return c
}
