package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/droidstar/droidstar/internal/atomicfile"
	"github.com/droidstar/droidstar/internal/matrix"
	"github.com/droidstar/droidstar/internal/purpose"
	"github.com/droidstar/droidstar/internal/run"
)

// matrixOptions are what 'droidstar matrix' does: one run description
// learned on each target, and where the report goes.
type matrixOptions struct {
	// Spec is the run every target learns; its Purpose is the purpose
	// file's, which each target's sim model or java command replaces in.
	Spec    run.Spec
	Targets matrix.Flags
	Out     string
	Format  string
}

func newMatrixCmd(e *env, runF func(context.Context, *matrixOptions) error) *cobra.Command {
	o := &matrixOptions{}
	c := &cobra.Command{
		Use:     "matrix purpose.yaml",
		Short:   "Learn one purpose on several targets and diff them against the first",
		Long:    matrixLong,
		Example: matrixExample,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError("matrix needs exactly one purpose file\nRun '%s --help' for usage.", c.CommandPath())
			}
			return nil
		},
	}
	fl := c.Flags()
	fl.StringVarP(&o.Out, "out", "o", ".", "directory for the models and the matrix report")
	fl.StringVarP(&o.Format, "format", "f", matrixTable, "what stdout gets: "+strings.Join(matrixFormats, ", "))
	_ = c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(matrixFormats, cobra.ShellCompDirectiveNoFileComp))
	fl.Var(&appendFlag{list: &o.Targets.SimModels}, "sim-model", "a sim target NAME=FILE of a model (repeatable)")
	// --model was this flag's first name, but learn --model learns a model
	// file itself: one name, two meanings. The old spelling still works.
	fl.Var(&appendFlag{list: &o.Targets.SimModels}, "model", "the old name of --sim-model")
	fl.MarkDeprecated("model", "use --sim-model NAME=FILE instead")
	// pflag prints the deprecation notice to the flag set's output, which
	// cobra would copy to stdout, where the table goes.
	fl.SetOutput(e.stderr)
	fl.StringArrayVar(&o.Targets.Java, "java", nil, "a jvm target NAME=PATH of a java command (repeatable)")
	fl.StringSliceVar(&o.Targets.Devices, "devices", nil, "adb targets: all, or SERIAL or NAME=SERIAL entries")
	learning := addLearningFlags(fl)
	c.RunE = func(c *cobra.Command, args []string) error {
		o.Spec = learning.read()
		o.Targets.DevicesGiven = c.Flags().Changed("devices")
		p, err := purpose.LoadLimit(args[0], e.maxFileSize)
		if err != nil {
			return err
		}
		o.Spec.Purpose = p
		if runF != nil {
			return runF(c.Context(), o)
		}
		return runMatrix(c.Context(), e, o)
	}
	return c
}

// appendFlag is a repeatable flag whose values append to a list that
// another flag (its deprecated alias) may share, in command-line order.
type appendFlag struct{ list *[]string }

func (a *appendFlag) Set(s string) error { *a.list = append(*a.list, s); return nil }
func (a *appendFlag) Type() string       { return "stringArray" }
func (a *appendFlag) String() string     { return strings.Join(*a.list, ",") }

// The formats of matrix's stdout: the table, or a copy of matrix.md or
// matrix.json, for a CI job's summary.
const (
	matrixTable    = "table"
	matrixMarkdown = "markdown"
	matrixJSON     = "json"
)

var matrixFormats = []string{matrixTable, matrixMarkdown, matrixJSON}

