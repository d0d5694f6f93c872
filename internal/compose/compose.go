// Package compose is droidstar's composition root: the one place that
// turns a purpose or a model file into executors and a membership
// pipeline, switches on backend kinds and reads the backends' environment
// (JAVA_HOME, the adb server variables; the CLI reads its own). The
// engine runs what it builds without knowing where the answers come from.
//
// Adding a backend kind means a purpose schema entry (internal/purpose),
// a case in startBackend here, and the CLI flags that configure it.
package compose

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/droidstar/droidstar/internal/adbclient"
	"github.com/droidstar/droidstar/internal/backend"
	"github.com/droidstar/droidstar/internal/backend/adb"
	"github.com/droidstar/droidstar/internal/backend/jvm"
	"github.com/droidstar/droidstar/internal/backend/sim"
	"github.com/droidstar/droidstar/internal/engine"
	"github.com/droidstar/droidstar/internal/harness"
	"github.com/droidstar/droidstar/internal/learn"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/nouns"
	"github.com/droidstar/droidstar/internal/oracle"
	"github.com/droidstar/droidstar/internal/oracle/budget"
	"github.com/droidstar/droidstar/internal/oracle/cache"
	"github.com/droidstar/droidstar/internal/oracle/calibrate"
	"github.com/droidstar/droidstar/internal/oracle/dispatch"
	"github.com/droidstar/droidstar/internal/oracle/mapper"
	"github.com/droidstar/droidstar/internal/oracle/pad"
	"github.com/droidstar/droidstar/internal/oracle/restrict"
	"github.com/droidstar/droidstar/internal/purpose"
	"github.com/droidstar/droidstar/internal/resolve"
	"github.com/droidstar/droidstar/internal/store"
)

// ReadFunc reads a file a purpose refers to (the OS, or embedded examples).
type ReadFunc func(name string) ([]byte, error)

// BackendOptions tune the backends.
type BackendOptions struct {
	// Getenv reads the environment (JAVA_HOME, ADB_SERVER_SOCKET, ...);
	// nil means os.Getenv. No backend reads the environment itself.
	Getenv func(string) string
	// Lanes is the number of executors running queries in parallel:
	// simulated devices, or harness JVMs.
	Lanes int
	// Realtime makes the simulator sleep instead of advancing a virtual clock.
	Realtime bool
	// Flaky makes the simulated devices answer wrongly now and then
	// (tests of the vote).
	Flaky sim.Flakiness
	// LatencySeed seeds the simulator's draws from a purpose's latency
	// ranges; 0 (learn's default, unless --seed is given) keeps a run's
	// device time the same from run to run.
	LatencySeed uint64
	// JVM configures the jvm backend (the harness jar, the java command).
	JVM jvm.Options
	// ADB configures the adb backend: the server, which devices, and the
	// harness app.
	ADB ADBOptions
	// Resolver, when set, is the class path of the host resolver (as
	// `make -C harness-apk resolver` prints it), with which Check resolves
	// an adb purpose against android.jar on the host JVM.
	Resolver string
}

func (o BackendOptions) getenv(key string) string {
	if o.Getenv == nil {
		return os.Getenv(key)
	}
	return o.Getenv(key)
}

// ADBOptions pick the adb server and devices.
type ADBOptions struct {
	// Client reaches the adb server; nil means the default one.
	Client    *adbclient.Client
	Selection adb.Selection
	adb.Options
}

// Plan is a learning job ready to run, and what it was made from.
type Plan struct {
	// Job is what engine.Run takes.
	Job engine.Job
	// Executors are the backend's, at the bottom of the pipeline; Close
	// releases them.
	Executors []backend.Executor
	// Model is the simulated target, when the backend is sim.
	Model *sim.Model
	// Rules are the purpose's restrictions and Map its callback mapping
	// (nil for a model file), as the pipeline applies them.
	Rules *restrict.Automaton
	Map   mapper.Map
	// Virtual says device time is simulated.
	Virtual bool

	stop     chan struct{} // the scheduler's Stop
	stopOnce sync.Once
	sched    *dispatch.Scheduler
	// Cache is the pipeline's cache, whose vote settings (Repeat, Verify)
	// a command may change before the run.
	Cache *cache.Cache
	// filter is the pipeline's top stage, above which Pad goes.
	filter *restrict.Filter
	// keyParts are the store key's parts known before the devices are
	// (see StoreKey).
	keyParts map[string]string
	// quiescence is the purpose's (or --quiescence's) timeout, the
	// ceiling of a calibrated one; calibrator calibrates it (AutoTimeout).
	quiescence time.Duration
	// quiescenceFrom says where quiescence comes from, for errors.
	quiescenceFrom string
	calibrator     *calibrate.Calibrator
	confirmErr     error // the first failed confirmation (ConfirmHypothesis)
	backend        string
}

// StopDispatching makes the pipeline start no further query: the ones
// running finish, and the run then fails with dispatch.ErrStopped. It is
// how a signal stops a run without losing what the devices are doing.
func (p *Plan) StopDispatching() {
	p.stopOnce.Do(func() { close(p.stop) })
}

