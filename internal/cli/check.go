package cli

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	adbbackend "github.com/droidstar/droidstar/internal/backend/adb"
	"github.com/droidstar/droidstar/internal/compose"
	"github.com/droidstar/droidstar/internal/purpose"
)

func newCheckCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "check purpose.yaml...",
		Short: "Validate purpose files without running them",
		Long: `Check parses each purpose, validates it, and opens its backend far enough to
catch mismatches without running any query: a sim model that lacks a callin
or emits a callback the purpose does not declare; for the jvm backend, a
class, method, listener or argument the harness cannot resolve. Every problem is
reported as FILE:LINE:COL: FIELD: MESSAGE; the exit code is 1 if any file
has one.`,
		Example: `  droidstar check examples/asynctask/purpose.yaml
  droidstar check examples/*/purpose.yaml`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError("check needs at least one purpose file\nRun '%s --help' for usage.", c.CommandPath())
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			failed := 0
			for _, file := range args {
				summary, err := checkPurpose(c.Context(), file)
				if err != nil {
					failed++
					fmt.Fprintln(e.stderr, err)
					continue
				}
				fmt.Fprintf(e.stdout, "%s: ok: %s\n", file, summary)
			}
			if failed > 0 {
				return fmt.Errorf("%d of %d purpose files have errors", failed, len(args))
			}
			return nil
		},
	}
}

// checkPurpose opens every backend the purpose configures far enough to
// catch mismatches: a sim model is loaded and compared with the purpose,
// and a jvm harness resolves the target (classes, methods, listeners,
// arguments) without running a query.
func checkPurpose(ctx context.Context, file string) (string, error) {
	p, err := purpose.Load(file)
	if err != nil {
		return "", err
	}
	var parts []string
	for _, kind := range p.Backend.Kinds {
		q := *p
		if err := q.Backend.Use(kind); err != nil {
			return "", err
		}
		if kind == purpose.BackendADB {
			if err := adbbackend.CheckPermissions(p); err != nil {
				return "", err
			}
			parts = append(parts, "adb (resolved on the device when learning starts)")
			continue
		}
		plan, err := compose.FromPurpose(ctx, &q, os.ReadFile, backendOptions(1, false))
		if err != nil {
			return "", err
		}
		switch {
		case plan.Model != nil:
			parts = append(parts, fmt.Sprintf("sim (%s model, %d states)", plan.Model.Format, plan.Model.Machine.NumStates()))
		case len(plan.Executors) > 0:
			d := plan.Executors[0].Describe()
			parts = append(parts, fmt.Sprintf("%s (target resolved by the harness on %s %s)", kind, d.Model, d.Release))
		}
		if err := plan.Close(); err != nil {
			return "", err
		}
	}
	return fmt.Sprintf("%s, %d callins, %d callbacks, bound %d, backends %s", p.Name, len(p.Callins), len(p.Callbacks), p.Bound, strings.Join(parts, ", ")), nil
}
