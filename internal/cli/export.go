package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/droidstar/droidstar/internal/atomicfile"
	"github.com/droidstar/droidstar/internal/export"
	"github.com/droidstar/droidstar/internal/render"
)

func newExportCmd(e *env) *cobra.Command {
	var format, out string
	var showErrors, bundle bool
	c := &cobra.Command{
		Use:   "export model.json",
		Short: "Render a learned model in another format",
		Long: `Export reads a model written by 'droidstar learn' and renders it in one of
these formats (--format):

` + formatTable() + `
Output goes to stdout unless -o names a file; with -o and no --format, the
format follows the file's extension (` + extensionList() + `);
a file with another extension is refused, and one with none gets dot.

The pictures (dot, svg, mermaid) show the callback typestate: callins as
plain black arrows, callbacks as blue double arrows (⇒ in Mermaid), a wait
that timed out but changed state as a grey dashed "quiet" arrow, the initial
state with a bold outline and an arrow from a dot. An unnamed state is
labelled by its ID and the shortest way to reach it ("s5 / exec · ⇒postexec";
a way longer than 13 steps shows its first and last 6 around "… N more").
The error sink and err transitions are hidden unless --show-errors.

SVG is drawn for reading: a self-loop is a line of its state's label
("↻ start · pause"), and the same input into one state from ` + strconv.Itoa(export.BundleMin) + ` states or
more is one arrow from a dashed box that lists them ("from s0, s3, s6–s11").
DOT has one edge per transition (merged between the same two states) for
tools that read it, unless --bundle asks for the SVG's layout; Mermaid
always has one line per transition.

SVG needs no Graphviz: droidstar runs its helper droidstar-render (Graphviz
compiled to WebAssembly), which 'make build' and 'go install ./cmd/...' put
next to droidstar; $DROIDSTAR_RENDER can name it. SVG refuses a picture of
more than ` + strconv.Itoa(export.MaxDrawnEdges) + ` arrows (a bundle counts once, a self-loop not at all),
which Graphviz would take minutes to lay out: export such a model as dot
and lay it out with Graphviz's sfdp.`,
		Example: `  droidstar export AsyncTask.json -o asynctask.svg
  droidstar export AsyncTask.json --format dot -o asynctask.dot
  droidstar export AsyncTask.json --format dot --bundle   # the DOT the SVG is drawn from
  droidstar export AsyncTask.json --format mermaid        # paste into Markdown as a mermaid block
  droidstar export AsyncTask.json --format lifestate      # enable/disable/allow/disallow rules
  droidstar export AsyncTask.json --format legacy-dot
  droidstar export AsyncTask.json --format summary`,
		Args: exactArgs(1, "one model file"),
		RunE: func(c *cobra.Command, args []string) error {
			if !c.Flags().Changed("format") && out != "" && out != "-" {
				f, err := formatOfOutput(out)
				if err != nil {
					return err
				}
				if f != "" {
					format = f
				}
			}
			if !export.IsFormat(format) {
				return usageError("--format: unknown format %q (formats: %s)", format, strings.Join(export.Formats(), ", "))
			}
			if bundle && format != export.FormatDOT && format != export.FormatSVG {
				return usageError("--bundle: only the dot format bundles on request (svg always does), not %s", format)
			}
			if format == export.FormatSVG {
				if _, err := render.Find(); err != nil {
					return err
				}
			}
			d, err := e.readModel(args[0])
			if err != nil {
				return err
			}
			// The text goes straight to its destination as it is made: a
			// large model's export is not held whole in memory as well.
			write := func(w io.Writer) error {
				opts := renderOptions(c.Context(), showErrors)
				opts.Bundle = bundle
				if err := export.WriteTo(w, d, format, opts); err != nil {
					return fmt.Errorf("%s: %w", args[0], err)
				}
				return nil
			}
			return e.writeOut(out, write)
		},
	}
	c.Flags().StringVarP(&format, "format", "f", "dot", "output format (see 'droidstar help formats')")
	c.Flags().StringVarP(&out, "out", "o", "", "output file (default stdout)")
	c.Flags().BoolVar(&showErrors, "show-errors", false, "draw the error sink and err transitions (dot, svg, mermaid)")
	c.Flags().BoolVar(&bundle, "bundle", false, "dot: bundle arrows as the svg does")
	_ = c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(export.Formats(), cobra.ShellCompDirectiveNoFileComp))
	return c
}

// renderOptions are the options of the pictures: SVG is rendered by the
// droidstar-render helper.
func renderOptions(ctx context.Context, showErrors bool) export.PictureOptions {
	return export.PictureOptions{
		ShowErrors: showErrors,
		Render:     func(dot []byte) ([]byte, error) { return render.SVG(ctx, dot) },
	}
}

// formatTable lists the formats with their extensions and descriptions.
func formatTable() string {
	var b strings.Builder
	for _, f := range export.Formats() {
		fmt.Fprintf(&b, "  %-15s %-16s %s\n", f, export.Extension(f), export.Description(f))
	}
	return b.String()
}

func extensionList() string {
	var exts []string
	for _, f := range export.Formats() {
		exts = append(exts, export.Extension(f))
	}
	return strings.Join(exts, ", ")
}

// formatOfFile is the format whose extension ends the file name (the
// longest such extension, so .lifestate.json is not json), or "".
func formatOfFile(name string) string {
	formats := export.Formats()
	sort.SliceStable(formats, func(a, b int) bool { return len(export.Extension(formats[a])) > len(export.Extension(formats[b])) })
	for _, f := range formats {
		if strings.HasSuffix(name, export.Extension(f)) {
			return f
		}
	}
	return ""
}

// formatOfOutput is the format -o's extension names: "" for a file with
// no extension (the default format applies), a usage error listing the
// formats for an extension no format has, so that x.png never holds DOT.
func formatOfOutput(out string) (string, error) {
	if f := formatOfFile(out); f != "" {
		return f, nil
	}
	ext := filepath.Ext(out)
	if ext == "" {
		return "", nil
	}
	var known []string
	for _, f := range export.Formats() {
		known = append(known, export.Extension(f)+" ("+f+")")
	}
	return "", usageError("-o %s: export writes no %s files; it writes %s: name the file with one of these extensions, or give --format",
		out, ext, strings.Join(known, ", "))
}

// writeOut writes a command's --out: stdout for "" or "-", else the file
// (atomically), saying so on stderr so that stdout stays the data alone.
func (e *env) writeOut(out string, write func(io.Writer) error) error {
	if out == "" || out == "-" {
		bw := bufio.NewWriter(e.stdout)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	}
	if err := atomicfile.WriteStream(out, write); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "wrote %s\n", out)
	return nil
}