func runMatrix(ctx context.Context, e *env, o *matrixOptions) error {
	if !slices.Contains(matrixFormats, o.Format) {
		return usageError("--format: unknown format %q (formats: %s)", o.Format, strings.Join(matrixFormats, ", "))
	}
	if err := atomicfile.CheckDir(o.Out); err != nil {
		return err
	}
	if err := o.Spec.Validate(); err != nil {
		return err
	}
	p := *o.Spec.Purpose
	if o.Spec.Backend != "" {
		if err := p.Backend.Use(o.Spec.Backend); err != nil {
			return usageError("--backend: %v", err)
		}
	}
	targets, devices, err := matrix.ParseTargets(p.Backend.Kind, o.Targets)
	if err != nil {
		return matrixUsage(err)
	}
	if devices != nil && o.Spec.Lanes != 1 {
		return usageError("--lanes does not apply to backend adb: each device is a target and runs one query at a time")
	}
	sess, err := run.Open(o.Spec, e.runEnv(false))
	if err != nil {
		return err
	}
	defer sess.Close()
	if devices != nil {
		found, err := sess.FindDevices(ctx, o.Spec, devices.Serials)
		if err != nil {
			return err
		}
		named := make([]matrix.Device, len(found))
		for i, d := range found {
			named[i] = matrix.Device{Serial: d.Serial, SDK: d.SDK}
		}
		if targets, err = devices.Targets(named); err != nil {
			return matrixUsage(err)
		}
	}
	// Device targets learn in parallel, and each says what it resumes
	// and when it starts.
	log := sess.Log()
	runs := &matrix.Runs{Session: sess, Spec: o.Spec, Log: log}
	// One stop for the whole matrix: the targets learning stop
	// dispatching, and no further target starts.
	release := e.stop.dispatching(runs.Stop, o.Spec.Grace)
	rep, err := matrix.Run(ctx, matrix.Spec{
		PurposeFile: p.File, Purpose: &p, Targets: targets, Out: o.Out, Log: log, Stopped: runs.Stopped, Learn: runs.Learn,
	})
	release()
	if err != nil {
		return err
	}
	if sig := e.stop.received(); sig != nil && rep.Interrupted() {
		return interruptedMatrix(rep, sig, runs.Executed(), sess.StorePath())
	}
	return writeMatrix(e, o, rep, runs)
}

// writeMatrix writes matrix.json and matrix.md, shows the format asked for
// on stdout, and says how the matrix ended.
func writeMatrix(e *env, o *matrixOptions, rep *matrix.Report, runs *matrix.Runs) error {
	data, err := rep.JSON()
	if err != nil {
		return err
	}
	md := rep.Markdown()
	if err := atomicfile.WriteSet([]atomicfile.File{
		{Path: filepath.Join(o.Out, "matrix.json"), Data: data},
		{Path: filepath.Join(o.Out, "matrix.md"), Data: []byte(md)},
	}); err != nil {
		return err
	}
	switch o.Format {
	case matrixMarkdown:
		fmt.Fprint(e.stdout, md)
	case matrixJSON:
		e.stdout.Write(data)
	default:
		fmt.Fprint(e.stdout, rep.Table())
	}
	fmt.Fprintf(e.stderr, "wrote %s and %s\n", filepath.Join(o.Out, "matrix.md"), filepath.Join(o.Out, "matrix.json"))
	// learn's exit 4 for the matrix: each unsettled target's traces side
	// by side, in target order.
	var unsettled []string
	for _, t := range rep.Targets {
		if err := runs.Unsettled(t.Name); err != nil {
			unsettled = append(unsettled, fmt.Sprintf("target %s: %v", t.Name, flakyError(err)))
		}
	}
	if len(unsettled) > 0 {
		return &exitError{code: ExitFlaky, err: errors.New(strings.Join(unsettled, "\n"))}
	}
	switch rep.Outcome() {
	case matrix.Failed:
		return fmt.Errorf("not every target learned")
	case matrix.Different:
		return fmt.Errorf("the targets differ from the baseline %s", rep.Baseline)
	}
	return nil
}

// interruptedMatrix is the stop's message for a matrix: the report's
// files are left unwritten, since targets are missing from it.
func interruptedMatrix(rep *matrix.Report, sig os.Signal, executed int, store string) error {
	ie := &interruptedError{sig: sig, executed: executed, targets: []string{}, store: store}
	for _, t := range rep.Targets {
		var line string
		switch {
		case t.Learned:
			line = "learned: " + t.File
		case t.NotRun:
			line = "not run"
		case t.Stopped:
			line = "stopped"
			if note := partialNote(t.Partial, hypothesisSize{states: t.PartialStates, sink: t.PartialSink}, t.PartialErr); note != "" {
				line += "; " + note
			}
		default:
			line = "failed: " + t.Error
		}
		ie.targets = append(ie.targets, t.Name+": "+line)
	}
	return ie
}

// matrixUsage gives the matrix package's usage errors their exit code.
func matrixUsage(err error) error {
	var u *matrix.UsageError
	if errors.As(err, &u) {
		return &exitError{code: ExitUsage, err: err}
	}
	return err
}
