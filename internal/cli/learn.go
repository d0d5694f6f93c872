package cli

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/droidstar/droidstar/examples"
	"github.com/droidstar/droidstar/internal/atomicfile"
	"github.com/droidstar/droidstar/internal/backend/sim"
	"github.com/droidstar/droidstar/internal/compose"
	"github.com/droidstar/droidstar/internal/engine"
	"github.com/droidstar/droidstar/internal/export"
	"github.com/droidstar/droidstar/internal/learn"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/oracle/budget"
	"github.com/droidstar/droidstar/internal/oracle/calibrate"
	"github.com/droidstar/droidstar/internal/oracle/pad"
	"github.com/droidstar/droidstar/internal/progress"
	"github.com/droidstar/droidstar/internal/purpose"
	"github.com/droidstar/droidstar/internal/render"
)

type learnFlags struct {
	boundCounts string
	out         string
	write       []string
	example     string
	modelFile   string
	format      string
	bound       string
	conformance string
	learner     string
	oracle      string
	quiescence  time.Duration
	reset       time.Duration
	settle      time.Duration
	latency     time.Duration
	callins     []string
	lanes       int
	realtime    bool
	showErrors  bool
	svg         bool
	quiet       bool
	grace       time.Duration
	progress    time.Duration
	maxQueries  int
	pad         pad.Sizes
	timeout     string
	backend     string
	adb         adbFlags
	store       storeFlags
	vote        voteFlags
}

