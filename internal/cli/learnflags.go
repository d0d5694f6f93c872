package cli

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/droidstar/droidstar/internal/run"
)

// learningFlags are the learning options: the flags of every command that
// learns (learn, matrix), each bound to one field of a run.Spec, so that a
// flag has one spelling, one meaning, one validation (run.Spec.Validate)
// and one help text wherever it appears. A new learning option is a field
// of run.Spec and a line here.
type learningFlags struct {
	spec  run.Spec
	seed  uint64
	flags *pflag.FlagSet
}

// addLearningFlags registers the learning options on fl, defaulting to
// run.Defaults.
func addLearningFlags(fl *pflag.FlagSet) *learningFlags {
	l := &learningFlags{spec: run.Defaults(), flags: fl}
	s := &l.spec
	fl.StringVar(&s.Backend, "backend", "", "the purpose's backend to use (default: its first)")
	fl.Var(&setFlag{values: &s.Set}, "set", "give a purpose parameter its value (repeatable)")
	fl.IntVar(&s.Lanes, "lanes", s.Lanes, "sims or harness JVMs running in parallel")
	fl.BoolVar(&s.Realtime, "realtime", false, "sim: sleep for real, not on a virtual clock")
	addServerFlags(fl, &s.ADB.Host, &s.ADB.Port)
	addHarnessFlags(fl, &s.ADB.HarnessTimeout, &s.ADB.Dir)
	fl.BoolVar(&s.ADB.KeepAwake, "keep-awake", s.ADB.KeepAwake, "adb: keep screens on while learning")
	fl.StringVar(&s.Learner, "learner", s.Learner, "the learner: "+strings.Join(run.Learners(), ", "))
	fl.StringVar(&s.Oracle, "oracle", s.Oracle, "equivalence oracle: bound or perfect")
	fl.StringVar(&s.Bound, "bound", "", "distinguisher bound: N, auto, auto:MAX (default: the purpose's)")
	fl.StringVar(&s.BoundCounts, "bound-counts", "", "what the bound counts: free, every (default: the purpose's)")
	fl.StringVar(&s.Conformance, "conformance", run.DefaultConformance, "after the bound: wp:K, random:N[:SEED], off")
	fl.IntVar(&s.Pad.Learning, "pad", s.Pad.Learning, "symbols added to each learning query")
	fl.IntVar(&s.Pad.Check, "pad-check", s.Pad.Check, "symbols added to each bound-check word")
	fl.StringVar(&s.Timeout, "timeout", "", "auto[:START]: calibrate the quiescence timeout")
	fl.IntVar(&s.MaxQueries, "max-queries", 0, "stop after N executed queries (0: no limit)")
	fl.IntVar(&s.MaxStates, "max-states", 0, "stop past N states; a counting target goes on up to it")
	fl.IntVar(&s.Vote.Repeat, "repeat", s.Vote.Repeat, "re-runs of a query that contradicts one")
	fl.Float64Var(&s.Vote.Verify, "verify", 0, "fraction of queries run twice to measure noise")
	fl.Var(&choiceFlag{value: &s.Vote.Final, choices: "near|all|off"}, "verify-final", "answers run again before the model is final")
	fl.Uint64Var(&l.seed, "seed", 0, "seed of --verify and sim latencies")
	fl.Float64Var(&s.Vote.SimFlaky, "sim-flaky", 0, "backend sim: flip an answer with this probability")
	_ = fl.MarkHidden("sim-flaky")
	fl.StringVar(&s.Store.Path, "store", "", "query store file, or off (default: $"+run.StoreEnv+")")
	fl.BoolVar(&s.Store.Fresh, "fresh", false, "ignore the answers earlier runs stored")
	fl.DurationVar(&s.Grace, "grace", s.Grace, "time running queries get after Ctrl-C")
	return l
}

// read is the spec the command line gave: the flags' values, with the
// defaults that depend on other flags left to the run (a conformance
// test not asked for is none under --oracle perfect; a seed not given is
// drawn fresh).
func (l *learningFlags) read() run.Spec {
	s := l.spec
	if !l.flags.Changed("conformance") {
		s.Conformance = ""
	}
	if l.flags.Changed("seed") {
		seed := l.seed
		s.Vote.Seed = &seed
	}
	return s
}

// addServerFlags adds the adb server flags (adb's own -H and -P).
func addServerFlags(fl *pflag.FlagSet, host *string, port *int) {
	fl.StringVarP(host, "adb-host", "H", "", "adb server host (default localhost)")
	fl.IntVarP(port, "adb-port", "P", 0, "adb server port (default 5037)")
}

// addHarnessFlags adds the flags of how the harness runs on a device.
func addHarnessFlags(fl *pflag.FlagSet, timeout *time.Duration, dir *string) {
	d := run.Defaults().ADB
	fl.DurationVar(timeout, "harness-timeout", d.HarnessTimeout, "adb: wait for the harness to start")
	fl.StringVar(dir, "device-dir", d.Dir, "adb: staging `dir`")
}

// setFlag is --set NAME=VALUE, repeatable, into a map of values; which
// names a purpose takes is run.Spec's Validate's to say. Only the first
// '=' splits, so that a value may hold more (a URL's query).
type setFlag struct{ values *map[string]string }

func (f *setFlag) Set(s string) error {
	name, value, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return fmt.Errorf("want NAME=VALUE, such as address=00:11:22:AA:BB:CC")
	}
	if _, dup := (*f.values)[name]; dup {
		return fmt.Errorf("%s is given twice", name)
	}
	if *f.values == nil {
		*f.values = map[string]string{}
	}
	(*f.values)[name] = value
	return nil
}

func (f *setFlag) Type() string { return "name=value" }

func (f *setFlag) String() string {
	var pairs []string
	for _, name := range slices.Sorted(maps.Keys(*f.values)) {
		pairs = append(pairs, name+"="+(*f.values)[name])
	}
	return strings.Join(pairs, ",")
}

// choiceFlag is a string flag whose help names its choices; run.Spec's
// Validate checks the value, as it checks every learning option.
type choiceFlag struct {
	value   *string
	choices string
}

func (c *choiceFlag) String() string     { return *c.value }
func (c *choiceFlag) Set(s string) error { *c.value = s; return nil }
func (c *choiceFlag) Type() string       { return c.choices }
