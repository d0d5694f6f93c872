package learn_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/backend/sim"
	"github.com/droidstar/droidstar/internal/learn"
	"github.com/droidstar/droidstar/internal/learn/equivalence"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/mealy/mealytest"
	"github.com/droidstar/droidstar/internal/oracle"
	"github.com/droidstar/droidstar/internal/oracle/oracletest"
)

// checkLearned fails unless res holds a hypothesis equivalent to target,
// minimal, whose access words reach their states, and whose observations
// are a table of the shape the final check reads.
func checkLSharpLearned(t *testing.T, name string, target *mealy.Machine, res *learn.Result) {
	t.Helper()
	got := res.Hypothesis.Machine
	if w, differ, err := got.Counterexample(target); err != nil || differ {
		t.Fatalf("%s: learned machine differs from the target on %s (err %v)", name, target.Inputs.Format(w), err)
	}
	if want := target.Minimize().NumStates(); got.NumStates() != want {
		t.Fatalf("%s: learned %d states, minimal target has %d", name, got.NumStates(), want)
	}
	for q, w := range res.Hypothesis.Access {
		if got.StateAfter(w) != q {
			t.Fatalf("%s: access word %s of state %d leads to %d", name, target.Inputs.Format(w), q, got.StateAfter(w))
		}
	}
	obs := res.Observations
	if obs.States != got.NumStates() || len(obs.Rows) != len(obs.Cells) || len(obs.Rows) < obs.States {
		t.Fatalf("%s: observations have %d states, %d rows, %d cell rows; machine has %d states", name, obs.States, len(obs.Rows), len(obs.Cells), got.NumStates())
	}
	// Every cell the tree observed is what the target answers (the others
	// are nil), and every two states differ on a cell both observed.
	for r, row := range obs.Rows {
		for c, col := range obs.Columns {
			if obs.Cells[r][c] == nil {
				continue
			}
			out, _ := target.Run(row.Concat(col...))
			if !out[len(row):].Equal(obs.Cells[r][c]) {
				t.Fatalf("%s: cell %s·%s is %v, the target answers %v", name, target.Inputs.Format(row), target.Inputs.Format(col), obs.Cells[r][c], out[len(row):])
			}
		}
	}
	for p := 0; p < obs.States; p++ {
		for q := p + 1; q < obs.States; q++ {
			apart := false
			for c := range obs.Columns {
				a, b := obs.Cells[p][c], obs.Cells[q][c]
				if a != nil && b != nil && !a.Equal(b) {
					apart = true
				}
			}
			if !apart {
				t.Fatalf("%s: no observed column tells states %d and %d apart", name, p, q)
			}
		}
	}
}

func TestLSharpLearnsKnownMachinesWithPerfectTeacher(t *testing.T) {
	socket, _ := mealytest.ServerSocket()
	cases := []struct {
		name string
		m    *mealy.Machine
	}{
		{"counter", counter()},
		{"serversocket", socket},
	}
	files, err := filepath.Glob("../../testdata/models/*.dot")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f), "bad-") {
			continue
		}
		m, err := sim.LoadModel(f, "auto")
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		cases = append(cases, struct {
			name string
			m    *mealy.Machine
		}{filepath.Base(f), m.Machine})
	}
	if len(cases) < 6 {
		t.Fatalf("only %d machines to learn; testdata/models moved?", len(cases))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mq := &oracletest.Machine{M: c.m}
			res, err := learn.LSharp(context.Background(), c.m.Inputs, c.m.Outputs, mq, &equivalence.Perfect{Target: c.m}, learn.Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkLSharpLearned(t, c.name, c.m, res)
		})
	}
}

// minimalRandom is a random machine, minimised, with every state reachable.
func minimalRandom(seed int64, states, inputs, outputs int) *mealy.Machine {
	return randomMachine(seed, states, inputs, outputs).Minimize()
}

func TestLSharpLearnsRandomMinimalMachines(t *testing.T) {
	for seed := int64(1); seed <= 200; seed++ {
		target := minimalRandom(seed, 2+int(seed%29), 2+int(seed%4), 2+int(seed/7%3))
		mq := &oracletest.Machine{M: target}
		res, err := learn.LSharp(context.Background(), target.Inputs, target.Outputs, mq, &equivalence.Perfect{Target: target}, learn.Options{})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		checkLSharpLearned(t, fmt.Sprintf("seed %d", seed), target, res)
	}
}

// L# asks the independent queries of a step together: learning a machine
// of several states must ask some batch of more than one query.
func TestLSharpAsksInBatches(t *testing.T) {
	target := minimalRandom(7, 20, 4, 2)
	mq := &oracletest.Machine{M: target, Log: true}
	if _, err := learn.LSharp(context.Background(), target.Inputs, target.Outputs, mq, &equivalence.Perfect{Target: target}, learn.Options{}); err != nil {
		t.Fatal(err)
	}
	most := 0
	for _, n := range mq.Sizes() {
		most = max(most, n)
	}
	if most < target.Inputs.Size() {
		t.Fatalf("largest batch %d queries, want at least %d (one per input of a basis state); batches %v", most, target.Inputs.Size(), mq.Sizes())
	}
	if len(mq.Sizes()) >= mq.Queries {
		t.Fatalf("%d batches for %d queries: nothing was asked together", len(mq.Sizes()), mq.Queries)
	}
}