func newLearnCmd(e *env) *cobra.Command {
	f := &learnFlags{}
	c := &cobra.Command{
		Use:   "learn [purpose.yaml]",
		Short: "Learn the callback typestate a purpose describes",
		Long: `Learn runs L* with the distinguisher-bound equivalence oracle against the
purpose's backend, prints a summary, and writes the model (JSON) and the
typestate (DOT) to the output directory. --write picks other formats (see
'droidstar export --help'); --svg adds the typestate picture NAME.svg. With
--model it learns a model file directly, deriving the alphabet from the
model, as AALpy and LearnLib users learn a DOT file.

The bound oracle is exact when the target tells its states apart by words of
at most --bound free symbols, and only then; the summary says so ("exact if
the target needs bound <= B") and gives the bound the learned model needs,
which is not the target's: a bound too small for the target yields a smaller,
wrong model that needs no more. --bound auto starts at 1 and raises the bound
while a raised bound's rounds find counterexamples (up to 4, or auto:MAX) and
says where it settled and why. Once a hypothesis passes the bound, the
conformance test runs (--conformance, default wp:1: the Wp-method with one
extra state; a model that passes is exact also if the target has at most one
state more); random:N samples N random words instead; off skips it. The
summary says which check found each counterexample. When the target is known
in full (--model, or backend sim) the result is compared with it: the
summary's target line and the JSON's target object say whether they are equal
and the bound the target needs, and a warning names the shortest word on
which the result is wrong. --oracle perfect compares every hypothesis with
the target instead (backend sim only), so the result is exact.

On devices (backend: adb) the harness app is installed when missing or
different, the purpose's files are pushed and its runtime permissions granted
for the user in the foreground, whom the harness runs as. The screen stays on
while the device is plugged in over USB until the run ends, when the device's
setting is put back (--keep-awake=false leaves it alone).
With one device attached nothing needs choosing; otherwise --device SERIAL (or
ANDROID_SERIAL) picks one, and --devices all (or a list of serials) shares the
queries of one run among several, which must all answer alike. -H/-P (or
ADB_SERVER_SOCKET) reach a remote adb server, such as a device farm's.
On several lanes or devices, one that would wait for a batch's last query
runs words the learner expects to ask next (spares) when their predicted
device time fits in the wait: they count as executed queries and are kept
in the cache and the store like any other; one lane never runs one.

While learning, a live progress display on stderr shows the phase, the
queries run and answered from the cache, the hypothesis size, device time and
an estimate of what is left (plain periodic lines when stderr is not a
terminal); --quiet prints nothing but errors and warnings: no progress, no
summary, no list of the files written.

--timeout auto calibrates the quiescence timeout instead of waiting the
purpose's timeouts.quiescence on every quiet answer. It keeps one timeout
per wait context: the callin before the wait and how many waits came since
(start+2 is the second wait after start, +1 the first from the initial
state). Each starts at 50ms (auto:START to choose) and rises to twice the
slowest callback seen in its context, at least doubling, never above the
purpose's timeout: a wait answered by a callback waited its latency, and a
callback that came after its wait had answered quiet (a late callback, seen
while the query settles) came at least that timeout late. Every backend
times each wait on its own (the harness's run requests carry them). A wait
from the initial state and after each input from it runs first under the
purpose's timeout, and so do each hypothesis's quiet waits, from its
states and after each input from them, so that a callback too slow to show
otherwise raises its context's timeout early. A quiet answered under a
shorter timeout than its context's current one is never used: the cache
and the query store ask it again, and before a model is final learning
starts again from the cache until every quiet it rests on waited its
context's final timeout. The summary's timeout line says which contexts
rose, to what and why. The guarantee rests on the margin over the tail
observed in each context, not on a proof: a callback slower than every one
observed in its context (and slower than the purpose's timeout from the
states the confirmation runs) can still be missed when a callin pre-empts
it, or when it comes after the settle window where no late callback is
seen.

If learning fails part-way, the last hypothesis is written as
NAME.partial.json so nothing learned is lost. --max-queries N stops a run
once N queries have run on devices (answers from the cache or the store are
free) in the same way, with exit code 1. Every executed query is kept in
the query store (see 'droidstar store --help'), so running the same command
again resumes: no query runs twice and the model is the same; the summary
says how many answers came from the store. --fresh ignores what is stored.

SIGINT (Ctrl-C) or SIGTERM stops the run: no new query starts, the running
ones get --grace to finish, NAME.partial.json gets the last hypothesis (or,
before the first one, the statistics so far), harness JVMs are ended, their
temporary folders and the run's folder on the device removed, and droidstar
exits with 130 (SIGINT) or 143 (SIGTERM). A second Ctrl-C ends it at once
(a second SIGTERM does not: timeout(1) sends it twice). Since a harness
answers a request only once all of it has run, the queries go to devices and
harness JVMs in requests of about half --grace of device time each, so that
the one running at a stop finishes in time.`,
		Example: `  droidstar learn --example asynctask
  droidstar learn examples/mediaplayer/purpose.yaml --backend sim -o out/ --write json,dot,legacy-dot
  droidstar learn --example asynctask -o out/ --svg --write json,mermaid,lifestate
  droidstar learn --model typestate.gv --bound 2 --quiescence 2s
  droidstar learn --model server.dot --lanes 4
  droidstar learn --model server.dot --oracle perfect   # exact, whatever bound it needs
  droidstar learn --model server.dot --bound auto --conformance wp:2
  droidstar learn --example mediaplayer --conformance random:500:7
  droidstar learn --example fileobserver --timeout auto     # calibrated quiescence
  droidstar learn examples/jvm/timer.yaml --store team.db   # a store shared with a team
  droidstar learn examples/jvm/timer.yaml --fresh           # run every query again
  droidstar learn examples/jvm/timer.yaml            # the real harness on the host JVM
  droidstar learn examples/mediaplayer/purpose.yaml --backend sim   # the model, no device
  droidstar learn examples/mediaplayer/purpose.yaml                  # the phone adb sees
  droidstar learn examples/mediaplayer/purpose.yaml --device emulator-5554
  droidstar learn examples/mediaplayer/purpose.yaml --devices all -H farm.example.org`,
		Args: func(c *cobra.Command, args []string) error {
			sources := len(args)
			if f.example != "" {
				sources++
			}
			if f.modelFile != "" {
				sources++
			}
			if sources != 1 || len(args) > 1 {
				return usageError("learn needs exactly one of: a purpose file, --example NAME, --model FILE\nRun '%s --help' for usage.", c.CommandPath())
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			return runLearn(c, e, f, args)
		},
	}
	fl := c.Flags()
	fl.StringVarP(&f.out, "out", "o", ".", "directory for the written files")
	fl.StringSliceVar(&f.write, "write", []string{"json", "dot"}, "formats to write: "+strings.Join(export.Formats(), ", "))
	fl.BoolVar(&f.svg, "svg", false, "also write the typestate picture NAME.svg (same as adding svg to --write)")
	fl.StringVar(&f.example, "example", "", "learn an embedded example (see 'droidstar examples')")
	fl.StringVar(&f.modelFile, "model", "", "learn a model file directly (DroidStar DOT, Mealy DOT or droidstar JSON)")
	fl.StringVar(&f.format, "model-format", "auto", "format of --model: auto, droidstar-dot, mealy-dot, json")
	fl.StringVar(&f.boundCounts, "bound-counts", "", "which symbols the bound counts (default: the purpose's bound_counts, else free): free (a wait a followed_by_wait restriction forces after a callin is part of that callin's step) or every (every symbol, as DroidStar counted: where waits are forced it reaches less far, and costs less)")
	fl.StringVar(&f.bound, "bound", "", "distinguisher bound in free symbols (default: the purpose's bound, else 2): N, or auto (start at 1, raise while a raised bound's round finds counterexamples, up to 4) or auto:MAX; the wait a followed_by_wait restriction forces after a callin is part of that callin's step and not counted; the model is exact if the target needs no more than the bound used")
	fl.StringVar(&f.conformance, "conformance", defaultConformance, "conformance test run once a hypothesis passes the bound check: random:N (N random words from the hypothesis's states, seed 1), random:N:SEED, wp:K (the Wp-method, K extra states) or off")
	fl.StringVar(&f.learner, "learner", learn.DefaultName, "the learner: "+strings.Join(learn.Names(), ", "))
	fl.StringVar(&f.oracle, "oracle", oracleBound, "equivalence oracle: bound (the distinguisher-bound oracle) or perfect (compare hypotheses with the target's model; backend sim only)")
	fl.DurationVar(&f.quiescence, "quiescence", purpose.DefaultQuiescence, "quiescence timeout for --model")
	fl.DurationVar(&f.reset, "reset", purpose.DefaultSettle+purpose.DefaultPostReset, "device time per query for --model (settle + post-reset)")
	fl.DurationVar(&f.settle, "settle", purpose.DefaultSettle, "for --model: the part of --reset after the last symbol, where a callback that comes after a quiet answer shows as late; only a query that ends waiting quiet spends it; at most --reset, which it defaults to when shorter")
	fl.DurationVar(&f.latency, "latency", purpose.DefaultLatency, "callback latency for --model")
	fl.StringSliceVar(&f.callins, "callins", nil, "for --model: the callins in order, adding ones the model never shows")
	fl.StringVar(&f.backend, "backend", "", "which of the purpose's backends to use (default: the first it lists; an --example uses sim)")
	fl.IntVar(&f.lanes, "lanes", 1, "executors running queries in parallel (simulated devices or harness JVMs)")
	fl.BoolVar(&f.realtime, "realtime", false, "make the simulated device sleep for real instead of using a virtual clock")
	fl.BoolVar(&f.showErrors, "show-errors", false, "draw the error sink and err transitions in the pictures (dot, svg, mermaid)")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "print nothing but errors and warnings: no progress, no summary, no list of the files written")
	fl.DurationVar(&f.grace, "grace", DefaultGrace, "on SIGINT or SIGTERM, how long the running queries get to finish")
	fl.DurationVar(&f.progress, "progress-interval", 10*time.Second, "when stderr is not a terminal, the least time between two progress lines")
	fl.IntVar(&f.maxQueries, "max-queries", 0, "stop once this many queries have run on devices (answers from the cache or the store are free), writing the partial model; 0: no limit")
	fl.StringVar(&f.timeout, "timeout", "", "auto: calibrate the quiescence timeout while learning, one per wait context (the callin before the wait and how many waits since), each starting at "+calibrate.DefaultStart.String()+" (auto:START to choose) and raised to "+fmt.Sprint(calibrate.Margin)+"x the slowest callback seen in its context, never above the purpose's timeouts.quiescence; default: the purpose's timeout on every wait")
	addPadFlags(fl, &f.pad)
	f.store.add(fl)
	f.vote.add(fl)
	f.adb.addServer(fl)
	f.adb.addDevices(fl, "to learn on (backend adb)")
	f.adb.addHarness(fl)
	f.adb.addKeepAwake(fl)
	_ = c.RegisterFlagCompletionFunc("example", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return examples.Names(), cobra.ShellCompDirectiveNoFileComp
	})
	_ = c.RegisterFlagCompletionFunc("write", cobra.FixedCompletions(export.Formats(), cobra.ShellCompDirectiveNoFileComp))
	return c
}