// SizeRequests makes each request to a device or harness JVM carry about
// d of device time (see dispatch.Scheduler.RequestTime), so that a stop's
// grace period of twice d sees the running request finish and keeps its
// answers.
func (p *Plan) SizeRequests(d time.Duration) { p.sched.RequestTime = d }

// StoreKey is what determines the answers of this plan's queries, for the
// query store: the alphabet, the purpose's harness part, the timeouts,
// the sim model's content, the harness and the build of the devices.
func (p *Plan) StoreKey() store.Key {
	parts := maps.Clone(p.keyParts)
	if parts == nil {
		parts = map[string]string{}
	}
	t := p.Job.Target
	parts[store.PartAlphabet] = strings.Join(t.Inputs.Names(), " ") + " / " + strings.Join(t.Outputs.Names(), " ")
	var builds []string
	for _, d := range p.Job.Devices {
		// The serial is left out: two phones of one build answer alike.
		var fields []string
		for _, f := range []string{d.Platform, d.Model, d.Release} {
			if f != "" {
				fields = append(fields, f)
			}
		}
		if d.SDK != 0 {
			fields = append(fields, fmt.Sprintf("sdk %d", d.SDK))
		}
		b := strings.Join(fields, " ")
		if !slices.Contains(builds, b) {
			builds = append(builds, b)
		}
	}
	sort.Strings(builds)
	parts[store.PartDevice] = strings.Join(builds, "; ")
	return store.Key{Name: t.Name, Parts: parts}
}

// UseStore puts a query store stage under the cache: what the bucket
// holds answers queries before any device runs them, and every new
// answer is written to it before the cache uses it.
func (p *Plan) UseStore(b *store.Bucket) (*store.Stage, error) {
	t := p.Job.Target
	sem, err := t.Sem()
	if err != nil {
		return nil, err
	}
	st, err := store.NewStage(p.Cache.Next, b, t.Inputs, t.Outputs, sem, p.Job.Recorder)
	if err != nil {
		return nil, err
	}
	if p.calibrator != nil {
		if err := st.Calibrate(p.calibrator.Words(t.Inputs)); err != nil {
			return nil, err
		}
	}
	p.Cache.Next = st
	return st, nil
}

// LimitQueries makes the run stop once max queries have been executed on
// the executors (see budget.Stage): the budget goes right above the
// scheduler, so cache and store answers cost nothing. Call it before
// UseStore.
func (p *Plan) LimitQueries(max int) {
	p.Cache.Next = &budget.Stage{Next: p.Cache.Next, Max: max}
}

// Pad makes the pipeline extend each learning query and each word of a
// bound check's round the cache misses by up to size's symbols the
// restrictions allow (see pad.Stage): the stage goes between the filter
// and the cache. Sizes of 0 pad nothing.
func (p *Plan) Pad(size pad.Sizes) {
	if !size.Any() {
		return
	}
	p.filter.Next = &pad.Stage{Next: p.filter.Next, Known: p.Cache, Rules: p.Rules, Size: size, Sem: p.Cache.Sem,
		Inputs: p.Job.Target.Inputs.Size(), Recorder: p.Job.Recorder}
}

// AutoTimeout makes the run calibrate its quiescence timeouts, one per
// wait context (--timeout auto, see internal/oracle/calibrate): each
// starts at start and never goes above the purpose's timeout. Call it
// before UseStore: a calibrated run keeps its answers apart from
// fixed-timeout runs', under its own store key, since its quiet answers
// may have waited less. Only executors whose timeout can change per query
// can be calibrated: the simulator's, and the harnesses' (jvm, adb), whose
// run requests carry it, and each wait's.
func (p *Plan) AutoTimeout(start time.Duration) error {
	setters := make([]backend.QuiescenceSetter, len(p.Executors))
	for k, e := range p.Executors {
		set, ok := e.(backend.QuiescenceSetter)
		if !ok {
			return fmt.Errorf("--timeout auto: backend %s cannot change its quiescence timeout from query to query: leave --timeout out to use the purpose's timeouts.quiescence", p.backend)
		}
		setters[k] = set
	}
	cal, err := calibrate.New(start, p.quiescence)
	if err != nil {
		return fmt.Errorf("--timeout auto:%s: %w (%s)", start, err, p.quiescenceFrom)
	}
	for k, set := range setters {
		p.sched.Executors[k] = cal.Wrap(p.sched.Executors[k], set)
	}
	p.Cache.Quiet = cal.Words(p.Job.Target.Inputs)
	p.calibrator = cal
	if p.keyParts == nil {
		p.keyParts = map[string]string{}
	}
	p.keyParts[store.PartTimeouts] += fmt.Sprintf(", quiescence auto from %s", start)
	return nil
}

