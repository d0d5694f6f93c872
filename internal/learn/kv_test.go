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

// checkLearned fails unless res holds the minimal machine equivalent to
// target, with access words that reach their states and observations that
// are the target's answers and tell every two states apart.
func checkKVLearned(t *testing.T, name string, target *mealy.Machine, res *learn.Result) {
	t.Helper()
	got := res.Hypothesis.Machine
	if w, differ, err := got.Counterexample(target); err != nil || differ {
		t.Fatalf("%s: learned machine differs from the target on %v (%v)", name, w, err)
	}
	if want := target.Minimize().NumStates(); got.NumStates() != want {
		t.Fatalf("%s: learned %d states, the minimal target has %d", name, got.NumStates(), want)
	}
	for q, w := range res.Hypothesis.Access {
		if got.StateAfter(w) != q {
			t.Fatalf("%s: access word %v of state %d leads to %d", name, w, q, got.StateAfter(w))
		}
	}
	obs := res.Observations
	// The states' access words, then every transition but the n-1 that
	// are access words.
	n, k := got.NumStates(), got.Inputs.Size()
	if obs.States != n || len(obs.Rows) != n*k+1 || len(obs.Cells) != len(obs.Rows) {
		t.Fatalf("%s: observations have %d states, %d rows, %d cell rows; want %d, %d", name, obs.States, len(obs.Rows), len(obs.Cells), n, n*k+1)
	}
	if res.Rows != len(obs.Rows) || res.Columns != len(obs.Columns) {
		t.Fatalf("%s: result says %dx%d, observations are %dx%d", name, res.Rows, res.Columns, len(obs.Rows), len(obs.Columns))
	}
	for r, row := range obs.Rows {
		for c, cell := range obs.Cells[r] {
			if cell == nil {
				continue
			}
			w := row.Concat(obs.Columns[c]...)
			out, _ := target.Run(w)
			if !out[len(row):].Equal(cell) {
				t.Fatalf("%s: cell %v·%v holds %v, the target answers %v", name, row, obs.Columns[c], cell, out[len(row):])
			}
		}
	}
	// Every two states differ on a column both rows asked.
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
				t.Fatalf("%s: the observations do not tell states %d and %d apart", name, p, q)
			}
		}
	}
}