func runLearn(c *cobra.Command, e *env, f *learnFlags, args []string) error {
	for _, w := range f.write {
		if !export.IsFormat(w) {
			return usageError("--write: unknown format %q (formats: %s)", w, strings.Join(export.Formats(), ", "))
		}
	}
	if f.svg && !slices.Contains(f.write, export.FormatSVG) {
		f.write = append(f.write, export.FormatSVG)
	}
	if slices.Contains(f.write, export.FormatSVG) {
		// Fail now, not after a long learning run.
		if _, err := render.Find(); err != nil {
			return err
		}
	}
	if f.lanes < 1 {
		return usageError("--lanes must be at least 1, got %d", f.lanes)
	}
	if f.grace < 0 {
		return usageError("--grace must not be negative, got %s", f.grace)
	}
	if f.progress <= 0 {
		return usageError("--progress-interval must be positive, got %s", f.progress)
	}
	if err := checkPad(f.pad); err != nil {
		return err
	}
	if c.Flags().Changed("max-queries") && f.maxQueries < 1 {
		return usageError("--max-queries must be at least 1, got %d", f.maxQueries)
	}
	if !c.Flags().Changed("settle") {
		f.settle = min(f.settle, f.reset)
	}
	if err := f.checkNumbers(); err != nil {
		return err
	}
	autoStart, err := parseTimeout(c.Flags().Changed("timeout"), f.timeout)
	if err != nil {
		return err
	}
	bound := boundChoice{Fixed: purpose.DefaultBound}
	if c.Flags().Changed("bound") {
		var err error
		if bound, err = parseBound(f.bound); err != nil {
			return err
		}
	}
	conformance, err := parseConformance(f.conformance)
	if err != nil {
		return err
	}
	var countsEvery *bool // nil: the purpose's
	if c.Flags().Changed("bound-counts") {
		every, err := parseBoundCounts(f.boundCounts)
		if err != nil {
			return err
		}
		countsEvery = &every
	}
	if _, err := learn.ByName(f.learner); err != nil {
		return usageError("--learner: %v", err)
	}
	if f.oracle == oraclePerfect && (bound.Auto || c.Flags().Changed("conformance")) {
		return usageError("--oracle perfect compares hypotheses with the target itself: --bound auto and --conformance do not apply")
	}
	// Before any device work: a model learned into a folder it cannot be
	// written to would be lost.
	if err := probeDir(f.out); err != nil {
		return err
	}
	if err := f.vote.check(c.Flags()); err != nil {
		return err
	}
	simOpts := e.backendOptions(f.lanes, f.realtime)
	simOpts.Flaky = sim.Flakiness{Prob: f.vote.simFlaky, Seed: f.vote.seed}
	if c.Flags().Changed("seed") {
		simOpts.LatencySeed = f.vote.seed
	}
	var plan *compose.Plan
	auto := bound.Auto && c.Flags().Changed("bound")
	switch {
	case f.modelFile != "":
		data, rerr := e.readFile(f.modelFile)
		if rerr != nil {
			return rerr
		}
		plan, err = compose.FromModel(f.modelFile, data, compose.ModelOptions{
			Format: f.format, Bound: max(bound.Fixed, purpose.DefaultBound), Quiescence: f.quiescence, Reset: f.reset,
			Settle: f.settle, Latency: f.latency, Callins: f.callins, Sim: simOpts,
		})
		var le *sim.LoadError
		if errors.As(err, &le) && le.UnknownFormat {
			le.Ask = "name it with --model-format"
		}
	default:
		var p *purpose.Purpose
		var read compose.ReadFunc
		if f.example != "" {
			p, err = examples.Purpose(f.example)
			read = examples.ReadFile
			if err != nil {
				// Only the command line names an example: a wrong name is a usage error.
				return usageError("--example: %v", err)
			}
		} else {
			p, err = purpose.LoadLimit(args[0], e.maxFileSize)
			read = e.readFile
		}
		if err != nil {
			return err
		}
		if c.Flags().Changed("bound") {
			p.Bound, p.BoundAuto = max(bound.Fixed, purpose.DefaultBound), bound.Auto
		}
		auto = p.BoundAuto
		kind := f.backend
		if kind == "" && f.example != "" && p.Backend.Has(purpose.BackendSim) {
			// The embedded examples are the no-device demo.
			kind = purpose.BackendSim
		}
		if kind != "" {
			if err := p.Backend.Use(kind); err != nil {
				return usageError("--backend: %v", err)
			}
		}
		if f.oracle == oraclePerfect && p.Backend.Kind != purpose.BackendSim {
			return usageError("--oracle perfect compares hypotheses with the target's model, which only backend sim has; this run uses backend %s", p.Backend.Kind)
		}
		if err := f.adbOptions(c, e, p.Backend.Kind, &simOpts); err != nil {
			return err
		}
		plan, err = compose.FromPurpose(c.Context(), p, read, simOpts)
		if err != nil && f.backend == "" {
			err = withOtherBackends(err, p, args)
		}
	}
	if err != nil {
		return err
	}
	defer plan.Close()
	if autoStart > 0 {
		if err := plan.AutoTimeout(autoStart); err != nil {
			return usageError("%v", err)
		}
	}
	plan.Pad(f.pad)
	if f.maxQueries > 0 {
		plan.LimitQueries(f.maxQueries)
	}
	if auto {
		plan.Job.Target.BoundAuto, plan.Job.Target.BoundMax = true, cmp.Or(bound.Max, engine.DefaultAutoMax)
	}
	if countsEvery != nil {
		plan.Job.Target.BoundCountsEvery = *countsEvery
	}
	// A simulated target is known in full: the result is compared with it
	// (and with --oracle perfect so is every hypothesis).
	var target *mealy.Machine
	var targetErr error
	if plan.Model != nil {
		// A model the purpose cannot read in full (it emits an undeclared
		// or environment callback) stops learning where a query meets it,
		// which says more than failing here would.
		target, targetErr = compose.TargetMachine(plan)
		if targetErr != nil && f.oracle == oraclePerfect {
			return fmt.Errorf("--oracle perfect: the target's model as the purpose sees it: %w", targetErr)
		}
	}
	st, err := useStore(e, &f.store, plan, f.quiet)
	if err != nil {
		return err
	}
	if st != nil {
		defer st.Close()
	}
	display := progress.New(progress.Options{Out: e.stderr, Terminal: e.stderrTerminal, Quiet: f.quiet, Interval: f.progress})
	var last engine.Snapshot
	determinism := f.vote.apply(plan)
	plan.CheckStaleFirst()
	plan.SizeRequests(f.grace / 2)
	release := e.stop.dispatching(plan.StopDispatching, f.grace)
	var perfect *mealy.Machine
	if f.oracle == oraclePerfect {
		perfect = target
	}
	opts := engine.Options{
		VirtualClock: plan.Virtual, ToolVersion: toolVersion(), Now: time.Now, Determinism: determinism,
		Perfect: perfect, Conformance: conformance, Learn: f.learner,
		Progress: func(s engine.Snapshot) {
			last = s
			display.Update(s)
		},
	}
	opts.Learner.OnHypothesis = plan.ConfirmHypothesis(c.Context())
	if err := plan.ProbeAtCeiling(c.Context()); err != nil {
		release()
		return err
	}
	start := time.Now()
	res, learnErr := engine.Run(c.Context(), plan.Job, opts)
	release()
	if res != nil {
		res.Document.Stats.Timeout = plan.TimeoutStats()
	}
	last.Phase = "learned"
	if learnErr != nil {
		last.Phase = "stopped"
	}
	sig := e.stop.received()
	if learnErr != nil && sig != nil {
		last.Phase = "interrupted"
	}
	display.Finish(last)
	if learnErr != nil && sig != nil {
		storePath := ""
		if st != nil {
			storePath = st.Path()
		}
		return interruptedRun(f, plan, res, unfinished(plan, opts, time.Since(start), learnErr), sig, storePath)
	}
	var budgetErr *budget.Error
	if errors.As(learnErr, &budgetErr) {
		storePath := ""
		if st != nil {
			storePath = st.Path()
		}
		return budgetStop(f, res, unfinished(plan, opts, time.Since(start), learnErr), storePath)
	}
	if learnErr != nil {
		learnErr = withTimingWarnings(learnErr, plan.Job.Recorder.Warnings())
		if res != nil {
			file, werr := writeModelFile(f.out, res.Document.Name+".partial.json", res.Document)
			if werr != nil {
				return flakyError(fmt.Errorf("%w (and writing the partial model failed: %v)", learnErr, werr))
			}
			return flakyError(fmt.Errorf("%w\n%s", learnErr, partialNote(file, sizeOf(res.Document), nil)))
		}
		return flakyError(learnErr)
	}
	doc := res.Document
	if targetErr != nil {
		doc.Warnings = append(doc.Warnings, "the learned model was not compared with the target's model: "+targetErr.Error())
	}
	if target != nil {
		if err := checkTarget(doc, res.Machine, target, plan, perfect != nil); err != nil {
			return err
		}
	}
	if !f.quiet {
		fmt.Fprint(e.stdout, export.Summary(doc))
	}
	// The formats are written as a set: a picture that fails to render
	// leaves the model files of an earlier run as they were.
	var files []atomicfile.File
	for _, format := range f.write {
		data, err := export.Write(doc, format, renderOptions(c.Context(), f.showErrors))
		if err != nil {
			return err
		}
		files = append(files, atomicfile.File{Path: filepath.Join(f.out, fileBase(doc.Name)+export.Extension(format)), Data: data})
	}
	if err := atomicfile.WriteSet(files); err != nil {
		return err
	}
	if !f.quiet {
		for _, file := range files {
			fmt.Fprintf(e.stderr, "wrote %s\n", file.Path)
		}
	}
	return nil
}

