package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/droidstar/droidstar/examples"
	"github.com/droidstar/droidstar/internal/atomicfile"
	"github.com/droidstar/droidstar/internal/export"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/progress"
	"github.com/droidstar/droidstar/internal/purpose"
	"github.com/droidstar/droidstar/internal/render"
	"github.com/droidstar/droidstar/internal/run"
)

// learnOptions are what 'droidstar learn' does: the run, and where its
// results go.
type learnOptions struct {
	Spec run.Spec
	// Out is the folder of the written files, Write their formats.
	Out        string
	Write      []string
	ShowErrors bool
	// Quiet prints nothing but errors and warnings.
	Quiet bool
	// ProgressEvery is the least time between two progress lines when
	// stderr is not a terminal.
	ProgressEvery time.Duration
}

func newLearnCmd(e *env, runF func(context.Context, *learnOptions) error) *cobra.Command {
	o := &learnOptions{}
	var example, modelFile, modelFormat string
	var device string
	var devices, callins []string
	var svg bool
	var settle time.Duration
	m := run.DefaultModelFile("")
	c := &cobra.Command{
		Use:     "learn [purpose.yaml]",
		Short:   "Learn the callback typestate a purpose describes",
		Long:    learnLong,
		Example: learnExample,
		Args: func(c *cobra.Command, args []string) error {
			sources := len(args)
			for _, given := range []bool{example != "", modelFile != ""} {
				if given {
					sources++
				}
			}
			if sources != 1 || len(args) > 1 {
				return usageError("learn needs exactly one of: a purpose file, --example NAME, --model FILE\nRun '%s --help' for usage.", c.CommandPath())
			}
			return nil
		},
	}
	learning := addLearningFlags(c.Flags())
	c.RunE = func(c *cobra.Command, args []string) error {
		o.Spec = learning.read()
		o.Spec.Example, o.Spec.Device, o.Spec.Devices = example, device, devices
		switch {
		case modelFile != "":
			m.Path, m.Format, m.Callins = modelFile, modelFormat, callins
			if c.Flags().Changed("settle") {
				m.Settle = &settle
			}
			o.Spec.Model = m
		case len(args) == 1:
			p, err := purpose.LoadLimit(args[0], e.maxFileSize)
			if err != nil {
				return err
			}
			o.Spec.Purpose = p
		}
		if svg && !slices.Contains(o.Write, export.FormatSVG) {
			o.Write = append(o.Write, export.FormatSVG)
		}
		if runF != nil {
			return runF(c.Context(), o)
		}
		return runLearn(c.Context(), e, o)
	}
	fl := c.Flags()
	fl.StringVarP(&o.Out, "out", "o", ".", "directory for the written files")
	fl.StringSliceVar(&o.Write, "write", []string{"json", "dot"}, "formats to write (droidstar help formats)")
	fl.BoolVar(&svg, "svg", false, "also write the picture NAME.svg")
	fl.BoolVar(&o.ShowErrors, "show-errors", false, "draw the error sink in the pictures")
	fl.BoolVarP(&o.Quiet, "quiet", "q", false, "print only errors and warnings")
	fl.DurationVar(&o.ProgressEvery, "progress-interval", 10*time.Second, "time between progress lines off a terminal")
	fl.StringVar(&example, "example", "", "learn an embedded example")
	fl.StringVar(&modelFile, "model", "", "learn a model file (DOT or JSON)")
	fl.StringVar(&modelFormat, "model-format", m.Format, "--model's format")
	fl.DurationVar(&m.Quiescence, "quiescence", m.Quiescence, "--model: quiescence timeout")
	fl.DurationVar(&m.Reset, "reset", m.Reset, "--model: device time per reset")
	fl.DurationVar(&settle, "settle", purpose.DefaultSettle, "--model: late-callback window in --reset")
	fl.DurationVar(&m.Latency, "latency", m.Latency, "--model: callback latency")
	fl.StringSliceVar(&callins, "callins", nil, "--model: the callins, in order")
	fl.StringVarP(&device, "device", "s", "", "the device's serial (default: $ANDROID_SERIAL)")
	fl.StringSliceVar(&devices, "devices", nil, "devices sharing the run: all, or serials")
	_ = c.RegisterFlagCompletionFunc("example", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return examples.Names(), cobra.ShellCompDirectiveNoFileComp
	})
	_ = c.RegisterFlagCompletionFunc("write", cobra.FixedCompletions(export.Formats(), cobra.ShellCompDirectiveNoFileComp))
	return c
}

