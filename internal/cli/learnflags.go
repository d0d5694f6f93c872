package cli

import (
	"fmt"
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
	fl.StringVar(&s.Backend, "backend", "", "which of the purpose's backends to use (default: the first it lists; an embedded example's is sim)")
	fl.IntVar(&s.Lanes, "lanes", s.Lanes, "executors running queries in parallel (simulated devices or harness JVMs)")
	fl.BoolVar(&s.Realtime, "realtime", false, "make the simulated device sleep for real instead of using a virtual clock")
	addServerFlags(fl, &s.ADB.Host, &s.ADB.Port)
	addHarnessFlags(fl, &s.ADB.HarnessTimeout, &s.ADB.Dir)
	fl.BoolVar(&s.ADB.KeepAwake, "keep-awake", s.ADB.KeepAwake, "backend adb: keep each device's screen on while it is plugged in over USB during the run (svc power stayon usb) and put its setting back afterwards; --keep-awake=false leaves the setting alone")
	fl.StringVar(&s.Learner, "learner", s.Learner, "the learner: "+strings.Join(run.Learners(), ", "))
	fl.StringVar(&s.Oracle, "oracle", s.Oracle, "equivalence oracle: bound (the distinguisher-bound oracle) or perfect (compare hypotheses with the target's model; backend sim only)")
	fl.StringVar(&s.Bound, "bound", "", "distinguisher bound in free symbols (default: the purpose's bound, else 2): N, or auto (start at 1, raise while a raised bound's round finds counterexamples, up to 4) or auto:MAX; the wait a followed_by_wait restriction forces after a callin is part of that callin's step and not counted; the model is exact if the target needs no more than the bound used")
	fl.StringVar(&s.BoundCounts, "bound-counts", "", "which symbols the bound counts (default: the purpose's bound_counts, else free): free (a wait a followed_by_wait restriction forces after a callin is part of that callin's step) or every (every symbol, as DroidStar counted: where waits are forced it reaches less far, and costs less)")
	fl.StringVar(&s.Conformance, "conformance", run.DefaultConformance, "conformance test run once a hypothesis passes the bound check: random:N (N random words from the hypothesis's states, seed 1), random:N:SEED, wp:K (the Wp-method, K extra states) or off")
	fl.IntVar(&s.Pad.Learning, "pad", s.Pad.Learning, "extend each learning query the cache cannot answer by up to this many symbols the restrictions allow, so that one reset answers later queries too; 0: no padding")
	fl.IntVar(&s.Pad.Check, "pad-check", s.Pad.Check, "extend each word of a bound check's round the cache cannot answer by up to this many symbols, so that after a counterexample the next round's longer words are answered too; 0: no padding")
	fl.StringVar(&s.Timeout, "timeout", "", "auto: calibrate the quiescence timeout while learning, one per wait context (the callin before the wait and how many waits since), each starting at "+run.DefaultTimeoutStart.String()+" (auto:START to choose) and raised to "+fmt.Sprint(run.TimeoutMargin)+"x the slowest callback seen in its context, never above the purpose's timeouts.quiescence; default: the purpose's timeout on every wait")
	fl.IntVar(&s.MaxQueries, "max-queries", 0, "stop once this many queries have run on devices (answers from the cache or the store are free), writing the partial model; 0: no limit")
	fl.IntVar(&s.Vote.Repeat, "repeat", s.Vote.Repeat, "re-runs of a query whose answer contradicts an earlier one (twice, if the first round is not clear); a clear majority (over half the votes, two ahead of any other answer) decides, else exit 4 (0: stop at the first contradiction)")
	fl.Float64Var(&s.Vote.Verify, "verify", 0, "fraction of executed queries (0 to 1) run once more to measure determinism, drawn with --seed")
	fl.Var(&choiceFlag{value: &s.Vote.Final, choices: "near|all|off"}, "verify-final", "before declaring the model final, run answers once more: near (the executed queries whose answer alone tells two rows of the final table apart, and those behind each err a transition row shows, which no later query re-runs; about 11% more queries on mediaplayer; it rests on wrong answers being rare: two wrong answers that agree can still pass), all (every executed query: about twice the queries and device time), off (none: one wrong answer no later query contradicts can change the model)")
	fl.Uint64Var(&l.seed, "seed", 0, "seed for --verify's draws (default: a fresh one, recorded in the model); when given, also of the sim backend's latency ranges (default 0)")
	fl.Float64Var(&s.Vote.SimFlaky, "sim-flaky", 0, "backend sim: flip one answer of a query with this probability (seeded with --seed)")
	_ = fl.MarkHidden("sim-flaky")
	fl.StringVar(&s.Store.Path, "store", "", "query store file, or off for none (default: $"+run.StoreEnv+", else droidstar/"+run.StoreFile+" in the user's cache folder)")
	fl.BoolVar(&s.Store.Fresh, "fresh", false, "ignore the answers stored by earlier runs (new answers are still stored)")
	fl.DurationVar(&s.Grace, "grace", s.Grace, "on SIGINT or SIGTERM, how long the running queries get to finish")
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
	fl.StringVarP(host, "adb-host", "H", "", "adb server host (default: from ADB_SERVER_SOCKET, else localhost)")
	fl.IntVarP(port, "adb-port", "P", 0, "adb server port (default: from ADB_SERVER_SOCKET or ANDROID_ADB_SERVER_PORT, else 5037)")
}

// addHarnessFlags adds the flags of how the harness runs on a device.
func addHarnessFlags(fl *pflag.FlagSet, timeout *time.Duration, dir *string) {
	d := run.Defaults().ADB
	fl.DurationVar(timeout, "harness-timeout", d.HarnessTimeout, "backend adb: how long to wait for the harness app to open its socket")
	fl.StringVar(dir, "device-dir", d.Dir, "backend adb: the device folder where the adb shell stages the purpose's files; the harness app only reads it, copying the files into its own folder")
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