// unfinished is engine.Unfinished with what a calibrated timeout had
// reached when the run stopped.
func unfinished(plan *compose.Plan, opts engine.Options, wall time.Duration, stopErr error) *model.Document {
	doc := engine.Unfinished(plan.Job, opts, wall, stopErr)
	doc.Stats.Timeout = plan.TimeoutStats()
	return doc
}

// parseTimeout reads --timeout: auto or auto:START, the calibration's
// start; 0 when the flag is not given (the purpose's fixed timeout).
func parseTimeout(given bool, s string) (time.Duration, error) {
	if !given {
		return 0, nil
	}
	if s == "auto" {
		return calibrate.DefaultStart, nil
	}
	if rest, ok := strings.CutPrefix(s, "auto:"); ok {
		d, err := time.ParseDuration(rest)
		if err == nil && d > 0 {
			return d, nil
		}
		return 0, usageError("--timeout auto:START needs a positive duration such as auto:200ms, got %q", s)
	}
	return 0, usageError("--timeout must be auto or auto:START (e.g. auto:200ms), got %q; a fixed timeout is the purpose's timeouts.quiescence (or --quiescence with --model)", s)
}

// The equivalence oracles --oracle picks.
const (
	oracleBound   = "bound"
	oraclePerfect = "perfect"
)

