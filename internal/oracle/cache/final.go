package cache

import (
	"context"
	"fmt"
	"slices"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/oracle"
)

// confirm marks every edge on w as seen by more than one answer (a vote
// settled it).
func (c *Cache) confirm(w mealy.Word) {
	n := c.root
	for _, in := range w {
		if _, forced := c.Sem.Forced(int(n.out), in); forced {
			continue
		}
		if n.children == nil || n.children[in] == nil {
			return
		}
		n = n.children[in]
		n.runs = max(n.runs, 2)
		// What a vote settled is not dropped: a flaky answer to it would
		// then meet nothing to contradict.
		n.keep = true
	}
}

// trace follows w down the tree and returns, for each symbol, the node
// whose executed answer gave its output: the edge itself, or for an
// output the closure's rules force (after an err, a wait after a quiet)
// the edge that forces it. at[j] is the length of that node's word (a
// prefix of w); by[j] is nil, and at[j] -1, where the tree does not reach
// (a restriction cut the query short: a rule, not an answer, decided).
func (c *Cache) trace(w mealy.Word) (by []*node, at []int) {
	by, at = make([]*node, len(w)), make([]int, len(w))
	n, depth := c.root, 0
	for k, in := range w {
		if _, forced := c.Sem.Forced(int(n.out), in); forced {
			by[k], at[k] = n, depth
			continue
		}
		if n.children == nil || n.children[in] == nil {
			for j := k; j < len(w); j++ {
				at[j] = -1
			}
			return by, at
		}
		n, depth = n.children[in], k+1
		by[k], at[k] = n, depth
	}
	return by, at
}

// leafBelow extends w, whose node is n, to an executed word: running that
// word again checks every edge of w.
func leafBelow(n *node, w mealy.Word) mealy.Word {
	w = slices.Clone(w)
	for n.children != nil {
		next := -1
		for in, child := range n.children {
			if child != nil {
				next = in
				break
			}
		}
		if next < 0 {
			break
		}
		w, n = append(w, next), n.children[next]
	}
	return w
}

// nearWords returns the executed words to run again so that no
// separation of two rows of obs rests on a single answer: for every pair
// of rows with different outputs, if one edge of the tree explains every
// difference between them (on either row's side) and only one executed
// answer went through that edge, an executed word through it.
//
// The pairs are those of the learner's table rather than of the
// hypothesis and a characterising set computed afresh: the table is what
// the learner concluded from, so a wrong answer it did not use cannot
// change the model, and no query is asked to find the pairs.
func (c *Cache) nearWords(obs oracle.Observations) []mealy.Word {
	type cell struct {
		by []*node // per suffix symbol, nil where a rule decided
		at []int
	}
	rows := make([][]cell, len(obs.Rows))
	for r, row := range obs.Rows {
		rows[r] = make([]cell, len(obs.Columns))
		for col, e := range obs.Columns {
			by, at := c.trace(row.Concat(e...))
			rows[r][col] = cell{by: by[len(row):], at: at[len(row):]}
		}
	}
	// Rows with the same outputs everywhere form one class; the symbols
	// where two classes differ are the same for all their rows.
	classOf := map[string]int{}
	var classes [][]int
	for r := range obs.Rows {
		key := fmt.Sprint(obs.Cells[r])
		k, ok := classOf[key]
		if !ok {
			k = len(classes)
			classOf[key] = k
			classes = append(classes, nil)
		}
		classes[k] = append(classes[k], r)
	}
	type spot struct{ col, j int }
	want := map[*node]mealy.Word{}
	pick := func(r int, s spot) {
		n, at := rows[r][s.col].by[s.j], rows[r][s.col].at[s.j]
		if n == nil || n.runs >= 2 {
			return
		}
		if _, ok := want[n]; !ok {
			w := obs.Rows[r].Concat(obs.Columns[s.col]...)
			want[n] = w[:at]
		}
	}
	for a := range classes {
		for b := a + 1; b < len(classes); b++ {
			ra, rb := classes[a][0], classes[b][0]
			var diff []spot
			for col := range obs.Columns {
				if obs.Cells[ra][col] == nil || obs.Cells[rb][col] == nil {
					continue
				}
				for j, o := range obs.Cells[ra][col] {
					if o != obs.Cells[rb][col][j] {
						diff = append(diff, spot{col, j})
					}
				}
			}
			if len(diff) == 0 {
				// Rows that asked different columns and agree where both
				// asked: no answer separates them.
				continue
			}
			for _, u := range classes[a] {
				for _, v := range classes[b] {
					// The edges that could explain every difference: each
					// difference has one edge on u's side and one on v's.
					cu, cv := rows[u][diff[0].col].by[diff[0].j], rows[v][diff[0].col].by[diff[0].j]
					for _, s := range diff[1:] {
						if cu == nil && cv == nil {
							break
						}
						nu, nv := rows[u][s.col].by[s.j], rows[v][s.col].by[s.j]
						if cu != nu && cu != nv {
							cu = nil
						}
						if cv != nu && cv != nv {
							cv = nil
						}
					}
					// cu and cv start as u's and v's edges at the first
					// difference.
					if cu != nil {
						pick(u, diff[0])
					}
					if cv != nil {
						pick(v, diff[0])
					}
				}
			}
		}
	}
	// A wrong err can also merge: it can make the row of a state the
	// table has no other row of look like another state's row, and then
	// no two rows differ by it. Nothing runs below an err (the closure's
	// rules answer every extension), so no later query contradicts it, and
	// the equivalence check's words through it are answered by the rules
	// too. So every err a row that is not an access word shows through an
	// edge of its own (the row's last one or below) runs again too.
	if c.Sem.Closure {
		for r := obs.States; r < len(obs.Rows); r++ {
			for col := range obs.Columns {
				for j, o := range obs.Cells[r][col] {
					if o == c.Sem.Err && rows[r][col].at[j] >= len(obs.Rows[r]) {
						pick(r, spot{col, j})
					}
				}
			}
		}
	}
	words := make([]mealy.Word, 0, len(want))
	for n, w := range want {
		words = append(words, leafBelow(n, w))
	}
	slices.SortFunc(words, func(a, b mealy.Word) int { return slices.Compare(a, b) })
	return slices.CompactFunc(words, mealy.Word.Equal)
}

