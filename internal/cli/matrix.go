package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/droidstar/droidstar/internal/atomicfile"
	"github.com/droidstar/droidstar/internal/backend/adb"
	"github.com/droidstar/droidstar/internal/backend/sim"
	"github.com/droidstar/droidstar/internal/compose"
	"github.com/droidstar/droidstar/internal/engine"
	"github.com/droidstar/droidstar/internal/matrix"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/oracle"
	"github.com/droidstar/droidstar/internal/oracle/budget"
	"github.com/droidstar/droidstar/internal/oracle/pad"
	"github.com/droidstar/droidstar/internal/purpose"
	"github.com/droidstar/droidstar/internal/store"
)

type matrixFlags struct {
	out       string
	format    string
	simModels []string
	java      []string
	backend   string
	lanes     int
	realtime  bool
	grace     time.Duration
	// conformance is --conformance; checks is what it parsed to.
	conformance string
	checks      *model.Conformance
	maxQueries  int
	pad         pad.Sizes
	vote        voteFlags
	adb         adbFlags
	store       storeFlags
}

func newMatrixCmd(e *env) *cobra.Command {
	f := &matrixFlags{}
	c := &cobra.Command{
		Use:   "matrix purpose.yaml",
		Short: "Learn one purpose on several targets and diff them against the first",
		Long: `Matrix is the nightly-CI job in one command: it learns the purpose on each
target, writes each model (NAME.json, NAME.dot), compares every target with the
first one (the baseline) as 'droidstar diff' does, and writes matrix.md and
matrix.json. A target that fails to learn leaves NAME.partial.json and the
others still run.

Every target keeps the queries it executes in the query store (see
'droidstar store --help'), each under its own fingerprint, so running the
same command again resumes each target where it stopped; --fresh ignores
what is stored.

SIGINT (Ctrl-C) or SIGTERM stops the matrix as it stops learn: no new query
or target starts, the running queries get --grace to finish, each target
that was learning gets NAME.partial.json (its last hypothesis, or before the
first one its statistics), harness JVMs are ended and their temporary
folders and the run's folders on the devices removed; droidstar then says
which targets were learned, stopped or not run, and exits with 130 (SIGINT)
or 143 (SIGTERM) without writing matrix.md and matrix.json. The same command
again resumes every target from the query store. A second Ctrl-C ends it at
once.

Targets: with the sim backend, each --sim-model NAME=FILE (FILE relative to the
current directory) replaces the purpose's sim model and stands in for one
Android version; with the jvm backend, each --java NAME=PATH runs the harness
with another java command (two JDKs, say). Without either, the purpose as it
is is the only target, named after its backend; with the adb backend, each device
of --devices (all, or SERIAL or NAME=SERIAL entries) is a target, named
apiSDK after its Android SDK level unless named, and the devices learn in
parallel. NAMEs use letters, digits, '_', '-' and '.'.

Stdout gets the table, or with --format markdown matrix.md (for a CI job's
summary: the table, then each differing target's diff report), or with
--format json matrix.json.

Exit code: 0 when every target learned and all behave like the baseline, 1
when one differs or failed, 2 on a usage error, 4 when a target's answers
contradicted each other and re-running could not settle them (see --repeat):
the disagreeing traces are then shown side by side, and the other targets'
results are written all the same.`,
		Example: `  droidstar matrix examples/mediaplayer/purpose.yaml \
      --sim-model api23=models/mediaplayer-23.dot --sim-model api34=models/mediaplayer-34.dot -o out/

  # the README's example: one model identical to the baseline, one with a change
  cd testdata/matrix
  droidstar matrix purpose.yaml --sim-model api23=api23.dot --sim-model same=api23.dot --sim-model api34=api34.dot -o out

  # every attached device (one per Android version), learning in parallel
  droidstar matrix examples/mediaplayer/purpose.yaml --devices all -o out/
  droidstar matrix examples/mediaplayer/purpose.yaml --devices api23=emulator-5554,api34=emulator-5556

  # the real harness on two JDKs
  droidstar matrix examples/jvm/timer.yaml -o out/ \
      --java jdk17=/usr/lib/jvm/java-17-openjdk-amd64/bin/java --java jdk21=/usr/lib/jvm/java-21-openjdk-amd64/bin/java`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError("matrix needs exactly one purpose file\nRun '%s --help' for usage.", c.CommandPath())
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error { return runMatrix(c, e, f, args[0]) },
	}
	fl := c.Flags()
	fl.StringVarP(&f.out, "out", "o", ".", "directory for the models and the matrix report")
	fl.StringVarP(&f.format, "format", "f", matrixTable, "what stdout gets: "+strings.Join(matrixFormats, ", ")+" (the last two are matrix.md and matrix.json)")
	_ = c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(matrixFormats, cobra.ShellCompDirectiveNoFileComp))
	fl.Var(&appendFlag{list: &f.simModels}, "sim-model", "a target NAME=FILE: the sim model standing in for one version (repeatable)")
	// --model was this flag's first name, but learn --model learns a model
	// file itself: one name, two meanings. The old spelling still works.
	fl.Var(&appendFlag{list: &f.simModels}, "model", "the old name of --sim-model")
	fl.MarkDeprecated("model", "use --sim-model NAME=FILE instead")
	// pflag prints the deprecation notice to the flag set's output, which
	// cobra would copy to stdout, where the table goes.
	fl.SetOutput(e.stderr)
	fl.StringArrayVar(&f.java, "java", nil, "a target NAME=PATH: the java command running the harness, for the jvm backend (repeatable)")
	fl.StringSliceVar(&f.adb.devices, "devices", nil, "targets for the adb backend: all, or SERIAL or NAME=SERIAL entries")
	f.adb.addServer(fl)
	f.adb.addHarness(fl)
	f.adb.addKeepAwake(fl)
	fl.StringVar(&f.backend, "backend", "", "which of the purpose's backends to use (default: the first it lists)")
	fl.IntVar(&f.lanes, "lanes", 1, "executors running queries in parallel, per target")
	fl.IntVar(&f.maxQueries, "max-queries", 0, "stop each target once this many queries have run on its devices (answers from the cache or the store are free), writing its partial model; 0: no limit")
	addPadFlags(fl, &f.pad)
	fl.StringVar(&f.conformance, "conformance", defaultConformance, "conformance test after the bound check, as for learn: wp:K, random:N, random:N:SEED or off")
	fl.BoolVar(&f.realtime, "realtime", false, "make the simulated devices sleep for real instead of using a virtual clock")
	fl.DurationVar(&f.grace, "grace", DefaultGrace, "on SIGINT or SIGTERM, how long the running queries get to finish")
	f.vote.add(fl)
	f.store.add(fl)
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