// checkTarget records in doc how the learned machine compares with the
// target known in full, and warns when they differ: the bound oracle is
// exact only when the target needs no more than its bound, which nothing
// else checks.
func checkTarget(doc *model.Document, learned, target *mealy.Machine, plan *compose.Plan, perfect bool) error {
	tc, err := compose.CheckTarget(learned, target, plan.Job.Target.BoundForcing())
	if err != nil {
		return fmt.Errorf("comparing the learned model with the target: %w", err)
	}
	tc.Perfect = perfect
	doc.Target = tc
	if cx := tc.Counterexample; cx != nil {
		used := plan.Job.Target.Bound
		if doc.Bound != nil {
			used = doc.Bound.Used // what --bound auto settled on
		}
		doc.Warnings = append(doc.Warnings, fmt.Sprintf(
			"the learned model is wrong: on %s the target answers %s, the learned model %s; the target needs bound %d, this run used %d (learn again with --bound %d or --oracle perfect)",
			strings.Join(cx.Input, " "), strings.Join(cx.Expected, " "), strings.Join(cx.Learned, " "), tc.NeededBound, used, max(tc.NeededBound, used+1)))
	}
	return nil
}

// interruptedRun writes what a run stopped by sig has: the last
// hypothesis, or before the first one the statistics (unfinished).
func interruptedRun(f *learnFlags, plan *compose.Plan, res *engine.Result, unfinished *model.Document, sig os.Signal, store string) error {
	ie := &interruptedError{sig: sig, executed: executedBy(plan), store: store}
	doc := unfinished
	if res != nil {
		doc, ie.size = res.Document, sizeOf(res.Document)
	}
	ie.partial, ie.writeErr = writeModelFile(f.out, doc.Name+".partial.json", doc)
	return ie
}

