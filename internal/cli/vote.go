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
	final  bool
	// simFlaky makes the simulated devices flaky (hidden: for tests and
	// for trying the vote out).
	simFlaky float64
}

func (v *voteFlags) add(fl *pflag.FlagSet) {
	fl.IntVar(&v.repeat, "repeat", compose.DefaultRepeat, "re-runs of a query whose answer contradicts an earlier one (twice, if the first round is not clear); a clear majority (over half the votes, two ahead of any other answer) decides, else exit 4 (0: stop at the first contradiction)")
	fl.Float64Var(&v.verify, "verify", 0, "fraction of executed queries (0 to 1) run once more to measure determinism, drawn with --seed")
	fl.BoolVar(&v.final, "verify-final", true, "before declaring the model final, run every executed query once more (each answer learning used is then seen twice)")
	fl.Uint64Var(&v.seed, "seed", 0, "seed for --verify's draws (default: a fresh one, recorded in the model)")
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
	if v.final {
		plan.Job.Verify = plan.Cache.VerifyAll
	}
	return &model.Determinism{Repeat: v.repeat, Verify: v.verify, Seed: v.seed}
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
