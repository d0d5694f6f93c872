package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/droidstar/droidstar/internal/atomicfile"
	"github.com/droidstar/droidstar/internal/diff"
	"github.com/droidstar/droidstar/internal/render"
)

// errDiffer is diff's answer when the models differ: exit code 1, as
// diff(1) and cmp(1) do; trouble (a model that cannot be read or compared)
// is exit code 2.
var errDiffer = errors.New("the models differ")

// diffTrouble wraps an error that kept diff from comparing: exit code 2.
func diffTrouble(err error) error { return &exitError{code: ExitUsage, err: err} }

func newDiffCmd(e *env) *cobra.Command {
	var format, out, dotFile, svgFile string
	var maxTraces int
	c := &cobra.Command{
		Use:   "diff old.json new.json",
		Short: "Compare two learned models: same behaviour, shortest differing traces, changed transitions",
		Long: `Diff compares two models written by 'droidstar learn', for instance the same
purpose learned on API 23 and on API 34, and tells whether they accept the same
behaviour.

A trace is a sequence of callins and waits with their answers, written
"prepare · wait/prepared · start". A model accepts a trace when it gives those
answers and no callin answers err. A wait that answers quiet and stays put is
no event, and neither is a wait that answers err (typestates drop both); a
wait that times out and moves on is shown as wait/quiet. When the behaviour
differs, diff prints the shortest traces each model accepts and the other
rejects (up to --max-traces per direction, shortest first), with what the
other model does where they part, and the typestate transitions removed,
added or changed under a best matching of the two models' states.

When the alphabets differ (a callin added in a newer Android, a callback
gone), diff says so and compares the behaviour on the shared callins.

Large models: states are matched by a heaviest matching up to 10000 pairs
of states (100 a side), greedily beyond (each state with the state its
access trace leads to, or one that answers every word of up to 3 inputs
alike). The text and markdown reports list at most 1000 state pairs and
1000 transitions of each kind, then say "... and N more"; the JSON lists
them all. When the two models' product has more than 1048576 pairs of
states, the search stops there once it has the traces it shows, and the
counts read "at least N".

Exit status: 0 when the models have the same alphabets and behaviour, 1 when
they differ, 2 when a model cannot be read or the two cannot be compared (a
closure model and a plain Mealy one, or two models with no callin in common).`,
		Example: `  # a nightly job: fail when the typestates learned on two Android versions differ
  droidstar diff api23/MediaPlayer.json api34/MediaPlayer.json

  # MediaPlayer against a variant with one transition changed (testdata/diff)
  droidstar learn --example mediaplayer -o old -q --write json
  droidstar learn testdata/diff/mediaplayer-pause-error/purpose.yaml -o new -q --write json
  droidstar diff old/MediaPlayer.json new/MediaPlayer.json

  # a report for a pull request, and a picture of both typestates in one
  droidstar diff old.json new.json --format markdown --svg diff.svg

  # machine-readable, every shortest witness up to 10 per direction
  droidstar diff old.json new.json --format json --max-traces 10`,
		Args: exactArgs(2, "two model files"),
		RunE: func(c *cobra.Command, args []string) error {
			if !slices.Contains(diff.Formats(), format) {
				return usageError("--format: unknown format %q (formats: %s)", format, strings.Join(diff.Formats(), ", "))
			}
			if maxTraces < 1 {
				return usageError("--max-traces must be at least 1, got %d", maxTraces)
			}
			// Each document is dropped once loaded: two large documents
			// at once take more memory than the whole comparison.
			models := make([]*diff.Model, 2)
			for k, file := range args {
				d, err := e.readModel(file)
				if err != nil {
					return diffTrouble(err)
				}
				if models[k], err = diff.Load(d, file); err != nil {
					return diffTrouble(err)
				}
			}
			rep, err := diff.CompareModels(models[0], models[1], diff.Options{MaxTraces: maxTraces})
			if err != nil {
				return diffTrouble(err)
			}
			toStdout := out == "" || out == "-"
			// The report and its pictures are written as a set; a report
			// to stdout is streamed after them (the JSON of two large
			// models runs to hundreds of MB).
			var files []atomicfile.File
			if dotFile != "" || svgFile != "" {
				dot, err := rep.DOT()
				if err != nil {
					return diffTrouble(err)
				}
				if dotFile != "" {
					files = append(files, atomicfile.File{Path: dotFile, Data: dot})
				}
				if svgFile != "" {
					svg, err := render.SVG(c.Context(), dot)
					if err != nil {
						return diffTrouble(fmt.Errorf("--svg: %w", err))
					}
					files = append(files, atomicfile.File{Path: svgFile, Data: svg})
				}
			}
			if !toStdout {
				data, err := rep.Write(format)
				if err != nil {
					return diffTrouble(err)
				}
				files = append(files, atomicfile.File{Path: out, Data: data})
			}
			if err := atomicfile.WriteSet(files); err != nil {
				return diffTrouble(err)
			}
			for _, f := range files {
				fmt.Fprintf(e.stderr, "wrote %s\n", f.Path)
			}
			if toStdout {
				if err := rep.WriteTo(e.stdout, format); err != nil {
					return diffTrouble(err)
				}
			}
			if !rep.Same {
				return errDiffer
			}
			return nil
		},
	}
	fl := c.Flags()
	fl.StringVarP(&format, "format", "f", diff.FormatText, "report format: "+strings.Join(diff.Formats(), ", "))
	fl.StringVarP(&out, "out", "o", "", "write the report to this file (default stdout)")
	fl.IntVar(&maxTraces, "max-traces", diff.DefaultMaxTraces, "shortest differing traces to show per direction")
	fl.StringVar(&dotFile, "dot", "", "write both typestates over each other as Graphviz DOT to this file")
	fl.StringVar(&svgFile, "svg", "", "draw both typestates over each other as SVG to this file")
	_ = c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(diff.Formats(), cobra.ShellCompDirectiveNoFileComp))
	return c
}