// budgetStop writes what a run --max-queries stopped has, as a signal's
// stop does: the last hypothesis, or before the first one the statistics.
// The exit code is 1, a run that did not finish.
func budgetStop(f *learnFlags, res *engine.Result, unfinished *model.Document, store string) error {
	doc, size := unfinished, hypothesisSize{}
	if res != nil {
		doc, size = res.Document, sizeOf(res.Document)
	}
	file, werr := writeModelFile(f.out, doc.Name+".partial.json", doc)
	msg := fmt.Sprintf("stopped after %s (--max-queries %d)", plural(f.maxQueries, "executed query"), f.maxQueries)
	if store != "" {
		msg += "; they are kept in the query store " + store
	}
	if note := partialNote(file, size, werr); note != "" {
		msg += "; " + note
	}
	if store != "" {
		msg += "; run again with a larger --max-queries to go on from there"
	}
	return errors.New(msg)
}

// checkNumbers rejects numeric flags no run can use, before anything starts
// (a bound of 0 used to fail only after the table fill).
func (f *learnFlags) checkNumbers() error {
	switch {
	case f.oracle != oracleBound && f.oracle != oraclePerfect:
		return usageError("--oracle must be %s or %s, got %q", oracleBound, oraclePerfect, f.oracle)
	case f.quiescence <= 0:
		return usageError("--quiescence must be positive, got %s", f.quiescence)
	case f.reset < 0:
		return usageError("--reset must not be negative, got %s", f.reset)
	case f.settle < 0:
		return usageError("--settle must not be negative, got %s", f.settle)
	case f.settle > f.reset:
		return usageError("--settle %s is more than --reset %s: the settle time is part of the reset", f.settle, f.reset)
	case f.latency < 0:
		return usageError("--latency must not be negative, got %s", f.latency)
	case f.adb.harnessTimeout <= 0:
		return usageError("--harness-timeout must be positive, got %s", f.adb.harnessTimeout)
	}
	return nil
}

