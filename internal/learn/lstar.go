// Package learn holds the active learners. LStar is Angluin's L* for Mealy
// machines (ICSE 2018, Algorithm 1) with Rivest-Schapire counterexample
// processing; it asks its membership queries in batches so that the
// pipeline below can spread them over devices.
package learn

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/oracle"
)

// Hypothesis is a conjecture together with the access word of each state
// (the L* state representatives), which equivalence oracles reuse.
type Hypothesis struct {
	Machine *mealy.Machine
	Access  []mealy.Word
}

// Counterexample is what an equivalence oracle found.
type Counterexample struct {
	// Word is an input word on which the hypothesis and the target differ.
	Word mealy.Word
	// Suffix, when set, is a word that tells apart two rows the hypothesis
	// merged; the learner adds it to its experiments directly, with no
	// counterexample analysis (ICSE 2018, Remark after Algorithm 2).
	Suffix mealy.Word
}

// EquivalenceOracle checks a hypothesis; it returns nil when it finds no
// counterexample.
type EquivalenceOracle interface {
	FindCounterexample(ctx context.Context, h *Hypothesis) (*Counterexample, error)
}

// Options tune L*.
type Options struct {
	// SuffixClosed adds every suffix of a counterexample suffix to E, not
	// only the suffix itself.
	SuffixClosed bool
	// MaxRounds stops after that many equivalence queries (0: no limit).
	MaxRounds int
	// OnHypothesis is called with every hypothesis before it is checked.
	OnHypothesis func(round int, h *Hypothesis)
}

// Result is a learned machine and what it took.
type Result struct {
	Hypothesis *Hypothesis
	// EQs counts equivalence queries, the last (successful) one included.
	EQs int
	// Rows and Columns are the final observation table's size.
	Rows, Columns int
	// Observations are the final table's row and column words: the
	// answers the hypothesis rests on, for a final check of the ones a
	// single wrong answer could have changed.
	Observations oracle.Observations
}

// ErrMaxRounds is returned (with the last hypothesis) when MaxRounds is hit.
var ErrMaxRounds = errors.New("learning stopped at the round limit")

// table is the observation table: rows S ∪ S·A, columns E, and the output
// word of each column's suffix in each row.
type table struct {
	inputs *mealy.Alphabet
	s      []mealy.Word
	inS    map[string]int // row key → index in s
	e      []mealy.Word
	eKeys  map[string]bool
	cells  map[string][]mealy.Word // row key → one output word per column filled so far
}

// LStar learns a Mealy machine over inputs from mq, checking hypotheses
// with eq. The counterexample analysis asks mq too; eq asks whatever
// oracle it was built over, so a caller that wants the two phases counted
// apart gives each its own counter.
func LStar(ctx context.Context, inputs *mealy.Alphabet, outputs *mealy.Alphabet, mq oracle.Oracle, eq EquivalenceOracle, opts Options) (*Result, error) {
	t := &table{inputs: inputs, inS: map[string]int{}, eKeys: map[string]bool{}, cells: map[string][]mealy.Word{}}
	for a := 0; a < inputs.Size(); a++ {
		t.addColumn(mealy.Word{a})
	}
	t.addRow(mealy.Word{})
	if err := t.fill(ctx, mq); err != nil {
		return nil, err
	}
	res := &Result{}
	// After the first hypothesis, failures return it too, so a caller can
	// keep what was learned.
	fail := func(err error) (*Result, error) {
		if res.Hypothesis != nil {
			return res, err
		}
		return nil, err
	}
	for {
		if err := t.close(ctx, mq); err != nil {
			return fail(err)
		}
		h := t.hypothesis(outputs)
		res.Hypothesis, res.Rows, res.Columns = h, len(t.cells), len(t.e)
		res.Observations = t.observations()
		res.EQs++
		if opts.OnHypothesis != nil {
			opts.OnHypothesis(res.EQs, h)
		}
		cex, err := eq.FindCounterexample(ctx, h)
		if err != nil {
			return fail(fmt.Errorf("equivalence query %d: %w", res.EQs, err))
		}
		if cex == nil {
			return res, nil
		}
		if opts.MaxRounds > 0 && res.EQs >= opts.MaxRounds {
			return res, ErrMaxRounds
		}
		suffixes, err := t.suffixesFor(ctx, mq, h, cex)
		if err != nil {
			return fail(fmt.Errorf("counterexample %s: %w", inputs.Format(cex.Word), err))
		}
		added := 0
		for _, sfx := range suffixes {
			if opts.SuffixClosed {
				for k := len(sfx) - 1; k >= 0; k-- {
					if t.addColumn(sfx[k:]) {
						added++
					}
				}
			} else if t.addColumn(sfx) {
				added++
			}
		}
		if added == 0 {
			return fail(fmt.Errorf("counterexample %s adds no new experiment; the target is not deterministic or the oracle is wrong", inputs.Format(cex.Word)))
		}
		if err := t.fill(ctx, mq); err != nil {
			return fail(err)
		}
	}
}