// CheckStaleFirst makes the check before a model is declared final start
// by dropping the quiet answers a calibrated timeout made stale (learning
// then starts again from the cache), before the vote's check, if any.
// Call it once the vote's settings are applied; it does nothing on a run
// with a fixed timeout.
func (p *Plan) CheckStaleFirst() {
	if p.calibrator == nil {
		return
	}
	next := p.Job.Verify
	p.Job.Verify = func(ctx context.Context, obs oracle.Observations) (bool, error) {
		if revised, err := p.Cache.DropStale(ctx, obs); revised || err != nil {
			return revised, err
		}
		if p.confirmErr != nil {
			return false, p.confirmErr
		}
		if revised, err := p.confirmQuiets(ctx, obs.Rows[:min(obs.States, len(obs.Rows))]); revised || err != nil {
			return revised, err
		}
		if next == nil {
			return false, nil
		}
		return next(ctx, obs)
	}
}

// ProbeAtCeiling asks, on a calibrated run before learning starts, a
// wait from the initial state and after each input from it, under the
// ceiling: the callbacks the first inputs start then set the timeout
// before the learner's first queries run under one too short (which a
// raise would make stale). The learner asks these words first anyway;
// they stay in the cache. It does nothing on a fixed-timeout run.
func (p *Plan) ProbeAtCeiling(ctx context.Context) error {
	sem, err := p.Job.Target.Sem()
	if p.calibrator == nil || err != nil || !sem.Closure {
		return err
	}
	words := []mealy.Word{{sem.Wait}}
	for in := range p.Job.Target.Inputs.Size() {
		words = append(words, mealy.Word{in, sem.Wait})
	}
	_, err = p.Job.MQ.Ask(calibrate.AtCeiling(oracle.WithPhase(ctx, oracle.PhaseLearning)), words)
	if err != nil && !errors.Is(err, oracle.ErrRevised) {
		return fmt.Errorf("probing the callbacks under the ceiling %s: %w", p.calibrator.Ceiling(), err)
	}
	return nil
}

// ConfirmHypothesis is a hook for engine.Options.Learner.OnHypothesis
// on a calibrated run (nil on a fixed one): each hypothesis's quiet waits
// are confirmed under the ceiling (see confirmQuiets) as soon as the
// learner has them, so a slow callback raises the timeout early, before
// learning asks much under one too short. A raise makes the learner start
// again at its next query; an error is kept for the final check, which
// fails with it.
func (p *Plan) ConfirmHypothesis(ctx context.Context) func(int, *learn.Hypothesis) {
	if p.calibrator == nil {
		return nil
	}
	return func(_ int, h *learn.Hypothesis) {
		if p.confirmErr != nil {
			return
		}
		_, p.confirmErr = p.confirmQuiets(oracle.WithPhase(ctx, oracle.PhaseVerification), h.Access)
	}
}

// confirmQuiets runs, under the ceiling, a wait from each of the states
// (by their access words) and after each input from them, where the
// cache has it answering quiet under a shorter timeout, and says whether a callback came that raised the timeout
// (learning then starts again). Without it a callback slower than the
// current timeout plus the settle window would never show: its wait
// answers quiet and it comes after the instance is gone. It costs one
// ceiling per state and input at most, once: a quiet confirmed stays so.
func (p *Plan) confirmQuiets(ctx context.Context, access []mealy.Word) (bool, error) {
	before := p.calibrator.Raises()
	ceiling := p.calibrator.Ceiling()
	sem, err := p.Job.Target.Sem()
	if err != nil || !sem.Closure {
		return false, err
	}
	var words []mealy.Word
	asked := map[string]bool{}
	confirm := func(q mealy.Word) {
		a, ok := p.Cache.Lookup(q) // only what the restrictions allow is there
		n := len(q) - 1
		if !ok || a.Outputs[n] != sem.Quiet || p.Cache.QuietFor(q) >= ceiling || asked[q.Key()] {
			return
		}
		if n > 0 && (a.Outputs[n-1] == sem.Quiet || a.Outputs[n-1] == sem.Err) {
			return // the closure's rules answer it: nothing waits
		}
		asked[q.Key()] = true
		words = append(words, q)
	}
	for _, w := range access {
		// A callback comes from a state, or after any transition from it
		// (a callin, or a callback that a wait gave): a state the
		// hypothesis merged because a quiet came too soon shows there.
		confirm(w.Concat(sem.Wait))
		for in := range p.Job.Target.Inputs.Size() {
			confirm(w.Concat(in, sem.Wait))
		}
	}
	if len(words) == 0 {
		return false, nil
	}
	got, err := p.Cache.Next.Ask(calibrate.AtCeiling(oracle.AsRerun(ctx)), words)
	if err != nil {
		return false, fmt.Errorf("confirming quiet answers under the ceiling %s: %w", ceiling, err)
	}
	for k, w := range words {
		if err := p.Cache.Add(w, got[k]); err != nil {
			return false, err
		}
	}
	return p.calibrator.Raises() > before, nil
}

