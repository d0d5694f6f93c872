// Package restrict runs a purpose's restrictions as an automaton over
// input words, and the Filter stage that answers the queries they exclude
// without running them. It knows nothing of purpose files: the composition
// root turns a purpose's restrictions into Rules.
package restrict

import (
	"fmt"

	"github.com/droidstar/droidstar/internal/mealy"
)

// Kind is a kind of restriction. Every kind is prefix-closed: once a
// word breaks a rule, so does every extension, which is what lets the
// filter answer the rest of an excluded query err.
type Kind int

const (
	// AtMost allows at most Count occurrences, in total, of Symbols.
	AtMost Kind = iota
	// First requires the first symbol of a word to be one of Symbols.
	First
	// FollowedByWait requires each of Symbols to be directly followed by
	// a wait (a word may still end with one of them).
	FollowedByWait
)

// Rule is one restriction over input symbol names.
type Rule struct {
	Kind    Kind
	Symbols []string
	Count   int
	// Text is how the rule reads to a user; an excluded err carries it.
	Text string
}

// Automaton tracks a word against every rule at once.
type Automaton struct {
	rules []compiled
	wait  int
}

type compiled struct {
	Rule
	symbols []bool // by input index
}

// Compile checks the rules against the input alphabet. Rules need the
// synchronous closure: an excluded word answers err, and followed_by_wait
// needs a wait.
func Compile(inputs *mealy.Alphabet, sem mealy.Semantics, rules []Rule) (*Automaton, error) {
	if len(rules) > 0 && !sem.Closure {
		return nil, fmt.Errorf("restrictions need the synchronous-closure semantics (an err output)")
	}
	a := &Automaton{wait: sem.Wait}
	for _, r := range rules {
		c := compiled{Rule: r, symbols: make([]bool, inputs.Size())}
		for _, s := range r.Symbols {
			i, ok := inputs.Index(s)
			if !ok {
				return nil, fmt.Errorf("restriction %q names %q, which is not an input", r.Text, s)
			}
			c.symbols[i] = true
		}
		a.rules = append(a.rules, c)
	}
	return a, nil
}

// Forcing marks the inputs that followed_by_wait rules make a wait
// follow, for the bound oracle's free length (mealy.Forcing).
func (a *Automaton) Forcing() mealy.Forcing {
	f := mealy.Forcing{Wait: a.wait}
	for _, r := range a.rules {
		if r.Kind != FollowedByWait {
			continue
		}
		if f.Forces == nil {
			f.Forces = make([]bool, len(r.symbols))
		}
		for i, on := range r.symbols {
			f.Forces[i] = f.Forces[i] || on
		}
	}
	return f
}

// Empty says whether there are no rules (every word is allowed).
func (a *Automaton) Empty() bool { return len(a.rules) == 0 }

// State is where a word stands with respect to every rule: one number per
// rule (occurrences so far for at_most, whether the first symbol was seen
// for first, whether a wait is due for followed_by_wait). It lets a caller
// run the rules alongside a machine.
type State []int

// Start is the state of the empty word.
func (a *Automaton) Start() State { return make(State, len(a.rules)) }

// Step advances st by one input. It returns the new state, or ok=false
// and the text of the rule broken when the input is excluded.
func (a *Automaton) Step(st State, in int) (next State, ok bool, why string) {
	next = append(State(nil), st...)
	for k, r := range a.rules {
		switch r.Kind {
		case AtMost:
			if r.symbols[in] {
				next[k]++
				if next[k] > r.Count {
					return nil, false, r.Text
				}
			}
		case First:
			if next[k] == 0 && !r.symbols[in] {
				return nil, false, r.Text
			}
			next[k] = 1
		case FollowedByWait:
			if next[k] == 1 && in != a.wait {
				return nil, false, r.Text
			}
			next[k] = 0
			if r.symbols[in] {
				next[k] = 1
			}
		}
	}
	return next, true, ""
}

// FirstViolation returns the index of the first input of w that breaks a
// rule, and the rule's text, or -1.
func (a *Automaton) FirstViolation(w mealy.Word) (int, string) {
	if a.Empty() {
		return -1, ""
	}
	st := a.Start()
	for k, in := range w {
		var ok bool
		var why string
		if st, ok, why = a.Step(st, in); !ok {
			return k, why
		}
	}
	return -1, ""
}
