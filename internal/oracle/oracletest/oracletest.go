// Package oracletest holds the oracle doubles that tests of several
// packages ask, so each is written once. It is a test helper: only tests
// link it (the learners' floor test lists what the learners link, not
// their tests).
package oracletest

import (
	"context"
	"slices"
	"sync"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/oracle"
)

// Machine is an oracle that answers from a Mealy machine, as a device
// below the whole pipeline would, and counts what it runs: a stand-in for
// the stages below the one under test. It runs every spare
// (oracle.Spares) that comes with a batch and has somebody to tell
// (Answered), before the batch, as a scheduler does. It is safe for
// concurrent Asks; read what it kept once they are done.
type Machine struct {
	// M is the machine that answers.
	M *mealy.Machine
	// Sem, under closure semantics, makes an answer's first err output an
	// exception thrown by the input that got it (ErrAt and Err set), as a
	// device reports one; otherwise every answer has ErrAt -1.
	Sem mealy.Semantics
	// Device is the device every answer names.
	Device string
	// Ran, when not nil, counts the runs of each word, spares included,
	// by its inputs formatted.
	Ran map[string]int
	// Log makes it keep the words it is asked (Sent, Spares, Batches,
	// SpareBatches); without it, only the counts are kept, so that a
	// benchmark measures the learner and not the log.
	Log bool

	// Queries is how many words it ran, spares included.
	Queries int
	// Sent is every word asked in a batch, in order, and Spares every
	// spare it ran (with Log).
	Sent, Spares []mealy.Word
	// Batches holds each batch asked, its words formatted, and
	// SpareBatches the spares that came with it, run or not (with Log).
	Batches, SpareBatches [][]string

	mu sync.Mutex
}

// Ask answers qs from the machine, after running the batch's spares.
func (o *Machine) Ask(ctx context.Context, qs []mealy.Word) ([]oracle.Answer, error) {
	sp, ok := oracle.SparesOf(ctx)
	o.mu.Lock()
	if o.Log {
		o.Batches = append(o.Batches, o.format(qs))
		o.SpareBatches = append(o.SpareBatches, o.format(sp.Words))
	}
	var spares []oracle.Answer
	if ok && sp.Answered != nil {
		spares = o.run(sp.Words)
		if o.Log {
			o.Spares = append(o.Spares, clone(sp.Words)...)
		}
	}
	o.mu.Unlock()
	for k, a := range spares {
		sp.Answered(k, a)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.Log {
		o.Sent = append(o.Sent, clone(qs)...)
	}
	return o.run(qs), nil
}

// Sizes is the size of each batch asked (with Log).
func (o *Machine) Sizes() []int {
	o.mu.Lock()
	defer o.mu.Unlock()
	sizes := make([]int, len(o.Batches))
	for k, b := range o.Batches {
		sizes[k] = len(b)
	}
	return sizes
}

// run answers qs and counts them; o.mu is held.
func (o *Machine) run(qs []mealy.Word) []oracle.Answer {
	out := make([]oracle.Answer, len(qs))
	for k, q := range qs {
		o.Queries++
		if o.Ran != nil {
			o.Ran[o.M.Inputs.Format(q)]++
		}
		outs, _ := o.M.Run(q)
		a := oracle.Answer{Outputs: outs, ErrAt: -1, Device: o.Device}
		if at := slices.Index(outs, o.Sem.Err); o.Sem.Closure && at >= 0 {
			a.ErrAt, a.Err = at, &model.ErrInfo{Kind: model.ErrThrown, Detail: "thrown by " + o.M.Inputs.Name(q[at])}
		}
		out[k] = a
	}
	return out
}

func (o *Machine) format(ws []mealy.Word) []string {
	out := make([]string, len(ws))
	for k, w := range ws {
		out[k] = o.M.Inputs.Format(w)
	}
	return out
}

func clone(ws []mealy.Word) []mealy.Word {
	out := make([]mealy.Word, len(ws))
	for k, w := range ws {
		out[k] = slices.Clone(w)
	}
	return out
}