// TimeoutStats says what a calibrated timeout settled at, for the
// model's statistics; nil for a fixed timeout.
func (p *Plan) TimeoutStats() *model.AutoTimeout {
	if p.calibrator == nil {
		return nil
	}
	return p.calibrator.Settled(p.Cache.Stale())
}

// DefaultRepeat is how often a contradicted query runs again by default.
const DefaultRepeat = 3

// Target is the plan's target.
func (p *Plan) Target() engine.Target { return p.Job.Target }

// NewPlan assembles the membership pipeline over the executors:
//
//	restrict.Filter → cache.Cache → dispatch.Scheduler → mapper → executors
//
// (UseStore puts a query store's stage under the cache, Pad the padding
// stage above it.) The filter sits above the cache so that an excluded query's allowed
// prefix is answered from the cache instead of running again.
func NewPlan(t engine.Target, rules []restrict.Rule, m mapper.Map, execs []backend.Executor) (*Plan, error) {
	sem, err := t.Sem()
	if err != nil {
		return nil, err
	}
	automaton, err := restrict.Compile(t.Inputs, sem, rules)
	if err != nil {
		return nil, err
	}
	// The bound counts what the restrictions leave free.
	t.Forcing = automaton.Forcing()
	mapped := execs
	if m != nil {
		mapped = make([]backend.Executor, len(execs))
		for k, ex := range execs {
			mapped[k] = mapper.Wrap(ex, m)
		}
	}
	rec := &oracle.Recorder{}
	stop := make(chan struct{})
	sched := &dispatch.Scheduler{Executors: mapped, Inputs: t.Inputs, Outputs: t.Outputs, Sem: sem, Recorder: rec, Stop: stop}
	answers := cache.New(sched, t.Inputs, t.Outputs, sem, rec)
	answers.Repeat = DefaultRepeat
	answers.MaxNodes = cache.DefaultMaxNodes
	answers.Parallel = len(execs)
	filter := &restrict.Filter{Next: answers, Rules: automaton, Sem: sem, Recorder: rec}
	devices := make([]model.DeviceInfo, len(execs))
	for k, ex := range execs {
		devices[k] = ex.Describe()
	}
	if len(devices) > 0 {
		answers.Lanes = lanesOf(devices[0].Platform)
	}
	return &Plan{
		Job:       engine.Job{Target: t, MQ: filter, Recorder: rec, Devices: devices},
		Executors: execs, Rules: automaton, Map: m, stop: stop, Cache: answers, sched: sched, filter: filter,
	}, nil
}

// Mapping is the purpose's callback mapping as the mapper stage applies it.
func Mapping(p *purpose.Purpose) mapper.Map {
	kinds := map[purpose.Role]mapper.Kind{
		purpose.RoleOutput: mapper.Output, purpose.RoleError: mapper.Error, purpose.RoleEnvironment: mapper.Environment,
	}
	return func(name string) (string, mapper.Kind, bool) {
		sym, role, ok := p.MapCallback(name)
		return sym, kinds[role], ok
	}
}

// Rules converts a purpose's restrictions into the filter's rules.
func Rules(rs []purpose.Restriction) []restrict.Rule {
	kinds := map[purpose.RestrictionKind]restrict.Kind{
		purpose.AtMost: restrict.AtMost, purpose.First: restrict.First, purpose.FollowedByWait: restrict.FollowedByWait,
	}
	out := make([]restrict.Rule, len(rs))
	for k, r := range rs {
		out[k] = restrict.Rule{Kind: kinds[r.Kind], Symbols: r.Symbols, Count: r.Count, Text: r.String()}
	}
	return out
}

// Close releases the executors.
func (p *Plan) Close() error { return closeAll(p.Executors) }