func learnKV(t *testing.T, target *mealy.Machine) (*learn.Result, *oracletest.Machine) {
	t.Helper()
	mq := &oracletest.Machine{M: target}
	res, err := learn.KV(context.Background(), target.Inputs, target.Outputs, mq, &equivalence.Perfect{Target: target}, learn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res, mq
}

func TestKVLearnsRandomMachinesWithPerfectTeacher(t *testing.T) {
	for seed := int64(1); seed <= 200; seed++ {
		target := randomMachine(seed, 2+int(seed%29), 2+int(seed%4), 2+int(seed/7%3))
		res, _ := learnKV(t, target)
		checkKVLearned(t, fmt.Sprintf("seed %d", seed), target, res)
	}
}

func TestKVLearnsKnownMachines(t *testing.T) {
	server, _ := mealytest.ServerSocket()
	tests := []struct {
		name   string
		target *mealy.Machine
		states int
	}{
		{"counter", counter(), 5},
		{"serversocket", server, 8},
	}
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "models", "*"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{
		// The closure models count their error sink.
		"deep-mealy.dot": 4, "download-droidstar.gv": 5, "download-droidstar.json": 5, "player-closure-quirks.dot": 6,
		"player-closure.dot": 6, "player-closure.json": 6, "turnstile-wiki.dot": 3, "vending-mealy.dot": 3, "vending-mealy.json": 3,
	}
	for _, f := range files {
		base := filepath.Base(f)
		if strings.HasPrefix(base, "bad-") {
			continue
		}
		m, err := sim.LoadModel(f, "")
		if err != nil {
			t.Fatal(err)
		}
		tests = append(tests, struct {
			name   string
			target *mealy.Machine
			states int
		}{base, m.Machine, want[base]})
	}
	if len(tests) != 2+len(want) {
		t.Fatalf("%d models in testdata/models, want %d: update the table", len(tests)-2, len(want))
	}
	for _, c := range tests {
		t.Run(c.name, func(t *testing.T) {
			res, _ := learnKV(t, c.target)
			checkKVLearned(t, c.name, c.target, res)
			if got := res.Hypothesis.Machine.NumStates(); got != c.states {
				t.Fatalf("%d states, want %d", got, c.states)
			}
		})
	}
}

// KV asks each transition only the discriminators on its sift path, where
// L* asks every row every column: on a 50-state machine it executes fewer
// queries (both behind a prefix cache, as in the pipeline).
func TestKVAsksFewerQueriesThanLStar(t *testing.T) {
	target := randomMachine(7, 50, 5, 3)
	count := func(l learn.Learner) int {
		mq := &prefixCache{m: target}
		res, err := l(context.Background(), target.Inputs, target.Outputs, mq, &equivalence.Perfect{Target: target}, learn.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if ok, _ := res.Hypothesis.Machine.Equivalent(target); !ok {
			t.Fatal("learned machine differs from the target")
		}
		return mq.queries
	}
	kv, lstar := count(learn.KV), count(learn.LStar)
	if kv >= lstar {
		t.Fatalf("KV executed %d queries, L* %d: want fewer", kv, lstar)
	}
	t.Logf("executed queries: KV %d, L* %d", kv, lstar)
}

// prefixCache counts the queries a prefix-closed cache would execute:
// in each batch, those no executed word extends, less the ones another
// query of the batch extends.
type prefixCache struct {
	m        *mealy.Machine
	executed []mealy.Word
	queries  int
}

func (o *prefixCache) Ask(_ context.Context, qs []mealy.Word) ([]oracle.Answer, error) {
	extended := func(w mealy.Word, by []mealy.Word) bool {
		for _, e := range by {
			if e.HasPrefix(w) {
				return true
			}
		}
		return false
	}
	var miss []mealy.Word
	for _, q := range qs {
		if !extended(q, o.executed) {
			miss = append(miss, q)
		}
	}
	for i, q := range miss {
		longer := false
		for j, e := range miss {
			if e.HasPrefix(q) && (len(e) > len(q) || j < i) {
				longer = true
				break
			}
		}
		if !longer {
			o.executed = append(o.executed, q)
			o.queries++
		}
	}
	out := make([]oracle.Answer, len(qs))
	for k, q := range qs {
		w, _ := o.m.Run(q)
		out[k] = oracle.Answer{Outputs: w, ErrAt: -1}
	}
	return out, nil
}

// With the distinguisher-bound oracle on a closure model (the error sink
// absorbing, the restrictions forcing waits), KV takes the bound's suffix
// as a discriminator and learns the server socket, whose states right
// after bind and right after close differ only on "wait accept wait".
func TestKVWithBoundOracleOnClosureModel(t *testing.T) {
	target, forcing := mealytest.ServerSocket()
	sem := mealy.ClosureSemantics(target.Inputs, target.Outputs)
	for _, per := range []int{1, 4} {
		mq := &oracletest.Machine{M: target}
		eq := &equivalence.Bound{MQ: mq, Bound: 1, Sem: sem, Forcing: forcing, PerBatch: per}
		res, err := learn.KV(context.Background(), target.Inputs, target.Outputs, mq, eq, learn.Options{})
		if err != nil {
			t.Fatal(err)
		}
		checkKVLearned(t, "serversocket", target, res)
		if res.EQs < 2 {
			t.Fatalf("per batch %d: %d equivalence queries, want a counterexample first", per, res.EQs)
		}
	}
}

// suffixCex is a bound-like oracle that hands out a counterexample's
// suffix for a transition it names, and records how the learner asked.
type suffixCex struct {
	target *mealy.Machine
	// strip hands out the word alone, for the learner to analyse.
	strip bool
}

// FindCounterexample returns, for the first transition (q, a) whose target
// state differs from that of the hypothesis's δ(q, a), the word
// access(q)·a·v and its shortest distinguishing suffix v.
func (s *suffixCex) FindCounterexample(_ context.Context, h *learn.Hypothesis) (*learn.Counterexample, error) {
	m := h.Machine
	for q := 0; q < m.NumStates(); q++ {
		for a := 0; a < m.Inputs.Size(); a++ {
			left := s.target.StateAfter(h.Access[q].Concat(a))
			right := s.target.StateAfter(h.Access[m.Next[q][a]])
			v, differ, err := mealy.ShortestDifference([2]int{left, right}, m.Inputs.Size(), func(k [2]int, i int) ([2]int, bool, error) {
				return [2]int{s.target.Next[k[0]][i], s.target.Next[k[1]][i]}, s.target.Out[k[0]][i] != s.target.Out[k[1]][i], nil
			})
			if err != nil {
				return nil, err
			}
			if differ {
				cex := &learn.Counterexample{Word: h.Access[q].Concat(a).Concat(v...), Suffix: v}
				if hyp, _ := m.Run(cex.Word); func() bool { out, _ := s.target.Run(cex.Word); return hyp.Equal(out) }() {
					cex.Word = h.Access[m.Next[q][a]].Concat(v...)
				}
				if s.strip {
					cex.Suffix = nil
				}
				return cex, nil
			}
		}
	}
	if w, differ, err := m.Counterexample(s.target); err != nil || differ {
		return &learn.Counterexample{Word: w}, err
	}
	return nil, nil
}

// A suffix the oracle hands over becomes a discriminator with no analysis:
// the learner asks fewer queries than when it has to find one in the word.
func TestKVUsesSuffixDirectly(t *testing.T) {
	var with, without int
	for seed := int64(1); seed <= 30; seed++ {
		target := randomMachine(seed, 5+int(seed%20), 3, 2)
		for _, strip := range []bool{false, true} {
			mq := &oracletest.Machine{M: target}
			res, err := learn.KV(context.Background(), target.Inputs, target.Outputs, mq, &suffixCex{target: target, strip: strip}, learn.Options{})
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			checkKVLearned(t, fmt.Sprintf("seed %d, strip %v", seed, strip), target, res)
			if strip {
				without += mq.Queries
			} else {
				with += mq.Queries
			}
		}
	}
	if with >= without {
		t.Fatalf("with the suffixes KV asked %d queries, without %d: want fewer", with, without)
	}
	t.Logf("queries with suffixes %d, without %d", with, without)
}

func TestKVMaxRoundsKeepsHypothesis(t *testing.T) {
	target := counter()
	res, err := learn.KV(context.Background(), target.Inputs, target.Outputs, &oracletest.Machine{M: target},
		&equivalence.Perfect{Target: target}, learn.Options{MaxRounds: 1})
	if !errors.Is(err, learn.ErrMaxRounds) || res == nil || res.Hypothesis == nil {
		t.Fatalf("want ErrMaxRounds with the last hypothesis, got %v, %v", res, err)
	}
	if got := res.Hypothesis.Machine.NumStates(); got != 1 {
		t.Fatalf("first hypothesis has %d states, want 1", got)
	}
}

// failingOracle answers its first n batches from a machine, then fails.
type failingOracle struct {
	oracletest.Machine
	batches, n int
}

var errDeviceGone = errors.New("device sim-0 vanished")

func (o *failingOracle) Ask(ctx context.Context, qs []mealy.Word) ([]oracle.Answer, error) {
	o.batches++
	if o.batches > o.n {
		return nil, errDeviceGone
	}
	return o.Machine.Ask(ctx, qs)
}

// A failure before the first hypothesis returns nothing; after it, the
// last hypothesis comes back with the error.
func TestKVKeepsLastHypothesisOnFailure(t *testing.T) {
	target := randomMachine(3, 12, 3, 2)
	for n := 0; n < 12; n++ {
		mq := &failingOracle{Machine: oracletest.Machine{M: target}, n: n}
		res, err := learn.KV(context.Background(), target.Inputs, target.Outputs, mq, &equivalence.Perfect{Target: target}, learn.Options{})
		if !errors.Is(err, errDeviceGone) {
			t.Fatalf("after %d batches: error %v, want the device's", n, err)
		}
		if n == 0 && res != nil {
			t.Fatalf("no batch answered, yet a result %+v", res)
		}
		if n > 0 && (res == nil || res.Hypothesis == nil || res.EQs < 1) {
			t.Fatalf("after %d batches: no hypothesis kept (%+v)", n, res)
		}
	}
}

func TestKVStopsWhenCancelled(t *testing.T) {
	target := randomMachine(5, 20, 3, 2)
	ctx, cancel := context.WithCancel(context.Background())
	rounds := 0
	res, err := learn.KV(ctx, target.Inputs, target.Outputs, &oracletest.Machine{M: target}, &equivalence.Perfect{Target: target},
		learn.Options{OnHypothesis: func(round int, _ *learn.Hypothesis) {
			rounds = round
			if round == 2 {
				cancel()
			}
		}})
	if !errors.Is(err, context.Canceled) || res == nil || res.Hypothesis == nil || rounds != 2 {
		t.Fatalf("got %v after %d rounds (result %v), want context.Canceled with the round-2 hypothesis", err, rounds, res)
	}
}

// A target that changes its answers cannot be learned: the learner says
// so rather than looping or building a wrong machine silently.
func TestKVReportsNonDeterminism(t *testing.T) {
	target := counter()
	flip := &flipOracle{Machine: oracletest.Machine{M: target}}
	_, err := learn.KV(context.Background(), target.Inputs, target.Outputs, flip, &equivalence.Perfect{Target: target}, learn.Options{MaxRounds: 50})
	if err == nil || !strings.Contains(err.Error(), "deterministic") {
		t.Fatalf("error %v, want one saying the target is not deterministic", err)
	}
}

// flipOracle answers "read" as zero everywhere after its first batch.
type flipOracle struct {
	oracletest.Machine
	batches int
}

func (o *flipOracle) Ask(ctx context.Context, qs []mealy.Word) ([]oracle.Answer, error) {
	o.batches++
	out, err := o.Machine.Ask(ctx, qs)
	if o.batches > 1 {
		for k, q := range qs {
			for j, in := range q {
				if in == 1 {
					out[k].Outputs[j] = 1
				}
			}
		}
	}
	return out, err
}

// BenchmarkKV learns random machines with 10 inputs and 2 outputs from a
// perfect teacher (the CPU setting for the learners).
func BenchmarkKV(b *testing.B) {
	for _, n := range []int{100, 500, 2000} {
		target := randomMachine(int64(n), n, 10, 2)
		b.Run(fmt.Sprintf("states=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				mq := &oracletest.Machine{M: target}
				res, err := learn.KV(context.Background(), target.Inputs, target.Outputs, mq, &equivalence.Perfect{Target: target}, learn.Options{})
				if err != nil {
					b.Fatal(err)
				}
				if res.Hypothesis.Machine.NumStates() != target.Minimize().NumStates() {
					b.Fatal("learned machine is not the target")
				}
				b.ReportMetric(float64(mq.Queries), "queries")
			}
		})
	}
}
