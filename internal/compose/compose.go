// Package compose is droidstar's composition root: the one place that
// turns a purpose or a model file into executors and a membership
// pipeline (Build), switches on backend kinds and reads the backends'
// environment (JAVA_HOME, the adb server variables). The engine runs what
// it builds without knowing where the answers come from; internal/run
// describes a run in the user's terms and builds it here.
//
// Adding a backend kind means a purpose schema entry (internal/purpose)
// and a case in startBackend here.
package compose

import (
	"os"
	"sync"
	"time"

	"github.com/droidstar/droidstar/internal/adbclient"
	"github.com/droidstar/droidstar/internal/backend"
	"github.com/droidstar/droidstar/internal/backend/adb"
	"github.com/droidstar/droidstar/internal/backend/jvm"
	"github.com/droidstar/droidstar/internal/backend/sim"
	"github.com/droidstar/droidstar/internal/engine"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/oracle"
	"github.com/droidstar/droidstar/internal/oracle/cache"
	"github.com/droidstar/droidstar/internal/oracle/calibrate"
	"github.com/droidstar/droidstar/internal/oracle/dispatch"
	"github.com/droidstar/droidstar/internal/oracle/mapper"
	"github.com/droidstar/droidstar/internal/oracle/restrict"
	"github.com/droidstar/droidstar/internal/purpose"
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
	// harness app. Its Log is shared by devices starting in parallel: it
	// must be safe for concurrent use (the run package's is).
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
	cache    *cache.Cache
	// filter is the pipeline's top stage, above which Pad goes.
	filter *restrict.Filter
	// keyParts are the store key's parts known before the devices are
	// (see storeKey).
	keyParts map[string]string
	// quiescence is the purpose's (or --quiescence's) timeout, the
	// ceiling of a calibrated one; calibrator calibrates it (autoTimeout).
	quiescence time.Duration
	// quiescenceFrom says where quiescence comes from, for errors.
	quiescenceFrom string
	calibrator     *calibrate.Calibrator
	confirmErr     error // the first failed confirmation (confirmHypothesis)
	backend        string
}

// StopDispatching makes the pipeline start no further query: the ones
// running finish, and the run then fails with dispatch.ErrStopped. It is
// how a signal stops a run without losing what the devices are doing.
func (p *Plan) StopDispatching() {
	p.stopOnce.Do(func() { close(p.stop) })
}

// DefaultRepeat is how often a contradicted query runs again by default
// (run.Defaults, learn --repeat).
const DefaultRepeat = 3

// Target is the plan's target.
func (p *Plan) Target() engine.Target { return p.Job.Target }

// NewPlan assembles the bare membership pipeline over the executors:
//
//	restrict.Filter → cache.Cache → dispatch.Scheduler → mapper → executors
//
// with the cache's vote off (Build adds the other stages and the vote's
// settings). The filter sits above the cache so that an excluded query's
// allowed prefix is answered from the cache instead of running again.
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
		Executors: execs, Rules: automaton, Map: m, stop: stop, cache: answers, sched: sched, filter: filter,
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

// CacheNodes is how many edges the cache's tree holds (see
// cache.Cache.Nodes).
func (p *Plan) CacheNodes() int { return p.cache.Nodes() }

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