// runLearn learns what o.Spec describes, prints the summary and writes the
// model in o.Write's formats; a run that does not finish writes what it
// kept as NAME.partial.json.
func runLearn(ctx context.Context, e *env, o *learnOptions) error {
	for _, w := range o.Write {
		if !export.IsFormat(w) {
			return usageError("--write: unknown format %q (formats: %s)", w, strings.Join(export.Formats(), ", "))
		}
	}
	if slices.Contains(o.Write, export.FormatSVG) {
		// Fail now, not after a long learning run.
		if _, err := render.Find(); err != nil {
			return err
		}
	}
	if o.ProgressEvery <= 0 {
		return usageError("--progress-interval must be positive, got %s", o.ProgressEvery)
	}
	if err := o.Spec.Validate(); err != nil {
		return err
	}
	// Before any device work: a model learned into a folder it cannot be
	// written to would be lost.
	if err := atomicfile.CheckDir(o.Out); err != nil {
		return err
	}
	sess, err := run.Open(o.Spec, e.runEnv(o.Quiet))
	if err != nil {
		return err
	}
	defer sess.Close()
	r, err := sess.Start(ctx, o.Spec, "")
	if err != nil {
		return withOtherBackends(err, o.Spec.Purpose)
	}
	defer r.Close()
	display := progress.New(progress.Options{Out: e.stderr, Terminal: e.stderrTerminal, Quiet: o.Quiet, Interval: o.ProgressEvery})
	release := e.stop.dispatching(r.Stop, o.Spec.Grace)
	out, err := r.Learn(ctx, display.Update)
	release()
	display.Finish(out.Final)
	if err != nil {
		return learnFailed(e, o, r, sess, out, err)
	}
	doc := out.Document
	if !o.Quiet {
		fmt.Fprint(e.stdout, export.Summary(doc))
	}
	// The formats are written as a set: a picture that fails to render
	// leaves the model files of an earlier run as they were.
	var files []atomicfile.File
	for _, format := range o.Write {
		data, err := export.Write(doc, format, renderOptions(ctx, o.ShowErrors))
		if err != nil {
			return err
		}
		files = append(files, atomicfile.File{Path: filepath.Join(o.Out, model.FileBase(doc.Name)+export.Extension(format)), Data: data})
	}
	if err := atomicfile.WriteSet(files); err != nil {
		return err
	}
	if !o.Quiet {
		for _, file := range files {
			fmt.Fprintf(e.stderr, "wrote %s\n", file.Path)
		}
	}
	return nil
}

// learnFailed says why a run did not finish and writes what it kept as
// NAME.partial.json: after a signal, the stop's message; with the budget
// spent, how to go on; otherwise the error, with an unsettled vote's
// report.
func learnFailed(e *env, o *learnOptions, r *run.Run, sess *run.Session, out *run.Outcome, err error) error {
	var file string
	var werr error
	var size hypothesisSize
	if out.Document != nil {
		file, werr = run.WritePartial(o.Out, out.Document.Name, out.Document)
		size = sizeOf(out.Document)
	}
	var budget *run.BudgetError
	switch sig := e.stop.received(); {
	case sig != nil:
		return &interruptedError{sig: sig, executed: r.Executed(), store: sess.StorePath(), partial: file, size: size, writeErr: werr}
	case errors.As(err, &budget):
		msg := budget.Error()
		if store := sess.StorePath(); store != "" {
			msg += "; they are kept in the query store " + store
		}
		if note := partialNote(file, size, werr); note != "" {
			msg += "; " + note
		}
		if sess.StorePath() != "" {
			msg += "; run again with a larger --max-queries to go on from there"
		}
		return errors.New(msg)
	}
	switch {
	case werr != nil:
		err = fmt.Errorf("%w (and writing the partial model failed: %v)", err, werr)
	case file != "":
		err = fmt.Errorf("%w\n%s", err, partialNote(file, size, nil))
	}
	return flakyError(err)
}

// withOtherBackends adds to a "no device" failure of a purpose's default
// backend adb the backends it also lists that need no device: a copied
// example lists adb first, and its user may have no phone at hand.
func withOtherBackends(err error, p *purpose.Purpose) error {
	var noDevice *run.NoDeviceError
	if !errors.As(err, &noDevice) || len(noDevice.Others) == 0 {
		return err
	}
	what := map[string]string{purpose.BackendSim: "it simulates the class from the purpose's model", purpose.BackendJVM: "it runs the class on this host's JVM"}
	hint := ""
	for _, k := range noDevice.Others {
		hint += fmt.Sprintf("\nthe purpose also lists backend %s, which needs no device (%s): droidstar learn %s --backend %s", k, what[k], p.File, k)
	}
	return fmt.Errorf("%w%s", err, hint)
}