func runMatrix(c *cobra.Command, e *env, f *matrixFlags, file string) error {
	if !slices.Contains(matrixFormats, f.format) {
		return usageError("--format: unknown format %q (formats: %s)", f.format, strings.Join(matrixFormats, ", "))
	}
	if err := probeDir(f.out); err != nil {
		return err
	}
	if f.lanes < 1 {
		return usageError("--lanes must be at least 1, got %d", f.lanes)
	}
	if f.grace < 0 {
		return usageError("--grace must not be negative, got %s", f.grace)
	}
	if err := checkPad(f.pad); err != nil {
		return err
	}
	if c.Flags().Changed("max-queries") && f.maxQueries < 1 {
		return usageError("--max-queries must be at least 1, got %d", f.maxQueries)
	}
	checks, err := parseConformance(f.conformance)
	if err != nil {
		return err
	}
	f.checks = checks
	if err := f.vote.check(c.Flags()); err != nil {
		return err
	}
	p, err := purpose.LoadLimit(file, e.maxFileSize)
	if err != nil {
		return err
	}
	if f.backend != "" {
		if err := p.Backend.Use(f.backend); err != nil {
			return usageError("--backend: %v", err)
		}
	}
	targets, devices, err := matrix.ParseTargets(p.Backend.Kind, matrix.Flags{
		SimModels: f.simModels, Java: f.java, Devices: f.adb.devices, DevicesGiven: c.Flags().Changed("devices"),
	})
	if err != nil {
		return matrixUsage(err)
	}
	if devices != nil {
		if c.Flags().Changed("lanes") {
			return usageError("--lanes does not apply to backend adb: each device is a target and runs one query at a time")
		}
		if err := f.adb.checkDeviceDir(); err != nil {
			return err
		}
		if targets, err = deviceTargets(c.Context(), e, &f.adb, devices); err != nil {
			return err
		}
	}
	st, err := openStore(e, &f.store, false)
	if err != nil {
		return err
	}
	if st != nil {
		defer st.Close()
	}
	// Device targets learn in parallel, and each says what it resumes.
	log := &syncWriter{w: e.stderr}
	flaky := &flakyTargets{errs: map[string]error{}}
	// One stop for the whole matrix: the targets learning stop
	// dispatching, and no further target starts.
	stops := &stopGroup{}
	release := e.stop.dispatching(stops.stop, f.grace)
	var executed atomic.Int64
	rep, err := matrix.Run(c.Context(), matrix.Spec{
		PurposeFile: file, Purpose: p, Targets: targets, Out: f.out, Log: log, Stopped: stops.isStopped,
		Learn: matrixLearn(e, f, st, log, flaky, stops, &executed),
	})
	release()
	if err != nil {
		return err
	}
	if sig := e.stop.received(); sig != nil && rep.Interrupted() {
		return interruptedMatrix(rep, sig, int(executed.Load()), st)
	}
	data, err := rep.JSON()
	if err != nil {
		return err
	}
	md := rep.Markdown()
	if err := atomicfile.WriteSet([]atomicfile.File{
		{Path: filepath.Join(f.out, "matrix.json"), Data: data},
		{Path: filepath.Join(f.out, "matrix.md"), Data: []byte(md)},
	}); err != nil {
		return err
	}
	switch f.format {
	case matrixMarkdown:
		fmt.Fprint(e.stdout, md)
	case matrixJSON:
		e.stdout.Write(data)
	default:
		fmt.Fprint(e.stdout, rep.Table())
	}
	fmt.Fprintf(e.stderr, "wrote %s and %s\n", filepath.Join(f.out, "matrix.md"), filepath.Join(f.out, "matrix.json"))
	if err := flaky.report(targets); err != nil {
		return err
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
func interruptedMatrix(rep *matrix.Report, sig os.Signal, executed int, st *store.Store) error {
	ie := &interruptedError{sig: sig, executed: executed, targets: []string{}}
	if st != nil {
		ie.store = st.Path()
	}
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

// deviceTargets finds the devices --devices asks for (ANDROID_SERIAL's
// without it) and names them.
func deviceTargets(ctx context.Context, e *env, a *adbFlags, req *matrix.DeviceRequest) ([]matrix.Target, error) {
	client, err := a.client(e)
	if err != nil {
		return nil, err
	}
	sel := adb.Selection{Devices: req.Serials}
	if len(req.Serials) == 0 {
		sel = adb.Selection{Device: e.getenv("ANDROID_SERIAL")}
	}
	if err := client.Ensure(ctx); err != nil {
		return nil, err
	}
	found, err := adb.Select(ctx, client, sel)
	if err != nil {
		return nil, err
	}
	devices := make([]matrix.Device, len(found))
	for i, d := range found {
		props, err := client.Device(d.Serial).Properties(ctx)
		if err != nil {
			return nil, fmt.Errorf("device %s: %w", d.Serial, err)
		}
		devices[i] = matrix.Device{Serial: d.Serial, SDK: adb.Describe(d.Serial, props).SDK}
	}
	targets, err := req.Targets(devices)
	return targets, matrixUsage(err)
}

// flakyTargets are the targets whose answers a vote could not settle, by
// name. Device targets learn in parallel.
type flakyTargets struct {
	mu   sync.Mutex
	errs map[string]error
}

func (t *flakyTargets) add(name string, err error) {
	var ve *oracle.VoteError
	if errors.As(err, &ve) {
		t.mu.Lock()
		t.errs[name] = err
		t.mu.Unlock()
	}
}

// report is learn's exit 4 for the matrix: each unsettled target's
// traces side by side, in target order; nil when every vote settled.
func (t *flakyTargets) report(targets []matrix.Target) error {
	var msgs []string
	for _, tg := range targets {
		if err := t.errs[tg.Name]; err != nil {
			msgs = append(msgs, fmt.Sprintf("target %s: %v", tg.Name, flakyError(err)))
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return &exitError{code: ExitFlaky, err: errors.New(strings.Join(msgs, "\n"))}
}

// syncWriter serialises the writes of targets learning in parallel.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

// matrixLearn learns one target as learn does: the one place the matrix
// meets the composition root and the engine. st (nil for none) keeps each
// target's answers under its own fingerprint; log gets what each resumes.
//
// A target joins stops, and executed counts the queries its devices ran.
func matrixLearn(e *env, f *matrixFlags, st *store.Store, log io.Writer, flaky *flakyTargets, stops *stopGroup, executed *atomic.Int64) matrix.LearnFunc {
	// One for all targets: two targets on one device share its setting.
	awake := f.adb.awake(e)
	return func(ctx context.Context, p *purpose.Purpose, t matrix.Target) (*model.Document, error) {
		o := e.backendOptions(f.lanes, f.realtime)
		o.Flaky = sim.Flakiness{Prob: f.vote.simFlaky, Seed: f.vote.seed}
		if t.Device != "" {
			client, err := f.adb.client(e)
			if err != nil {
				return nil, err
			}
			o.ADB.Client, o.ADB.Selection = client, adb.Selection{Device: t.Device}
			o.ADB.SocketTimeout, o.ADB.Dir = f.adb.harnessTimeout, f.adb.deviceDir
			o.ADB.Awake = awake
		}
		plan, err := compose.FromPurpose(ctx, p, e.readFile, o)
		if err != nil {
			return nil, err
		}
		defer plan.Close()
		plan.Pad(f.pad)
		if f.maxQueries > 0 {
			plan.LimitQueries(f.maxQueries)
		}
		if st != nil {
			// The other targets' answers are under the same name and
			// another fingerprint by design: not worth a note each.
			if err := storeBucket(log, st, f.store.fresh, plan, storeNotes{prefix: t.Name + ": "}); err != nil {
				return nil, err
			}
		}
		determinism := f.vote.apply(plan)
		plan.SizeRequests(f.grace / 2)
		leave := stops.join(plan.StopDispatching)
		defer leave()
		// After joining: a stop from now on ends this target gently.
		fmt.Fprintf(log, "droidstar: %s: learning\n", t.Name)
		opts := engine.Options{VirtualClock: plan.Virtual, ToolVersion: toolVersion(), Now: time.Now, Determinism: determinism, Conformance: f.checks}
		start := time.Now()
		res, err := engine.Run(ctx, plan.Job, opts)
		executed.Add(int64(executedBy(plan)))
		flaky.add(t.Name, err)
		var budgetErr *budget.Error
		if errors.As(err, &budgetErr) {
			err = fmt.Errorf("%w (--max-queries %d)", err, f.maxQueries)
			if res == nil {
				return engine.Unfinished(plan.Job, opts, time.Since(start), err), err
			}
		}
		if err != nil && res == nil && stops.isStopped() {
			// Before the first hypothesis a stop keeps the statistics.
			return engine.Unfinished(plan.Job, opts, time.Since(start), err), err
		}
		if res == nil {
			return nil, err
		}
		return res.Document, err
	}
}
