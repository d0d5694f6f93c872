// Package run is one learning run, described once: a Spec says what is
// learned (a purpose, an embedded example or a model file), on what (the
// backend, its lanes or devices) and how (learner, checks, padding,
// timeout, vote, store, budget). Validate checks it in one place, Start
// builds the whole pipeline from it in the one right order (through
// internal/compose), and Learn runs it and returns the finished document,
// or a partial one when it stops. Every command that learns (learn,
// matrix, bench) and the test helpers build their runs this way, so that
// an option means the same everywhere: a new option is one field here,
// one line in Validate, one line where the pipeline takes it, and one
// flag line in the CLI's learning flag group.
package run

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/droidstar/droidstar/internal/backend/adb"
	"github.com/droidstar/droidstar/internal/compose"
	"github.com/droidstar/droidstar/internal/engine"
	"github.com/droidstar/droidstar/internal/learn"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/oracle/calibrate"
	"github.com/droidstar/droidstar/internal/oracle/pad"
	"github.com/droidstar/droidstar/internal/purpose"
	"github.com/droidstar/droidstar/internal/store"
)

// Spec describes one learning run. It is a plain value: commands fill it
// from their flags starting from Defaults, tests and benchmarks write it
// out, and Validate checks it.
type Spec struct {
	// The source: exactly one of Purpose, Example and Model.
	//
	// Purpose is a parsed purpose; Read reads the files it names (nil:
	// the OS). Example is an embedded example's name: its purpose, read
	// from the embedded files, on its sim backend unless Backend says
	// otherwise. Model is a model file learned directly, its alphabet
	// from the model.
	Purpose *purpose.Purpose
	Read    func(name string) ([]byte, error)
	Example string
	Model   *ModelFile
	// Backend picks one of the purpose's backends ("": the first it
	// lists, or an example's sim).
	Backend string
	// Set gives the purpose's parameters their values (--set NAME=VALUE):
	// each name must be a parameter the purpose declares. A parameter it
	// leaves out takes $DROIDSTAR_SET_NAME, else its default; one with
	// none of them stops the run before it starts, at its declaration.
	Set map[string]string

	// Lanes is how many simulated devices or harness JVMs run queries in
	// parallel (backend adb: one per device, so more than 1 is refused).
	Lanes int
	// Realtime makes the simulated device sleep instead of advancing a
	// virtual clock.
	Realtime bool
	// Device and Devices choose devices for backend adb: Device one
	// serial, Devices several sharing the run's queries ("all": every
	// ready one); neither: ANDROID_SERIAL's, else the one attached.
	Device  string
	Devices []string
	ADB     ADB

	// Learner names the learner (learn.Names).
	Learner string
	// Oracle is the equivalence oracle: OracleBound, or OraclePerfect
	// (compare hypotheses with the simulated target itself).
	Oracle string
	// Bound is the distinguisher bound, in free symbols: "" (the
	// source's: a purpose's bound, else 2), N, "auto" or "auto:MAX".
	Bound string
	// BoundCounts is what the bound counts: "" (the purpose's
	// bound_counts, else free), "free" or "every".
	BoundCounts string
	// Conformance is the test run once a hypothesis passes the bound
	// check: "" (DefaultConformance with the bound oracle, none with the
	// perfect one), "off", "wp:K", "random:N" or "random:N:SEED".
	Conformance string
	// Pad pads the queries the cache misses (zero: no padding).
	Pad Pad
	// Timeout is the quiescence timeout: "" (the purpose's, or the
	// model's, fixed), "auto" or "auto:START" (calibrated per wait
	// context, never above the fixed one).
	Timeout string
	// MaxQueries stops the run once that many queries have run on the
	// devices (0: no limit).
	MaxQueries int
	// MaxStates stops the run at the first hypothesis with more states
	// (0: no limit), and lets a run whose target seems to count go on up
	// to it instead of stopping at the finding (engine.Options.MaxStates).
	MaxStates int
	Vote      Vote
	Store     Store
	// Grace is how long the running queries get to finish after Stop;
	// the requests to devices and harness JVMs are sized to half of it.
	Grace time.Duration
}

// ModelFile is a model file learned directly, with the timing a purpose
// would give it.
type ModelFile struct {
	// Path names the file; Data is its content (nil: read Path with the
	// session's reader).
	Path   string
	Data   []byte
	Format string // "auto", "droidstar-dot", "mealy-dot" or "json"
	// Quiescence, Reset and Latency are the simulated device's timeouts
	// and its callbacks' latency; Settle is the part of Reset after the
	// last symbol, which only a query ending waiting quiet spends (nil:
	// DefaultSettle, or Reset when that is shorter).
	Quiescence, Reset, Latency time.Duration
	Settle                     *time.Duration
	// Callins fixes the callins and their order, adding ones the model
	// never shows (they throw everywhere).
	Callins []string
	// Restrictions and Latencies are what a purpose would add: the
	// benchmarks learn DroidStar's diagrams under DroidStar's
	// restrictions and the bundled examples' latencies.
	Restrictions []purpose.Restriction
	Latencies    *purpose.SimBackend
}