// VerifyNear runs once more the executed words whose answers alone tell
// apart two rows of the final table (see nearWords), settling
// disagreements by vote, before a model is declared final. It reports
// whether a vote overturned an answer given before.
func (c *Cache) VerifyNear(ctx context.Context, obs oracle.Observations) (revised bool, err error) {
	c.mu.Lock()
	words := c.nearWords(obs)
	c.mu.Unlock()
	c.Recorder.Asked(ctx, len(words))
	return c.recheck(ctx, words)
}

// VerifyAll runs once more every executed word not checked so far (the
// leaves of the tree: running a leaf checks every answer on its path),
// settling disagreements by vote. It reports whether a vote overturned
// an answer given before.
func (c *Cache) VerifyAll(ctx context.Context, _ oracle.Observations) (revised bool, err error) {
	c.mu.Lock()
	var words []mealy.Word
	var walk func(n *node, w mealy.Word)
	walk = func(n *node, w mealy.Word) {
		leaf := true
		for in, child := range n.children {
			if child != nil {
				leaf = false
				walk(child, append(w[:len(w):len(w)], in))
			}
		}
		if leaf && n != c.root && !n.verified {
			n.verified = true
			words = append(words, w)
		}
	}
	walk(c.root, nil)
	c.mu.Unlock()
	c.Recorder.Asked(ctx, len(words))
	return c.recheck(ctx, words)
}

// recheckRounds bounds how often a word is run again when each re-run
// disagreed before its end and the vote kept the tree's answer: three
// flaky re-runs of one word in a row is what a vote reports, not this.
const recheckRounds = 3

// recheck runs executed words once more, in one batch, and puts the
// answers into the tree, voting on the ones that disagree. A word whose
// re-run disagreed part-way and lost the vote runs again, so that its
// symbols after the disagreement are checked too.
func (c *Cache) recheck(ctx context.Context, words []mealy.Word) (revised bool, err error) {
	for round := 0; round < recheckRounds && len(words) > 0; round++ {
		firsts := make([]oracle.Answer, len(words))
		c.mu.Lock()
		t := c.touchFor(ctx)
		for k, w := range words {
			firsts[k], _ = c.lookup(w, &t)
		}
		c.mu.Unlock()
		got, err := c.Next.Ask(oracle.AsRerun(ctx), words)
		if err != nil {
			return false, fmt.Errorf("re-running the executed queries to verify them: %w", err)
		}
		var again []mealy.Word
		for k, w := range words {
			c.Recorder.Rerun(slices.Equal(got[k].Outputs, firsts[k].Outputs))
			agreed, r, err := c.addVoting(ctx, w, got[k])
			if err != nil {
				return false, err
			}
			revised = revised || r
			if !agreed && !r {
				again = append(again, w)
			}
		}
		words = again
	}
	return revised, nil
}