func (t *table) addColumn(e mealy.Word) bool {
	k := e.Key()
	if t.eKeys[k] {
		return false
	}
	t.eKeys[k] = true
	t.e = append(t.e, append(mealy.Word(nil), e...))
	return true
}

// addRow adds s to S, together with its one-letter extensions as rows.
func (t *table) addRow(s mealy.Word) {
	t.inS[s.Key()] = len(t.s)
	t.s = append(t.s, s)
	t.ensureRow(s)
	for a := 0; a < t.inputs.Size(); a++ {
		t.ensureRow(s.Concat(a))
	}
}

func (t *table) ensureRow(r mealy.Word) {
	if _, ok := t.cells[r.Key()]; !ok {
		t.cells[r.Key()] = nil
	}
}

// rows lists S ∪ S·A in a stable order: S, then each S row's extensions.
func (t *table) rows() []mealy.Word {
	out := make([]mealy.Word, 0, len(t.cells))
	seen := make(map[string]bool, len(t.cells))
	add := func(r mealy.Word) {
		if k := r.Key(); !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
	}
	for _, s := range t.s {
		add(s)
	}
	for _, s := range t.s {
		for a := 0; a < t.inputs.Size(); a++ {
			add(s.Concat(a))
		}
	}
	return out
}

// fill asks, in one batch, every cell not yet known.
func (t *table) fill(ctx context.Context, mq oracle.Oracle) error {
	type cell struct {
		row mealy.Word
		col int
	}
	var want []cell
	var queries []mealy.Word
	for _, r := range t.rows() {
		have := len(t.cells[r.Key()])
		for c := have; c < len(t.e); c++ {
			want = append(want, cell{r, c})
			queries = append(queries, r.Concat(t.e[c]...))
		}
	}
	if len(queries) == 0 {
		return nil
	}
	answers, err := mq.Ask(ctx, queries)
	if err != nil {
		return err
	}
	for k, w := range want {
		key := w.row.Key()
		out := answers[k].Outputs
		t.cells[key] = append(t.cells[key], append(mealy.Word(nil), out[len(w.row):]...))
		if len(t.cells[key]) != w.col+1 {
			return fmt.Errorf("internal: observation table filled out of order")
		}
	}
	return nil
}

func (t *table) signature(r mealy.Word) string {
	var b strings.Builder
	for _, out := range t.cells[r.Key()] {
		for _, o := range out {
			b.WriteString(strconv.Itoa(o))
			b.WriteByte(',')
		}
		b.WriteByte('|')
	}
	return b.String()
}

// close moves rows of S·A whose signature no S row has into S, one per
// distinct signature, shortest first, until the table is closed.
func (t *table) close(ctx context.Context, mq oracle.Oracle) error {
	for {
		sigs := make(map[string]bool, len(t.s))
		for _, s := range t.s {
			sigs[t.signature(s)] = true
		}
		var promote []mealy.Word
		for _, s := range t.s {
			for a := 0; a < t.inputs.Size(); a++ {
				r := s.Concat(a)
				if _, in := t.inS[r.Key()]; in {
					continue
				}
				if sig := t.signature(r); !sigs[sig] {
					sigs[sig] = true
					promote = append(promote, r)
				}
			}
		}
		if len(promote) == 0 {
			return nil
		}
		for _, r := range promote {
			t.addRow(r)
		}
		if err := t.fill(ctx, mq); err != nil {
			return err
		}
	}
}

