// Package learn holds the active learners. LStar is Angluin's L* for Mealy
// machines (ICSE 2018, Algorithm 1) with Rivest-Schapire counterexample
// processing; it asks its membership queries in batches so that the
// pipeline below can spread them over devices.
package learn

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"slices"

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
	// OnEstimate, when set, is told before each batch about how many
	// queries the learner will ask, that batch included, before its next
	// hypothesis: the batch is exact, the rest a guess at the work of the
	// states it has not found yet, which each later call corrects. A
	// progress display turns it into the time left of the phase.
	OnEstimate func(queries int)
	// Lookahead sends, with each batch of the table's cells, the cells
	// the next closing round would ask if it moved any of the batch's
	// rows into S, as spares (oracle.Spares): on several lanes they run
	// where a lane would wait for the batch's last query. One lane never
	// runs a spare, so it changes nothing there. L* only: KV and L# ignore
	// it.
	Lookahead bool
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
//
// Rows form a tree (every row but ε is an S row's one-letter extension),
// so they are found by index, never by a key built from their word. A
// cell holds its column's id for the output word, which each column
// interns, and a row's signature is its slice of ids with a hash kept up
// to date as cells come in: comparing two rows compares hashes, then ids.
type table struct {
	inputs *mealy.Alphabet
	rows   []row
	s      []int32 // the S rows, by state
	e      []mealy.Word
	eKeys  map[string]bool
	cols   []column // by column
	keyBuf []byte
	// lookahead asks each fill's next cells as spares (Options.Lookahead).
	lookahead bool
	// estimate is Options.OnEstimate; expect is how many states the phase
	// is expected to end with at least, and promoted how many rows the
	// last closing step moved into S (see guess).
	estimate func(queries int)
	expect   int
	promoted int
}

type row struct {
	word  mealy.Word
	state int32   // index in s, -1 for a row of S·A only
	ext   []int32 // an S row's one-letter extensions, by input
	cells []int32 // by column: the column's id of the output word
	hash  uint64  // of cells
}

// column interns the output words its suffix gets, so that a cell is an
// int and equal cells have equal ids.
type column struct {
	ids   map[string]int32
	words []mealy.Word
}

// snapshot is how much of the table a hypothesis rested on: rows,
// columns and cells are only ever appended, so its first states S rows
// and first columns columns are that table again.
type snapshot struct{ states, columns int }