// closeAll closes every executor and returns the first error.
func closeAll(execs []backend.Executor) error {
	var first error
	for _, e := range execs {
		if err := e.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// FromPurpose prepares a run of a parsed purpose; read fetches the files it
// names (the sim model, at Backend.Sim.ModelPath), from disk or from the
// embedded examples.
// Backends that run the harness are started here, and a purpose the
// harness cannot resolve fails here, before any query runs.
func FromPurpose(ctx context.Context, p *purpose.Purpose, read ReadFunc, o BackendOptions) (*Plan, error) {
	inputs, outputs, err := p.Alphabets()
	if err != nil {
		return nil, err
	}
	t := engine.Target{
		Name: p.Name, Class: p.Class, Inputs: inputs, Outputs: outputs,
		Semantics: model.SemanticsClosure, Callins: p.CallinSymbols(), Callbacks: p.OutputCallbacks(),
		Bound: p.Bound, BoundAuto: p.BoundAuto, BoundMax: engine.DefaultAutoMax, BoundCountsEvery: p.BoundCountsEvery,
		Purpose: &model.PurposeInfo{Name: p.Name, Class: p.Class, File: p.File, Fingerprint: p.Fingerprint()},
	}
	b, err := startBackend(ctx, p, read, o)
	if err != nil {
		return nil, err
	}
	t.Backend = b.info
	plan, err := NewPlan(t, Rules(p.Restrictions), Mapping(p), b.executors)
	if err != nil {
		closeAll(b.executors)
		return nil, err
	}
	plan.Model, plan.Virtual = b.model, b.virtual
	plan.sched.Virtual = plan.Virtual
	if p.Target != nil && p.Target.Dispose != nil {
		plan.sched.Dispose = p.Target.Dispose.Method
	}
	plan.keyParts = purposeKeyParts(p, b, o)
	plan.quiescence, plan.backend, plan.quiescenceFrom = p.Timeouts.Quiescence, p.Backend.Kind, "the purpose's timeouts.quiescence"
	return plan, nil
}

// purposeKeyParts are the store key's parts a purpose determines. The
// bound and the restrictions are left out: they choose which queries run,
// not what a query answers.
func purposeKeyParts(p *purpose.Purpose, b started, o BackendOptions) map[string]string {
	q := *p
	q.Bound, q.BoundAuto, q.BoundCountsEvery, q.Restrictions = 0, false, false, nil
	parts := map[string]string{
		store.PartPurpose:  q.Fingerprint(),
		store.PartTimeouts: fmt.Sprintf("quiescence %s, settle %s, post-reset %s", p.Timeouts.Quiescence, p.Timeouts.Settle, p.Timeouts.PostReset),
		store.PartModel:    b.modelDigest,
	}
	if s := p.Backend.Sim; p.Backend.Kind == purpose.BackendSim && o.LatencySeed != 0 && (len(s.LatencyMax) > 0 || s.DefaultLatencyMax > 0) {
		// The draws decide which callbacks come too late, so what a query
		// answers (the ranges themselves are in the purpose's part).
		parts[store.PartTimeouts] += fmt.Sprintf(", latency seed %d", o.LatencySeed)
	}
	switch p.Backend.Kind {
	case purpose.BackendJVM:
		parts[store.PartHarness] = fmt.Sprintf("protocol %d, jar %s", harness.ProtocolVersion, store.Digest(o.JVM.Jar))
	case purpose.BackendADB:
		parts[store.PartHarness] = fmt.Sprintf("protocol %d, apk %s", harness.ProtocolVersion, store.Digest(o.ADB.APK))
	}
	return parts
}

// Check opens every backend the purpose lists far enough to catch
// mismatches without running a query: a sim model is loaded and compared
// with the purpose, and for adb the permissions are checked against the
// harness app (the rest is resolved on the device when learning starts).
// Only with resolveIt does a jvm harness start and resolve the target
// (classes, methods, listeners, arguments, callback names): that runs the
// program the purpose names in backend.jvm.java, with its JVM options, and
// the static initialisers of its jars; with resolveIt and o.Resolver an
// adb purpose is resolved on the host JVM against android.jar (see
// resolveOnHost). It says what it found, one part per backend.
func Check(ctx context.Context, p *purpose.Purpose, read ReadFunc, o BackendOptions, resolveIt bool) ([]string, error) {
	var parts []string
	for _, kind := range p.Backend.Kinds {
		q := *p
		if err := q.Backend.Use(kind); err != nil {
			return nil, err
		}
		if kind == purpose.BackendADB {
			if err := adb.CheckPermissions(p); err != nil {
				return nil, err
			}
			part, err := resolveOnHost(ctx, p, o, resolveIt)
			if err != nil {
				return nil, err
			}
			parts = append(parts, part)
			continue
		}
		if kind == purpose.BackendJVM && !resolveIt {
			parts = append(parts, "jvm (not resolved: check --resolve runs the harness)")
			continue
		}
		plan, err := FromPurpose(ctx, &q, read, o)
		if err != nil {
			return nil, err
		}
		switch {
		case plan.Model != nil:
			parts = append(parts, fmt.Sprintf("sim (%s model, %s)", plan.Model.Format, nouns.Count(plan.Model.Machine.NumStates(), "state")))
		case len(plan.Executors) > 0:
			d := plan.Executors[0].Describe()
			parts = append(parts, fmt.Sprintf("%s (ran the harness on %s %s: target resolved)", kind, d.Model, d.Release))
		}
		if err := plan.Close(); err != nil {
			return nil, err
		}
	}
	return parts, nil
}

// resolveOnHost resolves an adb purpose's classes, methods, listeners and
// callback names against android.jar on the host JVM, when asked to and
// given the resolver; otherwise the device resolves them when learning
// starts. A purpose with jars is left to the device: their JVM class files
// come from the example's Makefile, which a user's purpose does not have.
func resolveOnHost(ctx context.Context, p *purpose.Purpose, o BackendOptions, resolveIt bool) (string, error) {
	switch {
	case !resolveIt:
		return "adb (resolved on the device when learning starts)", nil
	case o.Resolver == "":
		return "adb (resolved on the device when learning starts; check --resolve --resolver CP resolves it on this host)", nil
	case len(p.Jars) > 0:
		return "adb (resolved on the device when learning starts: the host resolver does not load the purpose's jars)", nil
	}
	results, err := resolve.Run(ctx, []resolve.Job{{Purpose: p}}, resolve.Options{Java: o.JVM.Java, Classpath: o.Resolver})
	if err != nil {
		return "", err
	}
	if results[0].Err != nil {
		return "", results[0].Err
	}
	return "adb (resolved on this host against android.jar, API 23)", nil
}

// started is what a backend brings to a plan.
type started struct {
	executors []backend.Executor
	info      model.BackendInfo // the document's description of the backend
	model     *sim.Model        // the sim backend's model
	// modelDigest digests the sim model file's content.
	modelDigest string
	virtual     bool // device time is simulated
}

// startBackend starts the purpose's backend. This is the one switch over
// backend kinds.
func startBackend(ctx context.Context, p *purpose.Purpose, read ReadFunc, o BackendOptions) (started, error) {
	timeouts := map[string]string{
		"quiescence": p.Timeouts.Quiescence.String(), "settle": p.Timeouts.Settle.String(), "post_reset": p.Timeouts.PostReset.String(),
	}
	switch p.Backend.Kind {
	case purpose.BackendSim:
		s := p.Backend.Sim
		modelPath := s.ModelPath
		if modelPath == "" {
			modelPath = path.Join(path.Dir(p.File), s.Model)
		}
		data, err := read(modelPath)
		if err != nil {
			if s.ModelFrom != "" {
				return started{}, fmt.Errorf("%s: %w", s.ModelFrom, err)
			}
			return started{}, fmt.Errorf("%s: backend.sim.model: %w", p.File, err)
		}
		m, err := sim.ParseModel(modelPath, data, s.Format)
		if err != nil {
			var le *sim.LoadError
			if errors.As(err, &le) && le.UnknownFormat {
				le.Ask = fmt.Sprintf("set format: beside model: in the purpose's backend.sim (%s:%s)", p.File, s.ModelPos)
				if s.ModelFrom != "" {
					le.Ask = "matrix tells the format of a " + s.ModelFrom + " file from its content alone; write it as one of"
				}
			}
			return started{}, err
		}
		if err := checkSimModel(p, m); err != nil {
			return started{}, err
		}
		timing := sim.Timing{
			Quiescence: p.Timeouts.Quiescence, Reset: p.Timeouts.Settle + p.Timeouts.PostReset, Settle: p.Timeouts.Settle,
			Latency: s.Latency, DefaultLatency: s.DefaultLatency, Realtime: s.Realtime || o.Realtime,
			LatencyMax: s.LatencyMax, DefaultLatencyMax: s.DefaultLatencyMax, Seed: o.LatencySeed,
		}
		info := model.BackendInfo{Kind: purpose.BackendSim, Model: s.Model, Options: map[string]string{
			"quiescence": p.Timeouts.Quiescence.String(), "reset": timing.Reset.String(),
		}}
		return started{executors: simLanes(m, timing, o.Lanes, o.Flaky), info: info, model: m, virtual: !timing.Realtime,
			modelDigest: store.Digest(data)}, nil
	case purpose.BackendJVM:
		j := o.JVM
		j.JavaHome = o.getenv("JAVA_HOME")
		if j.CacheDir == "" {
			// The unpacked harness jar is kept per user, once per content.
			j.CacheDir = jvm.DefaultCacheDir()
		}
		if p.Backend.JVM != nil {
			if p.Backend.JVM.Java != "" {
				j.Java = p.Backend.JVM.Java
			}
			j.JVMOptions = append(append([]string{}, j.JVMOptions...), p.Backend.JVM.Options...)
		}
		execs, err := startJVMs(ctx, p, j, o.Lanes)
		if err != nil {
			return started{}, err
		}
		return started{executors: execs, info: model.BackendInfo{Kind: purpose.BackendJVM, Options: timeouts}}, nil
	case purpose.BackendADB:
		execs, err := startDevices(ctx, p, o.ADB, o.getenv)
		if err != nil {
			return started{}, err
		}
		return started{executors: execs, info: model.BackendInfo{Kind: purpose.BackendADB, Options: timeouts}}, nil
	default:
		return started{}, fmt.Errorf("%s: backend %q is not available", p.File, p.Backend.Kind)
	}
}

// startJVMs starts one harness JVM per lane, in parallel (each takes a
// JVM start-up), once what they share is ready.
func startJVMs(ctx context.Context, p *purpose.Purpose, o jvm.Options, lanes int) ([]backend.Executor, error) {
	launcher, err := jvm.Prepare(o)
	if err != nil {
		return nil, err
	}
	return startAll(max(lanes, 1), func(i int) (backend.Executor, error) {
		e, err := launcher.Start(ctx, p, fmt.Sprintf("jvm-%d", i+1))
		if err != nil {
			return nil, err // not a typed nil inside the interface
		}
		return e, nil
	})
}

// startDevices prepares every selected device in parallel (installing the
// harness can take a while on each).
func startDevices(ctx context.Context, p *purpose.Purpose, o ADBOptions, getenv func(string) string) ([]backend.Executor, error) {
	client := o.Client
	if client == nil {
		cfg, err := adbclient.ConfigFromEnv("", 0, getenv)
		if err != nil {
			return nil, err
		}
		client = adbclient.New(cfg)
	}
	if err := client.Ensure(ctx); err != nil {
		return nil, &NoDeviceError{Err: err}
	}
	devices, err := adb.Select(ctx, client, o.Selection)
	if err != nil {
		return nil, &NoDeviceError{Err: err}
	}
	if o.Log != nil {
		// The devices start in parallel and may all log at once.
		o.Log = &lockedWriter{w: o.Log}
	}
	return startAll(len(devices), func(i int) (backend.Executor, error) {
		e, err := adb.Start(ctx, p, client.Device(devices[i].Serial), o.Options)
		if err != nil {
			return nil, err
		}
		return e, nil
	})
}

// lanesOf says, for the message when two executors disagree, what they are
// and what their disagreement means on the platform they run.
func lanesOf(platform string) oracle.Lanes {
	switch platform {
	case "android":
		return oracle.Lanes{Noun: "devices", Why: "all devices must run the same Android build and behave alike"}
	case "jvm":
		return oracle.Lanes{Noun: "JVM lanes", Why: "the lanes run the same JVM and harness, so the class answers differently from run to run: " +
			"its answers depend on timing or on state the lanes share; try longer timeouts, or --lanes 1"}
	}
	return oracle.Lanes{Noun: "simulated lanes", Why: "the lanes simulate the same model, so only a flaky simulation (--sim-flaky) makes them differ"}
}

// NoDeviceError says that backend adb found no device to run on (no adb
// server, none attached, or not the ones asked for), so that a command can
// point at a backend of the purpose that needs none.
type NoDeviceError struct{ Err error }

func (e *NoDeviceError) Error() string { return e.Err.Error() }
func (e *NoDeviceError) Unwrap() error { return e.Err }

// lockedWriter serialises writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// startAll starts n executors in parallel and closes them all if one
// fails. The error is a purpose error when there is one (every executor
// reports the same), else every failure, each once: what the executors
// share (the adb server, the java command, the harness jar) is prepared
// before they start, so a failure of a shared part comes back as one
// error value from every executor, told once.
func startAll(n int, start func(i int) (backend.Executor, error)) ([]backend.Executor, error) {
	execs := make([]backend.Executor, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range execs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			execs[i], errs[i] = start(i)
		}()
	}
	wg.Wait()
	var distinct []error
	for _, err := range errs {
		if err == nil {
			continue
		}
		var perr purpose.ErrorList
		if errors.As(err, &perr) {
			distinct = []error{err}
			break
		}
		if !slices.Contains(distinct, err) {
			distinct = append(distinct, err)
		}
	}
	if len(distinct) == 0 {
		return execs, nil
	}
	for _, e := range execs {
		if e != nil {
			e.Close()
		}
	}
	return nil, errors.Join(distinct...)
}

// checkSimModel makes sure the model can answer the purpose's queries: it
// has every callin and wait, and every callback it emits is declared.
func checkSimModel(p *purpose.Purpose, m *sim.Model) error {
	s := p.Backend.Sim
	// Each mismatch is told at the purpose's node it concerns: the callin
	// the model lacks, else the backend.sim.model line.
	at := func(pos purpose.Pos, field, format string, args ...any) *purpose.Error {
		return &purpose.Error{File: p.File, Line: pos.Line, Col: pos.Col, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	// A model given on the command line is blamed there, not on the
	// purpose's backend.sim.model it replaces.
	atModel := func(format string, args ...any) error {
		if s.ModelFrom != "" {
			return fmt.Errorf("%s: %s", s.ModelFrom, fmt.Sprintf(format, args...))
		}
		return at(s.ModelPos, "backend.sim.model", format, args...)
	}
	if m.Semantics != model.SemanticsClosure {
		return atModel("%s is a plain Mealy machine (no %q input); a purpose needs a synchronous-closure model", s.Model, mealy.Wait)
	}
	var errs purpose.ErrorList
	for i, c := range p.Callins {
		if _, ok := m.Machine.Inputs.Index(c.Symbol); !ok {
			errs = append(errs, at(c.Pos, fmt.Sprintf("callins[%d]", i), "the model %s has no input %q (model inputs: %s)", s.Model, c.Symbol, strings.Join(m.Machine.Inputs.Names(), ", ")))
		}
	}
	if len(errs) > 0 {
		return errs
	}
	var unknown []string
	for _, o := range m.Machine.Outputs.Names() {
		if mealy.IsClosureOutput(o) {
			continue
		}
		if _, _, ok := p.MapCallback(o); !ok {
			unknown = append(unknown, o)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		var declared []string
		for _, c := range p.Callbacks {
			declared = append(declared, c.Symbol)
			declared = append(declared, c.From...)
		}
		known := "none"
		if len(declared) > 0 {
			known = strings.Join(declared, ", ")
		}
		return atModel("%s emits callback %s, which the purpose does not declare (callbacks and their from names: %s)", s.Model, quoteList(unknown), known)
	}
	return nil
}

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = fmt.Sprintf("%q", x)
	}
	return strings.Join(q, ", ")
}

func simLanes(m *sim.Model, timing sim.Timing, lanes int, flaky sim.Flakiness) []backend.Executor {
	lanes = max(lanes, 1)
	ex := make([]backend.Executor, lanes)
	for k := range ex {
		e := sim.NewExecutor(m, timing, fmt.Sprintf("sim-%d", k))
		e.SetFlakiness(flaky, k)
		ex[k] = e
	}
	return ex
}

// ModelOptions configure learning a model file directly, with no purpose.
type ModelOptions struct {
	Format     string
	Bound      int
	Quiescence time.Duration
	Reset      time.Duration
	// Settle is the part of Reset after the last symbol, which only a
	// query that ended waiting quiet spends (sim.Timing.Settle); at most
	// Reset.
	Settle  time.Duration
	Latency time.Duration
	// Callins, when set, fixes the callins and their order; a callin the
	// model never shows throws everywhere (DroidStar's diagrams omit such
	// inputs, e.g. SQLiteOpenHelper's openHV).
	Callins []string
	// Restrictions exclude queries as a purpose's would (the DroidStar
	// benchmarks learn their diagrams under DroidStar's restrictions).
	Restrictions []purpose.Restriction
	// Latencies, when set, replaces Latency by per-callback latencies and
	// ranges, as a purpose's backend.sim.latency gives them (the bench
	// gives DroidStar's diagrams the bundled examples' latencies).
	Latencies *purpose.SimBackend
	Sim       BackendOptions
}

// FromModel prepares learning a model file the way AALpy and LearnLib users
// learn a DOT file: the alphabet comes from the model itself.
func FromModel(file string, data []byte, o ModelOptions) (*Plan, error) {
	if o.Settle > o.Reset {
		return nil, fmt.Errorf("the settle time %s is more than the reset %s it is part of", o.Settle, o.Reset)
	}
	m, err := sim.ParseModel(file, data, o.Format)
	if err != nil {
		return nil, err
	}
	if len(o.Callins) > 0 {
		if m, err = m.WithCallins(o.Callins); err != nil {
			return nil, err
		}
	}
	name := strings.TrimSuffix(path.Base(file), path.Ext(file))
	t := engine.Target{
		Name: name, Inputs: m.Machine.Inputs, Outputs: m.Machine.Outputs,
		Semantics: m.Semantics, Bound: o.Bound,
		Backend: model.BackendInfo{Kind: purpose.BackendSim, Model: file, Options: map[string]string{
			"quiescence": o.Quiescence.String(), "reset": o.Reset.String(), "settle": o.Settle.String(),
		}},
	}
	if m.Semantics == model.SemanticsClosure {
		for _, in := range m.Machine.Inputs.Names() {
			if in != mealy.Wait {
				t.Callins = append(t.Callins, in)
			}
		}
		for _, out := range m.Machine.Outputs.Names() {
			if !mealy.IsClosureOutput(out) {
				t.Callbacks = append(t.Callbacks, out)
			}
		}
	}
	timing := sim.Timing{Quiescence: o.Quiescence, Reset: o.Reset, Settle: o.Settle, DefaultLatency: o.Latency, Realtime: o.Sim.Realtime}
	if l := o.Latencies; l != nil {
		timing.Latency, timing.DefaultLatency, timing.LatencyMax, timing.DefaultLatencyMax = l.Latency, l.DefaultLatency, l.LatencyMax, l.DefaultLatencyMax
		timing.Seed = o.Sim.LatencySeed
	}
	plan, err := NewPlan(t, Rules(o.Restrictions), nil, simLanes(m, timing, o.Sim.Lanes, o.Sim.Flaky))
	if err != nil {
		return nil, err
	}
	plan.Model, plan.Virtual = m, !timing.Realtime
	plan.sched.Virtual = plan.Virtual
	plan.keyParts = map[string]string{
		store.PartModel:    store.Digest(data),
		store.PartTimeouts: fmt.Sprintf("quiescence %s, reset %s, latency %s", o.Quiescence, o.Reset, o.Latency),
	}
	if l := o.Latencies; l != nil {
		plan.keyParts[store.PartTimeouts] = fmt.Sprintf("quiescence %s, reset %s, latencies %v default %s..%s %v, seed %d",
			o.Quiescence, o.Reset, l.Latency, l.DefaultLatency, l.DefaultLatencyMax, l.LatencyMax, o.Sim.LatencySeed)
	}
	plan.quiescence, plan.backend, plan.quiescenceFrom = o.Quiescence, purpose.BackendSim, "--quiescence"
	return plan, nil
}