// ADB reaches the adb server and runs the harness app on devices.
type ADB struct {
	// Host and Port reach the adb server ("", 0: ADB_SERVER_SOCKET, else
	// localhost:5037).
	Host string
	Port int
	// HarnessTimeout is how long the harness app gets to open its socket.
	HarnessTimeout time.Duration
	// Dir is the device folder where the adb shell stages the purpose's
	// files.
	Dir string
	// KeepAwake keeps each device's screen on while it is plugged in over
	// USB during the run, and puts its setting back afterwards.
	KeepAwake bool
}

// Pad is how many symbols the padding stage may add to a learning query
// and to a word of a bound check's round.
type Pad struct{ Learning, Check int }

// Vote settles contradicting answers and checks answers once more.
type Vote struct {
	// Repeat is how often a contradicted query runs again (0: stop at the
	// first contradiction).
	Repeat int
	// Verify is the fraction of executed queries run once more.
	Verify float64
	// Final is which answers run once more before a model is declared
	// final: FinalNear, FinalAll or FinalOff.
	Final string
	// Seed seeds Verify's draws (nil: a fresh one, recorded in the
	// model); given, it also seeds the sim backend's latency ranges.
	Seed *uint64
	// SimFlaky flips one answer of a simulated query with this
	// probability (tests of the vote).
	SimFlaky float64
}

// Store is the query store of a run.
type Store struct {
	// Path is the store file: "" for $DROIDSTAR_STORE, else the user's
	// cache folder; StoreOff for none.
	Path string
	// Fresh ignores the answers earlier runs stored.
	Fresh bool
}

// The words the spec's string settings take.
const (
	OracleBound   = "bound"
	OraclePerfect = "perfect"

	BoundAuto        = "auto"
	BoundCountsFree  = "free"
	BoundCountsEvery = "every"

	ConformanceOff     = "off"
	DefaultConformance = "wp:1"

	TimeoutAuto = "auto"

	FinalNear = "near"
	FinalAll  = "all"
	FinalOff  = "off"

	StoreOff = "off"
)

// Learners are the learners Spec.Learner names.
func Learners() []string { return learn.Names() }

// DefaultTimeoutStart is where a calibrated timeout ("auto") starts, and
// TimeoutMargin how many times the slowest callback seen in a wait
// context its timeout rises to.
const (
	DefaultTimeoutStart = calibrate.DefaultStart
	TimeoutMargin       = calibrate.Margin
)

// StoreEnv names the default query store; StoreFile is the store's file
// in the user's cache folder.
const (
	StoreEnv  = store.Env
	StoreFile = store.DefaultFile
)

// DefaultGrace is how long a stop waits for the queries already running.
const DefaultGrace = 10 * time.Second

// The adb backend's defaults: how long the harness app gets to open its
// socket, and the device folder where the adb shell stages a run's files.
const (
	defaultHarnessTimeout = adb.DefaultSocketTimeout
	defaultDeviceDir      = adb.DefaultDir
)

// Defaults is what 'droidstar learn' runs with no flags: one lane, the
// default learner and checks, padding, the vote and the final check near,
// the default store.
func Defaults() Spec {
	return Spec{
		Lanes:   1,
		ADB:     ADB{HarnessTimeout: defaultHarnessTimeout, Dir: defaultDeviceDir, KeepAwake: true},
		Learner: learn.DefaultName,
		Oracle:  OracleBound,
		Pad:     Pad{Learning: pad.Default, Check: pad.DefaultCheck},
		Vote:    Vote{Repeat: compose.DefaultRepeat, Final: FinalNear},
		Grace:   DefaultGrace,
	}
}

// DefaultModelFile is what 'droidstar learn --model FILE' gives a model
// file: the purpose defaults' timeouts and latency.
func DefaultModelFile(path string) *ModelFile {
	return &ModelFile{Path: path, Format: "auto", Quiescence: purpose.DefaultQuiescence,
		Reset: purpose.DefaultSettle + purpose.DefaultPostReset, Latency: purpose.DefaultLatency}
}

// settings is a validated Spec's parsed form.
type settings struct {
	bound       boundChoice
	countsEvery *bool
	conformance *model.Conformance
	autoStart   time.Duration // 0: fixed
	settle      time.Duration // the model file's
}

type boundChoice struct {
	fixed int // 0: the source's
	auto  bool
	max   int
}