// probeDir checks that files can be created in dir by creating and removing
// one. A folder that does not exist yet is made only when the files are
// written (a failed run leaves none), so then its nearest existing parent
// is probed.
func probeDir(dir string) error {
	at := dir
	for {
		fi, err := os.Stat(at)
		if err == nil {
			if !fi.IsDir() {
				return fmt.Errorf("output folder %s: %s is not a folder", dir, at)
			}
			break
		}
		parent := filepath.Dir(at)
		if !errors.Is(err, os.ErrNotExist) || parent == at {
			return fmt.Errorf("output folder %s: %w", dir, err)
		}
		at = parent
	}
	f, err := os.CreateTemp(at, ".droidstar-probe-*")
	if err != nil {
		return fmt.Errorf("output folder %s is not writable: %w", dir, err)
	}
	name := f.Name()
	cerr := f.Close()
	if err := os.Remove(name); err != nil {
		return fmt.Errorf("output folder %s: removing the probe file: %w", dir, err)
	}
	if cerr != nil {
		return fmt.Errorf("output folder %s is not writable: %w", dir, cerr)
	}
	return nil
}

// adbOptions fills in the device choice for the adb backend, and rejects
// device flags for the others.
func (f *learnFlags) adbOptions(c *cobra.Command, e *env, kind string, o *compose.BackendOptions) error {
	deviceFlags := c.Flags().Changed("device") || c.Flags().Changed("devices")
	if kind != purpose.BackendADB {
		if deviceFlags {
			return usageError("--device and --devices choose devices for backend adb, but this run uses backend %s", kind)
		}
		return nil
	}
	if c.Flags().Changed("lanes") {
		return usageError("--lanes does not apply to backend adb: each device runs one query at a time; share the queries among devices with --devices")
	}
	if err := f.adb.checkDeviceDir(); err != nil {
		return err
	}
	client, err := f.adb.client(e)
	if err != nil {
		return err
	}
	sel, err := f.adb.selection(e)
	if err != nil {
		return err
	}
	o.ADB.Client, o.ADB.Selection = client, sel
	o.ADB.SocketTimeout, o.ADB.Dir = f.adb.harnessTimeout, f.adb.deviceDir
	o.ADB.Awake = f.adb.awake(e)
	if !f.quiet {
		o.ADB.Log = e.stderr
	}
	return nil
}

