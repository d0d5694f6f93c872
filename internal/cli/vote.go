package cli

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/spf13/pflag"

	"github.com/droidstar/droidstar/internal/compose"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/oracle"
)

// ExitFlaky is the exit code of a run stopped by answers that re-running
// could not settle.
const ExitFlaky = 4

// voteFlags are --repeat, --verify and --seed, shared by learn and matrix.
type voteFlags struct {
	repeat int
	verify float64
	seed   uint64
	final  finalCheck
	// simFlaky makes the simulated devices flaky (hidden: for tests and
	// for trying the vote out).
	simFlaky float64
}

func (v *voteFlags) add(fl *pflag.FlagSet) {
	fl.IntVar(&v.repeat, "repeat", compose.DefaultRepeat, "re-runs of a query whose answer contradicts an earlier one (twice, if the first round is not clear); a clear majority (over half the votes, two ahead of any other answer) decides, else exit 4 (0: stop at the first contradiction)")
	fl.Float64Var(&v.verify, "verify", 0, "fraction of executed queries (0 to 1) run once more to measure determinism, drawn with --seed")
	v.final = finalNear
	fl.Var(&v.final, "verify-final", "before declaring the model final, run answers once more: near (the executed queries whose answer alone tells two rows of the final table apart, and those behind each err a transition row shows, which no later query re-runs; about 11% more queries on mediaplayer; it rests on wrong answers being rare: two wrong answers that agree can still pass), all (every executed query: about twice the queries and device time), off (none: one wrong answer no later query contradicts can change the model)")
	fl.Uint64Var(&v.seed, "seed", 0, "seed for --verify's draws (default: a fresh one, recorded in the model); when given, also of the sim backend's latency ranges (default 0)")
	fl.Float64Var(&v.simFlaky, "sim-flaky", 0, "backend sim: flip one answer of a query with this probability (seeded with --seed)")
	_ = fl.MarkHidden("sim-flaky")
}

// check validates the flags and picks the seed when none was given.
func (v *voteFlags) check(fl *pflag.FlagSet) error {
	if v.repeat < 0 {
		return usageError("--repeat must be 0 or more, got %d", v.repeat)
	}
	if !(v.verify >= 0 && v.verify <= 1) {
		return usageError("--verify must be a fraction from 0 to 1, got %v", v.verify)
	}
	if !(v.simFlaky >= 0 && v.simFlaky <= 1) {
		return usageError("--sim-flaky must be a probability from 0 to 1, got %v", v.simFlaky)
	}
	if !fl.Changed("seed") {
		v.seed = uint64(time.Now().UnixNano())
	}
	return nil
}

// apply sets the plan's cache up for voting and returns what the model
// records of it.
func (v *voteFlags) apply(plan *compose.Plan) *model.Determinism {
	plan.Cache.Repeat = v.repeat
	plan.Cache.Verify = v.verify
	plan.Cache.Rand = rand.New(rand.NewPCG(v.seed, 0x766f7465)) // "vote": apart from the flakiness draws
	switch v.final {
	case finalNear:
		plan.Job.Verify = plan.Cache.VerifyNear
	case finalAll:
		plan.Job.Verify = plan.Cache.VerifyAll
	}
	return &model.Determinism{Repeat: v.repeat, Verify: v.verify, Seed: v.seed}
}

// finalCheck is --verify-final: which answers run once more before a
// model is declared final.
type finalCheck string

const (
	finalNear finalCheck = "near"
	finalAll  finalCheck = "all"
	finalOff  finalCheck = "off"
)

func (f *finalCheck) String() string { return string(*f) }
func (f *finalCheck) Type() string   { return "near|all|off" }

func (f *finalCheck) Set(s string) error {
	switch m := finalCheck(s); m {
	case finalNear, finalAll, finalOff:
		*f = m
		return nil
	}
	return errors.New("want near, all or off")
}

// flakyError gives an unsettled vote its exit code and its report: the
// disagreeing traces side by side and the likely fixes.
func flakyError(err error) error {
	var ve *oracle.VoteError
	if !errors.As(err, &ve) {
		return err
	}
	return &exitError{code: ExitFlaky, err: fmt.Errorf("%w\n%s", err, ve.Report())}
}
