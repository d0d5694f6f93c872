package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/droidstar/droidstar/internal/export"
	"github.com/droidstar/droidstar/internal/model"
)

func newExportCmd(e *env) *cobra.Command {
	var format, out string
	var showErrors bool
	c := &cobra.Command{
		Use:   "export model.json",
		Short: "Render a learned model in another format",
		Long: `Export reads a model written by 'droidstar learn' and renders it as JSON,
the typestate as Graphviz DOT, DroidStar's own DOT dialect, or the text
summary. Output goes to stdout unless -o names a file.`,
		Example: `  droidstar export AsyncTask.json --format dot -o asynctask.dot
  droidstar export AsyncTask.json --format legacy-dot
  droidstar export AsyncTask.json --format summary`,
		Args: exactArgs(1, "one model file"),
		RunE: func(c *cobra.Command, args []string) error {
			if !export.IsFormat(format) {
				return usageError("--format: unknown format %q (formats: %s)", format, strings.Join(export.Formats(), ", "))
			}
			d, err := model.ReadFile(args[0])
			if err != nil {
				return err
			}
			data, err := export.Write(d, format, export.DOTOptions{ShowErrors: showErrors})
			if err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			if out == "" || out == "-" {
				_, err = e.stdout.Write(data)
				return err
			}
			if err := writeFileAtomic(out, data); err != nil {
				return err
			}
			fmt.Fprintf(e.stderr, "wrote %s\n", out)
			return nil
		},
	}
	c.Flags().StringVarP(&format, "format", "f", "dot", "output format: "+strings.Join(export.Formats(), ", "))
	c.Flags().StringVarP(&out, "out", "o", "", "output file (default stdout)")
	c.Flags().BoolVar(&showErrors, "show-errors", false, "draw the error sink and err transitions")
	_ = c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(export.Formats(), cobra.ShellCompDirectiveNoFileComp))
	return c
}