// UsageError is a spec no run can take: a command reports it as a usage
// error.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usage(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// Validate checks the spec, in the words of the flags that set it.
func (s Spec) Validate() error {
	_, err := s.parse()
	return err
}

// parse validates the spec and parses its string settings.
func (s Spec) parse() (settings, error) {
	var out settings
	sources := 0
	for _, given := range []bool{s.Purpose != nil, s.Example != "", s.Model != nil} {
		if given {
			sources++
		}
	}
	if sources != 1 {
		return out, usage("a run learns exactly one of: a purpose file, an example (--example NAME), a model file (--model FILE)")
	}
	switch {
	case s.Lanes < 1:
		return out, usage("--lanes must be at least 1, got %d", s.Lanes)
	case s.Grace < 0:
		return out, usage("--grace must not be negative, got %s", s.Grace)
	case s.Pad.Learning < 0:
		return out, usage("--pad must not be negative, got %d", s.Pad.Learning)
	case s.Pad.Check < 0:
		return out, usage("--pad-check must not be negative, got %d", s.Pad.Check)
	case s.MaxQueries < 0:
		return out, usage("--max-queries must not be negative, got %d", s.MaxQueries)
	case s.MaxStates < 0:
		return out, usage("--max-states must not be negative, got %d", s.MaxStates)
	case s.Vote.Repeat < 0:
		return out, usage("--repeat must be 0 or more, got %d", s.Vote.Repeat)
	case !(s.Vote.Verify >= 0 && s.Vote.Verify <= 1):
		return out, usage("--verify must be a fraction from 0 to 1, got %v", s.Vote.Verify)
	case !(s.Vote.SimFlaky >= 0 && s.Vote.SimFlaky <= 1):
		return out, usage("--sim-flaky must be a probability from 0 to 1, got %v", s.Vote.SimFlaky)
	case !slices.Contains([]string{FinalNear, FinalAll, FinalOff}, s.Vote.Final):
		return out, usage("--verify-final must be near, all or off, got %q", s.Vote.Final)
	case s.Oracle != OracleBound && s.Oracle != OraclePerfect:
		return out, usage("--oracle must be %s or %s, got %q", OracleBound, OraclePerfect, s.Oracle)
	case s.ADB.HarnessTimeout <= 0:
		return out, usage("--harness-timeout must be positive, got %s", s.ADB.HarnessTimeout)
	case !strings.HasPrefix(s.ADB.Dir, "/"):
		return out, usage("--device-dir: want an absolute path on the device, such as %s, got %q", defaultDeviceDir, s.ADB.Dir)
	}
	if err := checkDevices(s.Device, s.Devices); err != nil {
		return out, err
	}
	if len(s.Set) > 0 && s.Model != nil {
		return out, usage("--set gives values to a purpose's parameters; a model file (--model) has none")
	}
	if s.Purpose != nil {
		if err := checkSet(s.Purpose, s.Set); err != nil {
			return out, err
		}
	}
	if m := s.Model; m != nil {
		settle, err := m.checkTiming()
		if err != nil {
			return out, err
		}
		out.settle = settle
	}
	var err error
	if out.autoStart, err = parseTimeout(s.Timeout); err != nil {
		return out, err
	}
	if out.bound, err = parseBound(s.Bound); err != nil {
		return out, err
	}
	switch {
	case s.Conformance != "":
		if out.conformance, err = ParseConformance(s.Conformance); err != nil {
			return out, err
		}
	case s.Oracle == OracleBound:
		out.conformance, _ = ParseConformance(DefaultConformance)
	}
	switch s.BoundCounts {
	case "":
	case BoundCountsFree, BoundCountsEvery:
		every := s.BoundCounts == BoundCountsEvery
		out.countsEvery = &every
	default:
		return out, usage("--bound-counts is free or every, got %q", s.BoundCounts)
	}
	if _, err := learn.ByName(s.Learner); err != nil {
		return out, usage("--learner: %v", err)
	}
	if s.Oracle == OraclePerfect && (out.bound.auto || s.Conformance != "") {
		return out, usage("--oracle perfect compares hypotheses with the target itself: --bound auto and --conformance do not apply")
	}
	return out, nil
}

// checkSet refuses a --set name that p declares no parameter of: a typo
// would otherwise leave the parameter to its default, or to a value of
// the environment the user did not mean.
func checkSet(p *purpose.Purpose, set map[string]string) error {
	bad := p.Undeclared(set)
	if len(bad) == 0 {
		return nil
	}
	declared := "it declares none"
	if names := p.ParamNames(); len(names) > 0 {
		declared = "its parameters: " + strings.Join(names, ", ")
	}
	return usage("--set %s: %s declares no parameter %s (%s)", bad[0], p.File, bad[0], declared)
}

