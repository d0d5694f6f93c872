// Package cli is droidstar's command line: one file per command, each a thin
// layer over the packages that do the work.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/droidstar/droidstar/internal/inputfile"
	"github.com/droidstar/droidstar/internal/progress"
	"github.com/droidstar/droidstar/internal/run"
)

// Exit codes.
const (
	ExitOK    = 0
	ExitFail  = 1 // the command ran and failed (bad purpose, learning error)
	ExitUsage = 2 // the command line itself is wrong
)

// exitError carries an exit code other than ExitFail.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageError(format string, args ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, args...)}
}

// newRoot builds the command tree.
func newRoot(e *env) *cobra.Command {
	stdout, stderr := e.stdout, e.stderr
	root := &cobra.Command{
		Use:   "droidstar",
		Short: "Learn callback typestates of Android classes by active automata learning",
		Long: `droidstar learns the callback typestate of a class: which callins (methods the
app calls) are allowed in which state, and which callbacks (methods the
framework calls back) follow. It learns actively (L*, KV or L#, each hypothesis
checked by the bound oracle and a conformance test), asking membership queries
of the backend a purpose file names: Android phones and emulators over adb, the
real class on this machine's JVM, or a simulated device answering from a model.`,
		Example: `  # learn an embedded example on the simulated device (no phone needed)
  droidstar learn --example asynctask

  # learn a purpose on the attached phone, writing model JSON and typestate DOT to out/
  droidstar learn examples/mediaplayer/purpose.yaml -o out/

  # the devices adb sees, and learning on all of them at once
  droidstar devices
  droidstar learn examples/mediaplayer/purpose.yaml --devices all

  # validate a purpose without running it
  droidstar check examples/*/purpose.yaml`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       toolVersion(),
	}
	if e.maxFileSize == 0 {
		e.maxFileSize = inputfile.DefaultMaxSize
	}
	root.PersistentFlags().Var(sizeFlag{&e.maxFileSize}, "max-file-size", "largest purpose or model file read (K, M, G)")
	root.SetUsageTemplate(topicsUsage())
	root.SetHelpCommand(newHelpCmd(e))
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError("%w\nRun '%s --help' for usage.", err, c.CommandPath())
	})
	root.AddCommand(newLearnCmd(e, nil), newCheckCmd(e), newExportCmd(e), newBenchCmd(e),
		newExamplesCmd(e), newVersionCmd(e), newDiffCmd(e))
	root.AddCommand(newReportCmd(e), newMatrixCmd(e, nil), newDevicesCmd(e), newHarnessCmd(e), newDoctorCmd(e))
	root.AddCommand(newStoreCmd(e), newInitCmd(e))
	return root
}

// Main runs the command line and returns the process exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	return mainWith(args, &env{stdout: stdout, stderr: stderr, getenv: os.Getenv, stderrTerminal: isTerminal(stderr),
		stdoutWidth: terminalWidth(stdout)})
}

func mainWith(args []string, e *env) int {
	stderr := e.stderr
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := e.signals
	if sigs == nil {
		ch := make(chan os.Signal, 2)
		signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(ch)
		sigs = ch
	}
	exit := e.exit
	if exit == nil {
		exit = os.Exit
	}
	e.stop = &stopper{stderr: stderr, cancel: cancel, exit: exit}
	done := make(chan struct{})
	defer close(done)
	go e.stop.watch(sigs, done)
	root := newRoot(e)
	root.SetArgs(args)
	err := e.stop.interrupted(root.ExecuteContext(ctx))
	if err == nil {
		return ExitOK
	}
	fmt.Fprintf(stderr, "droidstar: %v\n", err)
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	var usage *run.UsageError
	if errors.As(err, &usage) || isUnknownCommand(err) {
		return ExitUsage
	}
	return ExitFail
}

// isUnknownCommand says whether err is cobra's for a command name it does
// not know: a wrong command line, as an unknown flag is, though cobra
// gives it no type of its own (it runs no Args check on a root that
// cannot run).
func isUnknownCommand(err error) bool {
	return strings.HasPrefix(err.Error(), "unknown command ")
}

// exactArgs is cobra.ExactArgs with a usage exit code.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) != n {
			return usageError("%s takes %s, got %d arguments\nRun '%s --help' for usage.", c.CommandPath(), what, len(args), c.CommandPath())
		}
		return nil
	}
}

func newVersionCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print droidstar's version",
		Example: "  droidstar version",
		Args:    exactArgs(0, "no arguments"),
		RunE: func(c *cobra.Command, args []string) error {
			fmt.Fprintf(e.stdout, "droidstar %s\n", toolVersion())
			return nil
		},
	}
}

// terminalWidth is the width of the terminal w is, 0 when it is none.
func terminalWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !progress.IsTerminal(f) {
		return 0
	}
	width, _, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return 0
	}
	return width
}

// isTerminal says whether w is a terminal (a live display can redraw it).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && progress.IsTerminal(f)
}