func writeModelFile(dir, name string, d *model.Document) (string, error) {
	data, err := d.Marshal()
	if err != nil {
		return "", err
	}
	file := filepath.Join(dir, fileBase(name))
	return file, writeFileAtomic(file, data)
}

// fileBase makes a model name safe as a file name.
func fileBase(name string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 {
			return '_'
		}
		return r
	}, name)
}

// writeFileAtomic writes through a temporary file and a rename, so an
// interrupted run never leaves a half-written model behind.
func writeFileAtomic(file string, data []byte) error {
	return atomicfile.Write(file, data)
}

// withOtherBackends adds to a "no device" failure of a purpose's default
// backend adb the backends it also lists that need no device: a copied
// example lists adb first, and its user may have no phone at hand.
func withOtherBackends(err error, p *purpose.Purpose, args []string) error {
	var noDevice *compose.NoDeviceError
	if !errors.As(err, &noDevice) {
		return err
	}
	var others []string
	for _, k := range p.Backend.Kinds {
		if k != purpose.BackendADB {
			others = append(others, k)
		}
	}
	if len(others) == 0 {
		return err
	}
	what := map[string]string{purpose.BackendSim: "it simulates the class from the purpose's model", purpose.BackendJVM: "it runs the class on this host's JVM"}
	hint := ""
	for _, k := range others {
		run := "droidstar learn --backend " + k
		if len(args) == 1 {
			run = "droidstar learn " + args[0] + " --backend " + k
		}
		hint += fmt.Sprintf("\nthe purpose also lists backend %s, which needs no device (%s): %s", k, what[k], run)
	}
	return fmt.Errorf("%w%s", err, hint)
}

// withTimingWarnings adds to a failed run's error the timing warnings
// recorded before it: answers that differ from run to run mostly come from
// callbacks that arrive at other times than the purpose assumes, and the
// warnings say which, by the purpose's symbols, and what to change. They
// are in the partial model too, but a user reads the terminal first.
func withTimingWarnings(err error, warnings []string) error {
	var timing []string
	for _, w := range warnings {
		if strings.HasPrefix(w, "timing: ") {
			timing = append(timing, "  "+w)
		}
	}
	if len(timing) == 0 {
		return err
	}
	return fmt.Errorf("%w\ntiming warnings before the stop, which may explain it:\n%s", err, strings.Join(timing, "\n"))
}
