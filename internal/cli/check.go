package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/droidstar/droidstar/internal/purpose"
	"github.com/droidstar/droidstar/internal/session"
)

func newCheckCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "check purpose.yaml...",
		Short: "Validate purpose files without running them",
		Long: `Check parses each purpose, validates it, and opens its backend far enough to
catch mismatches (a sim model that lacks a callin, or emits a callback the
purpose does not declare) without running any query. Every problem is
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
				summary, err := checkPurpose(file)
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

func checkPurpose(file string) (string, error) {
	p, err := purpose.Load(file)
	if err != nil {
		return "", err
	}
	plan, err := session.FromPurpose(p, os.ReadFile, session.SimOptions{})
	if err != nil {
		return "", err
	}
	defer plan.Close()
	s := fmt.Sprintf("%s, %d callins, %d callbacks, bound %d, backend %s", p.Name, len(p.Callins), len(p.Callbacks), p.Bound, p.Backend.Kind)
	if plan.Model != nil {
		s += fmt.Sprintf(" (%s model, %d states)", plan.Model.Format, plan.Model.Machine.NumStates())
	}
	return s, nil
}
