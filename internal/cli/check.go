package cli

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

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
				summary, err := checkPurpose(c.Context(), e, file)
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

// checkPurpose loads a purpose and has the composition root open each of
// its backends far enough to catch mismatches.
func checkPurpose(ctx context.Context, e *env, file string) (string, error) {
	p, err := purpose.Load(file)
	if err != nil {
		return "", err
	}
	parts, err := compose.Check(ctx, p, os.ReadFile, e.backendOptions(1, false))
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s, %d callins, %d callbacks, bound %d, backends %s", p.Name, len(p.Callins), len(p.Callbacks), p.Bound, strings.Join(parts, ", ")), nil
}
