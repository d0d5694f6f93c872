package cli

import (
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/droidstar/droidstar/internal/export"
	"github.com/droidstar/droidstar/internal/render"
	"github.com/droidstar/droidstar/internal/report"
)

func newReportCmd(e *env) *cobra.Command {
	var out string
	c := &cobra.Command{
		Use:   "report model.json",
		Short: "Write a learned model as a self-contained HTML report",
		Long: `Report reads a model written by 'droidstar learn' and writes one HTML page
that loads nothing from elsewhere (its CSS and the SVG are inline):

  - what was learned: the class, the purpose, the backend and its devices,
    when and by which droidstar
  - the typestate picture, the SVG 'droidstar export --format svg' draws,
    at its own size in a window that zooms (wheel, buttons, fit), pans
    (drag) and opens the picture alone at full size
  - the statistics in the columns of DroidStar's Table 1, as the summary
    prints them, with device time, cache hits and excluded queries
  - the warnings: timing violations, non-determinism, errors of unknown
    cause; the queries the purpose's restrictions excluded are by design,
    counted in one line that links to their list
  - every transition, with the reason behind each err answer
  - the statistics of the learning and equivalence phases (per-query logs
    are not recorded yet)

The picture needs the droidstar-render helper (see 'droidstar export
--help'); without it the page says so in place of the picture, droidstar
warns on stderr and still writes the report. A typestate of more than
` + strconv.Itoa(export.MaxDrawnEdges) + ` arrows (a bundle counts once) is not drawn: Graphviz would take
minutes, and the picture could not be read; the page says so, and how to
draw it ('droidstar export --format dot', then Graphviz's sfdp). Output goes
to stdout unless -o names a file. The same model always gives the same page.`,
		Example: `  droidstar learn --example mediaplayer -o out/
  droidstar report out/MediaPlayer.json -o mediaplayer.html
  droidstar report AsyncTask.json > asynctask.html`,
		Args: exactArgs(1, "one model file"),
		RunE: func(c *cobra.Command, args []string) error {
			d, err := e.readModel(args[0])
			if err != nil {
				return err
			}
			// Without the helper (or when it fails) the page says why in
			// place of the picture; the report is still written.
			var pictureErr error
			opts := report.Options{Render: func(dot []byte) ([]byte, error) {
				svg, err := render.SVG(c.Context(), dot)
				pictureErr = err
				return svg, err
			}}
			// The page goes straight to its destination as it is made.
			write := func(w io.Writer) error {
				if err := report.WriteHTML(w, d, opts); err != nil {
					return fmt.Errorf("%s: %w", args[0], err)
				}
				if pictureErr != nil {
					fmt.Fprintf(e.stderr, "droidstar: warning: the report has no typestate picture: %v\n", pictureErr)
				}
				return nil
			}
			return e.writeOut(out, write)
		},
	}
	c.Flags().StringVarP(&out, "out", "o", "", "output file (default stdout)")
	return c
}