// With the distinguisher-bound oracle on a closure machine, L# learns the
// machine exactly, and the oracle reuses its access words.
func TestLSharpWithBoundOracleOnClosureMachine(t *testing.T) {
	target, forcing := mealytest.ServerSocket()
	sem := mealy.ClosureSemantics(target.Inputs, target.Outputs)
	mq := &oracletest.Machine{M: target}
	eq := &equivalence.Bound{MQ: &oracletest.Machine{M: target}, Bound: target.NeededFreeBound(forcing), Sem: sem, Forcing: forcing, PerBatch: 4}
	res, err := learn.LSharp(context.Background(), target.Inputs, target.Outputs, mq, eq, learn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkLSharpLearned(t, "serversocket", target, res)
	if res.EQs < 2 {
		t.Fatalf("%d equivalence queries: the bound oracle found no counterexample, so the test shows nothing of their processing", res.EQs)
	}
}

// A failure after the first hypothesis returns it with the error.
func TestLSharpMaxRoundsKeepsHypothesis(t *testing.T) {
	target := counter()
	res, err := learn.LSharp(context.Background(), target.Inputs, target.Outputs, &oracletest.Machine{M: target},
		&equivalence.Perfect{Target: target}, learn.Options{MaxRounds: 1})
	if !errors.Is(err, learn.ErrMaxRounds) || res == nil || res.Hypothesis == nil {
		t.Fatalf("want ErrMaxRounds with the last hypothesis, got %v, %v", res, err)
	}
	if got := res.Hypothesis.Machine.NumStates(); got >= 5 {
		t.Fatalf("first hypothesis has %d states; the counter needs counterexamples", got)
	}
}

// failingAfter answers from a machine until it has answered limit batches,
// then fails with err.
type failingAfter struct {
	oracletest.Machine
	limit int
	err   error
}

func (o *failingAfter) Ask(ctx context.Context, qs []mealy.Word) ([]oracle.Answer, error) {
	if o.limit == 0 {
		return nil, o.err
	}
	o.limit--
	return o.Machine.Ask(ctx, qs)
}

func TestLSharpErrors(t *testing.T) {
	target := minimalRandom(3, 12, 3, 2)
	boom := errors.New("device lost")
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name     string
		ctx      context.Context
		mq       oracle.Oracle
		want     error
		keepsHyp bool
	}{
		{"cancelled", cancelled, &oracletest.Machine{M: target}, context.Canceled, false},
		{"first batch fails", context.Background(), &failingAfter{oracletest.Machine{M: target}, 0, boom}, boom, false},
		{"revised", context.Background(), &failingAfter{oracletest.Machine{M: target}, 0, oracle.ErrRevised}, oracle.ErrRevised, false},
		// A hypothesis needs a few batches; a failure after it keeps it.
		{"fails later", context.Background(), &failingAfter{oracletest.Machine{M: target}, 12, boom}, boom, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := learn.LSharp(tc.ctx, target.Inputs, target.Outputs, tc.mq, &equivalence.Perfect{Target: target}, learn.Options{})
			if !errors.Is(err, tc.want) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
			if tc.keepsHyp != (res != nil && res.Hypothesis != nil) {
				t.Fatalf("result %v, want a hypothesis: %v", res, tc.keepsHyp)
			}
		})
	}
}

// A target that answers a prefix differently from before is not
// deterministic, and L# says so.
func TestLSharpReportsNonDeterminism(t *testing.T) {
	target := minimalRandom(5, 6, 2, 2)
	flip := &flippingOracle{Machine: oracletest.Machine{M: target}}
	_, err := learn.LSharp(context.Background(), target.Inputs, target.Outputs, flip, &equivalence.Perfect{Target: target}, learn.Options{})
	if err == nil || !strings.Contains(err.Error(), "not deterministic") {
		t.Fatalf("err %v, want one saying the target is not deterministic", err)
	}
}

// flippingOracle answers from a machine but flips the first output of every
// answer after the first batch.
type flippingOracle struct {
	oracletest.Machine
	asked int
}

func (o *flippingOracle) Ask(ctx context.Context, qs []mealy.Word) ([]oracle.Answer, error) {
	a, err := o.Machine.Ask(ctx, qs)
	o.asked++
	if o.asked > 1 {
		for k := range a {
			if len(a[k].Outputs) > 0 {
				a[k].Outputs[0] = (a[k].Outputs[0] + 1) % o.M.Outputs.Size()
			}
		}
	}
	return a, err
}