// checkTiming checks a model file's timing and works out its settle time.
func (m *ModelFile) checkTiming() (time.Duration, error) {
	switch {
	case m.Quiescence <= 0:
		return 0, usage("--quiescence must be positive, got %s", m.Quiescence)
	case m.Reset < 0:
		return 0, usage("--reset must not be negative, got %s", m.Reset)
	case m.Latency < 0:
		return 0, usage("--latency must not be negative, got %s", m.Latency)
	}
	if m.Settle == nil {
		return min(purpose.DefaultSettle, m.Reset), nil
	}
	switch settle := *m.Settle; {
	case settle < 0:
		return 0, usage("--settle must not be negative, got %s", settle)
	case settle > m.Reset:
		return 0, usage("--settle %s is more than --reset %s: the settle time is part of the reset", settle, m.Reset)
	default:
		return settle, nil
	}
}

// checkDevices refuses a device choice no selection can mean.
func checkDevices(device string, devices []string) error {
	if device != "" && len(devices) > 0 {
		return usage("--device and --devices are exclusive: --device picks one, --devices shares the queries among several")
	}
	for _, d := range devices {
		if d == "all" && len(devices) > 1 {
			return usage("--devices: all cannot be combined with serials")
		}
		if strings.TrimSpace(d) == "" {
			return usage("--devices: empty serial")
		}
	}
	return nil
}

// parseTimeout reads Timeout: auto or auto:START, the calibration's
// start; 0 for the fixed timeout.
func parseTimeout(s string) (time.Duration, error) {
	switch {
	case s == "":
		return 0, nil
	case s == TimeoutAuto:
		return calibrate.DefaultStart, nil
	}
	if rest, ok := strings.CutPrefix(s, TimeoutAuto+":"); ok {
		d, err := time.ParseDuration(rest)
		if err == nil && d > 0 {
			return d, nil
		}
		return 0, usage("--timeout auto:START needs a positive duration such as auto:200ms, got %q", s)
	}
	return 0, usage("--timeout must be auto or auto:START (e.g. auto:200ms), got %q; a fixed timeout is the purpose's timeouts.quiescence (or --quiescence with --model)", s)
}

// parseBound reads Bound: "", N, auto or auto:MAX.
func parseBound(s string) (boundChoice, error) {
	if s == "" {
		return boundChoice{}, nil
	}
	if rest, ok := strings.CutPrefix(s, BoundAuto); ok {
		b := boundChoice{auto: true, max: engine.DefaultAutoMax}
		if rest == "" {
			return b, nil
		}
		m, err := strconv.Atoi(strings.TrimPrefix(rest, ":"))
		if !strings.HasPrefix(rest, ":") || err != nil {
			return b, usage("--bound must be a number, auto or auto:MAX, got %q", s)
		}
		if m <= engine.AutoStart {
			return b, usage("--bound auto:MAX needs MAX above %d (the bound it starts from), got %d", engine.AutoStart, m)
		}
		b.max = m
		return b, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return boundChoice{}, usage("--bound must be a number, auto or auto:MAX, got %q", s)
	}
	if n < 1 {
		return boundChoice{}, usage("--bound must be at least 1, got %d", n)
	}
	return boundChoice{fixed: n}, nil
}

// ParseConformance reads a conformance setting: off, random:N,
// random:N:SEED or wp:K. A random test without a seed uses seed 1, so
// that the same command asks the same words (and a resumed run finds them
// stored).
func ParseConformance(s string) (*model.Conformance, error) {
	if s == ConformanceOff {
		return nil, nil
	}
	bad := func() (*model.Conformance, error) {
		return nil, usage("--conformance must be off, random:N, random:N:SEED or wp:K, got %q", s)
	}
	parts := strings.Split(s, ":")
	switch {
	case parts[0] == engine.ConformanceRandom && (len(parts) == 2 || len(parts) == 3):
		n, err := strconv.Atoi(parts[1])
		if err != nil {
			return bad()
		}
		if n < 1 {
			return nil, usage("--conformance random:N needs at least 1 walk, got %d", n)
		}
		c := &model.Conformance{Method: engine.ConformanceRandom, Walks: n, Seed: 1}
		if len(parts) == 3 {
			seed, err := strconv.ParseUint(parts[2], 10, 64)
			if err != nil {
				return nil, usage("--conformance random:N:SEED: the seed must be a number, got %q", parts[2])
			}
			c.Seed = seed
		}
		return c, nil
	case parts[0] == engine.ConformanceWp && len(parts) == 2:
		k, err := strconv.Atoi(parts[1])
		if err != nil {
			return bad()
		}
		if k < 0 {
			return nil, usage("--conformance wp:K needs a depth of at least 0, got %d", k)
		}
		return &model.Conformance{Method: engine.ConformanceWp, Depth: k}, nil
	}
	return bad()
}
