package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/droidstar/droidstar/examples"
)

func newExamplesCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "examples",
		Short: "List the example purposes built into droidstar",
		Long: `The examples are learning purposes for Android classes with simulation models
written from the Android reference documentation, so they run anywhere with
no device. Learn one with 'droidstar learn --example NAME'; the same files
are under examples/ in the source tree.`,
		Example: "  droidstar examples\n  droidstar learn --example mediaplayer",
		Args:    exactArgs(0, "no arguments"),
		RunE: func(c *cobra.Command, args []string) error {
			w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "NAME\tCLASS\tCALLINS\tCALLBACKS")
			for _, name := range examples.Names() {
				p, err := examples.Purpose(name)
				if err != nil {
					return err
				}
				fmt.Fprintf(w, "%s\t%s\t%d\t%d\n", name, p.Class, len(p.Callins), len(p.Callbacks))
			}
			return w.Flush()
		},
	}
}
