package compose

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/droidstar/droidstar/internal/adbclient"
	"github.com/droidstar/droidstar/internal/backend"
	"github.com/droidstar/droidstar/internal/backend/adb"
	"github.com/droidstar/droidstar/internal/backend/jvm"
	"github.com/droidstar/droidstar/internal/backend/sim"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/oracle"
	"github.com/droidstar/droidstar/internal/purpose"
	"github.com/droidstar/droidstar/internal/shimgen"
	"github.com/droidstar/droidstar/internal/store"
)

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
		q, skipped, err := deviceShims(ctx, p, o, "")
		if err != nil {
			return started{}, err
		}
		execs, err := startDevices(ctx, q, o.ADB, o.getenv)
		if err != nil {
			return started{}, withShimHint(err, skipped)
		}
		return started{executors: execs, info: model.BackendInfo{Kind: purpose.BackendADB, Options: timeouts}}, nil
	default:
		return started{}, fmt.Errorf("%s: backend %q is not available", p.File, p.Backend.Kind)
	}
}

// startJVMs starts one harness JVM per lane, in parallel (each takes a
// JVM start-up), once what they share is ready: the java command, the
// harness jar, and the shims of the purpose's abstract listener classes
// (generated with that java's compiler, and configured as one more jar
// and adapter of the purpose).
func startJVMs(ctx context.Context, p *purpose.Purpose, o jvm.Options, lanes int) ([]backend.Executor, error) {
	launcher, err := jvm.Prepare(o)
	if err != nil {
		return nil, err
	}
	if shimgen.Needed(p) {
		shims, err := shimgen.Generate(ctx, p, shimgen.Options{Java: launcher.Java(), HarnessJar: launcher.HarnessJar(),
			CacheDir: launcher.CacheDir(), Platform: shimgen.JVM})
		if err != nil {
			return nil, err
		}
		p = shimgen.With(p, shims)
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