// observations copies the table out for a final check.
func (t *table) observations() oracle.Observations {
	rows := t.rows()
	cells := make([][]mealy.Word, len(rows))
	for k, r := range rows {
		cells[k] = slices.Clone(t.cells[r.Key()])
	}
	return oracle.Observations{Rows: rows, States: len(t.s), Columns: slices.Clone(t.e), Cells: cells}
}

// hypothesis builds the conjecture of a closed table.
func (t *table) hypothesis(outputs *mealy.Alphabet) *Hypothesis {
	bySig := make(map[string]int, len(t.s))
	for q, s := range t.s {
		bySig[t.signature(s)] = q
	}
	m := mealy.NewMachine(t.inputs, outputs, len(t.s))
	for q, s := range t.s {
		row := t.cells[s.Key()]
		for a := 0; a < t.inputs.Size(); a++ {
			// Column a is the one-letter experiment a (E starts as the alphabet).
			m.SetTransition(q, a, row[a][0], bySig[t.signature(s.Concat(a))])
		}
	}
	access := make([]mealy.Word, len(t.s))
	copy(access, t.s)
	return &Hypothesis{Machine: m, Access: access}
}

// suffixesFor turns a counterexample into new experiments: the oracle's
// suffix when it gave one, otherwise Rivest-Schapire's.
func (t *table) suffixesFor(ctx context.Context, mq oracle.Oracle, h *Hypothesis, cex *Counterexample) ([]mealy.Word, error) {
	if len(cex.Suffix) > 0 && !t.eKeys[cex.Suffix.Key()] {
		return []mealy.Word{cex.Suffix}, nil
	}
	sfx, err := rivestSchapire(ctx, mq, h, cex.Word)
	if err != nil {
		return nil, err
	}
	return []mealy.Word{sfx}, nil
}

// rivestSchapire finds, by binary search, a split u = p·a·v of the
// counterexample where replacing p by the access word of the state it
// reaches changes the answer, but replacing p·a does not; v then tells
// apart two rows the hypothesis merged.
func rivestSchapire(ctx context.Context, mq oracle.Oracle, h *Hypothesis, u mealy.Word) (mealy.Word, error) {
	ans, err := mq.Ask(ctx, []mealy.Word{u})
	if err != nil {
		return nil, err
	}
	hyp, _ := h.Machine.Run(u)
	n := -1
	for k := range u {
		if hyp[k] != ans[0].Outputs[k] {
			n = k + 1
			break
		}
	}
	if n < 0 {
		return nil, errors.New("the hypothesis already answers it correctly")
	}
	if n < 2 {
		// The table holds every one-letter answer from the initial state.
		return nil, errors.New("the target answered a one-letter query differently than before (non-deterministic)")
	}
	u = u[:n]
	target := ans[0].Outputs[n-1]
	// alpha(i) is the last output of access(δ(u[:i]))·u[i:]. alpha(0) is
	// the target's answer; alpha(n-1) is the hypothesis's (E holds every
	// input), which differs. Find lo with alpha(lo) = target and
	// alpha(lo+1) != target.
	alpha := func(i int) (int, error) {
		q := h.Machine.StateAfter(u[:i])
		w := h.Access[q].Concat(u[i:]...)
		a, err := mq.Ask(ctx, []mealy.Word{w})
		if err != nil {
			return 0, err
		}
		return a[0].Outputs[len(w)-1], nil
	}
	lo, hi := 0, n-1
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		out, err := alpha(mid)
		if err != nil {
			return nil, err
		}
		if out == target {
			lo = mid
		} else {
			hi = mid
		}
	}
	return append(mealy.Word(nil), u[lo+1:]...), nil
}