// LStar learns a Mealy machine over inputs from mq, checking hypotheses
// with eq. The counterexample analysis asks mq too; eq asks whatever
// oracle it was built over, so a caller that wants the two phases counted
// apart gives each its own counter.
func LStar(ctx context.Context, inputs *mealy.Alphabet, outputs *mealy.Alphabet, mq oracle.Oracle, eq EquivalenceOracle, opts Options) (*Result, error) {
	// The first hypothesis of a typestate has about as many states as the
	// purpose has inputs (wait included): within a factor of two on every
	// embedded example, and nothing better is known before any answer.
	t := &table{inputs: inputs, eKeys: map[string]bool{}, lookahead: opts.Lookahead, estimate: opts.OnEstimate, expect: inputs.Size()}
	for a := 0; a < inputs.Size(); a++ {
		t.addColumn(mealy.Word{a})
	}
	t.rows = append(t.rows, row{word: mealy.Word{}, state: -1})
	t.addRow(0)
	if err := t.fill(ctx, mq); err != nil {
		return nil, err
	}
	res := &Result{}
	var last snapshot
	// done fills in the observations of the last hypothesis, which only
	// a returned result needs.
	done := func(err error) (*Result, error) {
		res.Observations = t.observations(last)
		return res, err
	}
	// After the first hypothesis, failures return it too, so a caller can
	// keep what was learned.
	fail := func(err error) (*Result, error) {
		if res.Hypothesis != nil {
			return done(err)
		}
		return nil, err
	}
	for {
		if err := t.close(ctx, mq); err != nil {
			return fail(err)
		}
		h := t.hypothesis(outputs)
		res.Hypothesis, res.Rows, res.Columns = h, len(t.rows), len(t.e)
		last = snapshot{states: len(t.s), columns: len(t.e)}
		res.EQs++
		if opts.OnHypothesis != nil {
			opts.OnHypothesis(res.EQs, h)
		}
		cex, err := eq.FindCounterexample(ctx, h)
		if err != nil {
			return fail(fmt.Errorf("equivalence query %d: %w", res.EQs, err))
		}
		if cex == nil {
			return done(nil)
		}
		if opts.MaxRounds > 0 && res.EQs >= opts.MaxRounds {
			return done(ErrMaxRounds)
		}
		// A counterexample shows one state more than the hypothesis has.
		t.expect, t.promoted = len(t.s)+1, 0
		if t.estimate != nil {
			t.estimate(t.refineGuess(cex))
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
	t.cols = append(t.cols, column{ids: map[string]int32{}})
	return true
}

// addRow moves row r into S and adds its one-letter extensions as rows.
// They are new: a row's word has one parent, and r was not in S before.
func (t *table) addRow(r int32) {
	t.rows[r].state = int32(len(t.s))
	t.s = append(t.s, r)
	n := t.inputs.Size()
	ext := make([]int32, n)
	// One array holds the words of all the extensions.
	w := t.rows[r].word
	words := make(mealy.Word, n*(len(w)+1))
	for a := 0; a < n; a++ {
		word := words[a*(len(w)+1) : (a+1)*(len(w)+1) : (a+1)*(len(w)+1)]
		copy(word, w)
		word[len(w)] = a
		ext[a] = int32(len(t.rows))
		t.rows = append(t.rows, row{word: word, state: -1})
	}
	t.rows[r].ext = ext
}

// order lists the rows of S ∪ S·A of a table with states S rows in a
// stable order: S, then each S row's extensions that are not in S.
func (t *table) order(states int) []int32 {
	out := make([]int32, 0, states*(t.inputs.Size()+1))
	out = append(out, t.s[:states]...)
	for _, s := range t.s[:states] {
		for _, r := range t.rows[s].ext {
			if st := t.rows[r].state; st < 0 || int(st) >= states {
				out = append(out, r)
			}
		}
	}
	return out
}

// fill asks, in one batch, every cell not yet known.
func (t *table) fill(ctx context.Context, mq oracle.Oracle) error {
	rows := t.order(len(t.s))
	size, n := 0, 0
	for _, r := range rows {
		for c := len(t.rows[r].cells); c < len(t.e); c++ {
			size += len(t.rows[r].word) + len(t.e[c])
			n++
		}
	}
	if n == 0 {
		return nil
	}
	if t.estimate != nil {
		t.estimate(n + t.guess(len(t.e)))
	}
	// One array holds every query of the batch: the pipeline keeps no
	// query past its answer but may keep a few for messages.
	buf := make(mealy.Word, 0, size)
	queries := make([]mealy.Word, 0, n)
	for _, r := range rows {
		w := t.rows[r].word
		for c := len(t.rows[r].cells); c < len(t.e); c++ {
			start := len(buf)
			buf = append(append(buf, w...), t.e[c]...)
			queries = append(queries, buf[start:len(buf):len(buf)])
		}
	}
	if t.lookahead {
		ctx = oracle.WithSpares(ctx, oracle.Spares{Words: t.nextCells(rows)})
	}
	answers, err := mq.Ask(ctx, queries)
	if err != nil {
		return err
	}
	if len(answers) != len(queries) {
		return fmt.Errorf("internal: %d answers to %d queries", len(answers), len(queries))
	}
	k := 0
	for _, r := range rows {
		rw := &t.rows[r]
		for c := len(rw.cells); c < len(t.e); c++ {
			id := t.intern(c, answers[k].Outputs[len(rw.word):])
			rw.cells = append(rw.cells, id)
			rw.hash = mix(rw.hash, id)
			k++
		}
	}
	return nil
}

// nextCells lists the cells a closing round asks after this fill if it
// moves one of the rows being filled into S: each such row of S·A
// extended by each input, then each column, row by row, up to
// oracle.MaxSpares. Rows already in S are left out: their extensions are
// rows of the table already.
func (t *table) nextCells(rows []int32) []mealy.Word {
	var out []mealy.Word
	for _, r := range rows {
		rw := &t.rows[r]
		if rw.state >= 0 || len(rw.cells) == len(t.e) {
			continue
		}
		for a := 0; a < t.inputs.Size(); a++ {
			for _, e := range t.e {
				if len(out) == oracle.MaxSpares {
					return out
				}
				w := make(mealy.Word, 0, len(rw.word)+1+len(e))
				out = append(out, append(append(append(w, rw.word...), a), e...))
			}
		}
	}
	return out
}

// intern returns column c's id for the output word out.
func (t *table) intern(c int, out mealy.Word) int32 {
	b := t.keyBuf[:0]
	for _, o := range out {
		b = binary.AppendUvarint(b, uint64(o))
	}
	t.keyBuf = b
	col := &t.cols[c]
	if id, ok := col.ids[string(b)]; ok {
		return id
	}
	id := int32(len(col.words))
	col.ids[string(b)] = id
	col.words = append(col.words, append(mealy.Word(nil), out...))
	return id
}

// mix folds a cell's id into a row's hash.
func mix(h uint64, id int32) uint64 {
	h ^= uint64(uint32(id)) + 0x9e3779b97f4a7c15 + h<<6 + h>>2
	return h * 0xff51afd7ed558ccd
}

// classes maps row signatures to a representative: by hash, and on a
// collision of unequal signatures at the next free hash value, so that
// equal hashes never merge different rows.
type classes struct {
	t  *table
	by map[uint64]int32
}

func (t *table) classes(n int) *classes {
	return &classes{t: t, by: make(map[uint64]int32, n)}
}

// find returns the representative of r's signature, or -1.
func (c *classes) find(r int32) int32 {
	cells := c.t.rows[r].cells
	for h := c.t.rows[r].hash; ; h++ {
		rep, ok := c.by[h]
		if !ok {
			return -1
		}
		if slices.Equal(c.t.rows[rep].cells, cells) {
			return rep
		}
	}
}

// add makes r the representative of its signature, which has none yet.
func (c *classes) add(r int32) {
	h := c.t.rows[r].hash
	for {
		if _, taken := c.by[h]; !taken {
			c.by[h] = r
			return
		}
		h++
	}
}

// close moves rows of S·A whose signature no S row has into S, one per
// distinct signature, shortest first, until the table is closed.
func (t *table) close(ctx context.Context, mq oracle.Oracle) error {
	for {
		sigs := t.classes(len(t.s))
		for _, s := range t.s {
			if sigs.find(s) < 0 {
				sigs.add(s)
			}
		}
		var promote []int32
		for _, s := range t.s {
			for _, r := range t.rows[s].ext {
				if t.rows[r].state >= 0 {
					continue
				}
				if sigs.find(r) < 0 {
					sigs.add(r)
					promote = append(promote, r)
				}
			}
		}
		if len(promote) == 0 {
			return nil
		}
		t.promoted = len(promote)
		for _, r := range promote {
			t.addRow(r)
		}
		if err := t.fill(ctx, mq); err != nil {
			return err
		}
	}
}

// guess is the cells the table will still ask, beyond the fill at hand,
// before it closes, with columns columns: each state still to be found
// adds a row per input, a cell per column each. As many states as are
// still expected, and at least as many as the last closing step found
// (their extensions, being filled, may hold as many again).
func (t *table) guess(columns int) int {
	more := max(t.expect-len(t.s), t.promoted)
	return more * t.inputs.Size() * columns
}

// refineGuess is what a counterexample costs before the next hypothesis:
// the binary search (none when the oracle hands over a suffix), a new
// column's cell in every row, and the rows of the one state it shows.
func (t *table) refineGuess(cex *Counterexample) int {
	search := 0
	if len(cex.Suffix) == 0 || t.eKeys[cex.Suffix.Key()] {
		search = 1 + bits.Len(uint(len(cex.Word)))
	}
	return search + len(t.order(len(t.s))) + t.guess(len(t.e)+1)
}

// observations copies out the table of snapshot sn for a final check.
func (t *table) observations(sn snapshot) oracle.Observations {
	order := t.order(sn.states)
	rows := make([]mealy.Word, len(order))
	cells := make([][]mealy.Word, len(order))
	// One array holds every row's cells.
	all := make([]mealy.Word, len(order)*sn.columns)
	for k, r := range order {
		rows[k] = t.rows[r].word
		cs := all[k*sn.columns : (k+1)*sn.columns : (k+1)*sn.columns]
		for c, id := range t.rows[r].cells[:sn.columns] {
			cs[c] = t.cols[c].words[id]
		}
		cells[k] = cs
	}
	return oracle.Observations{Rows: rows, States: sn.states, Columns: slices.Clone(t.e[:sn.columns]), Cells: cells}
}

// hypothesis builds the conjecture of a closed table.
func (t *table) hypothesis(outputs *mealy.Alphabet) *Hypothesis {
	sigs := t.classes(len(t.s))
	for _, s := range t.s {
		sigs.add(s)
	}
	m := mealy.NewMachine(t.inputs, outputs, len(t.s))
	for q, s := range t.s {
		row := &t.rows[s]
		for a, r := range row.ext {
			// Column a is the one-letter experiment a (E starts as the alphabet).
			out := t.cols[a].words[row.cells[a]][0]
			m.SetTransition(q, a, out, int(t.rows[sigs.find(r)].state))
		}
	}
	access := make([]mealy.Word, len(t.s))
	for q, s := range t.s {
		access[q] = t.rows[s].word
	}
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
