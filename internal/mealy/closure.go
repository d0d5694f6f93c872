package mealy

import "fmt"

// The synchronous closure (DroidStar, ICSE 2018, §4.1) adds one input and
// three outputs to a class's callins and callbacks.
const (
	Wait  = "wait"  // input: deliver the oldest undelivered callback, or time out
	OK    = "ok"    // output: a callin returned normally
	Quiet = "quiet" // output: a wait saw no callback before the quiescence timeout
	Err   = "err"   // output: a callin threw, an error callback fired, or the query was excluded
)

// IsClosureOutput says whether an output name is one of the closure's own
// (ok, quiet, err) rather than a callback.
func IsClosureOutput(name string) bool {
	return name == OK || name == Quiet || name == Err
}

// Semantics is the synchronous closure's two rules on symbol indices, the
// one statement of them that the query cache, the restriction filter, the
// scheduler, the simulated device and the simulated harness all follow:
//
//   - err is prefix-closed: after an err every output is err (the harness
//     stops executing; the host answers the rest);
//   - a wait right after a quiet answers quiet at once and changes nothing
//     (the harness does not wait again).
//
// A plain Mealy machine has neither rule.
type Semantics struct {
	// Closure enables the two rules.
	Closure bool
	// Wait, Quiet and Err are the symbol indices of wait (an input), quiet
	// and err (outputs); -1 without Closure.
	Wait, Quiet, Err int
}

// ClosureSemantics looks up wait, quiet and err in the alphabets; without
// all three it is PlainSemantics.
func ClosureSemantics(inputs, outputs *Alphabet) Semantics {
	w, ok1 := inputs.Index(Wait)
	q, ok2 := outputs.Index(Quiet)
	e, ok3 := outputs.Index(Err)
	if !ok1 || !ok2 || !ok3 {
		return PlainSemantics()
	}
	return Semantics{Closure: true, Wait: w, Quiet: q, Err: e}
}

// PlainSemantics is a Mealy machine with no special symbols.
func PlainSemantics() Semantics { return Semantics{Wait: -1, Quiet: -1, Err: -1} }

// Forced returns the output the rules give input in when the previous
// output of the query was prev (-1 at its start), and ok=false when the
// input has to be run. A forced output changes no state.
func (s Semantics) Forced(prev, in int) (out int, ok bool) {
	switch {
	case !s.Closure:
		return 0, false
	case prev == s.Err:
		return s.Err, true
	case in == s.Wait && prev == s.Quiet:
		return s.Quiet, true
	}
	return 0, false
}

// EndsQuiet reports whether an answer ends in a quiet chain: a wait
// answered quiet after the last callin, and no err. Only after such an
// answer does the harness spend its settle time (a callback arriving then
// is late); after any other it disposes of the instance at once.
func (s Semantics) EndsQuiet(inputs, outputs Word) bool {
	open := false
	for k := range min(len(inputs), len(outputs)) {
		switch {
		case outputs[k] == s.Err:
			return false
		case inputs[k] != s.Wait:
			open = false
		case outputs[k] == s.Quiet:
			open = true
		}
	}
	return s.Closure && open
}

// ErrFrom sets every output from index k on to err (the rest of a query
// after its first err).
func (s Semantics) ErrFrom(outputs Word, k int) {
	for j := k; j < len(outputs); j++ {
		outputs[j] = s.Err
	}
}

// ClosureAlphabets builds the input alphabet (callins, then wait) and the
// output alphabet (ok, quiet, err, then callbacks) of a synchronous closure.
func ClosureAlphabets(callins, callbacks []string) (inputs, outputs *Alphabet, err error) {
	inputs, err = NewAlphabet(append(append([]string(nil), callins...), Wait)...)
	if err != nil {
		return nil, nil, fmt.Errorf("inputs: %w", err)
	}
	outputs, err = NewAlphabet(append([]string{OK, Quiet, Err}, callbacks...)...)
	if err != nil {
		return nil, nil, fmt.Errorf("outputs: %w", err)
	}
	return inputs, outputs, nil
}

// IsClosure reports whether a machine is over a synchronous-closure
// alphabet: wait among the inputs and ok, quiet and err among the outputs.
func (m *Machine) IsClosure() bool {
	_, w := m.Inputs.Index(Wait)
	_, o := m.Outputs.Index(OK)
	_, q := m.Outputs.Index(Quiet)
	_, e := m.Outputs.Index(Err)
	return w && o && q && e
}

// EdgeKind tells what a typestate edge stands for.
type EdgeKind int

const (
	// Callin is a callin that returned normally.
	Callin EdgeKind = iota
	// Callback is a wait that delivered a callback.
	Callback
	// Timeout is a wait that saw no callback but still changed state
	// (the object moved on by itself, e.g. a delayed cancellation).
	Timeout
)

func (k EdgeKind) String() string {
	switch k {
	case Callin:
		return "callin"
	case Callback:
		return "callback"
	default:
		return "quiet"
	}
}

// Edge is one transition of a typestate.
type Edge struct {
	From, To int
	Input    int    // the machine input: the callin, or wait
	Label    string // callin or callback name; "quiet" for a Timeout edge
	Kind     EdgeKind
}

// Typestate is the interface-automaton view of a closure machine.
type Typestate struct {
	// States lists the machine states shown (the error sink removed).
	States  []int
	Initial int
	Edges   []Edge
	// Sink is the machine's error sink, -1 if it has none.
	Sink int
}

// Typestate converts a synchronous-closure machine into its callback
// typestate (ICSE 2018, Theorem 4.5): err transitions are dropped,
// wait/quiet self-loops are dropped, and wait transitions are labelled by the
// callback they delivered. States numbers are the machine's own.
func (m *Machine) Typestate() (*Typestate, error) {
	if !m.IsClosure() {
		return nil, fmt.Errorf("not a synchronous-closure machine: needs input %q and outputs %q, %q, %q", Wait, OK, Quiet, Err)
	}
	wait, _ := m.Inputs.Index(Wait)
	ok, _ := m.Outputs.Index(OK)
	quiet, _ := m.Outputs.Index(Quiet)
	errOut, _ := m.Outputs.Index(Err)
	ts := &Typestate{Initial: m.Initial, Sink: -1}
	if s, found := m.Sink(errOut); found {
		ts.Sink = s
	}
	reachable := m.Reachable()
	for q := 0; q < m.NumStates(); q++ {
		if !reachable[q] || q == ts.Sink {
			continue
		}
		ts.States = append(ts.States, q)
		for i := 0; i < m.Inputs.Size(); i++ {
			out, to := m.Out[q][i], m.Next[q][i]
			switch {
			case out == errOut:
				continue
			case i == wait && out == quiet:
				if to == q {
					continue
				}
				ts.Edges = append(ts.Edges, Edge{From: q, To: to, Input: i, Label: Quiet, Kind: Timeout})
			case i == wait && out == ok:
				return nil, fmt.Errorf("state %d: %q answered %q; a wait answers a callback or %q", q, Wait, OK, Quiet)
			case i == wait:
				ts.Edges = append(ts.Edges, Edge{From: q, To: to, Input: i, Label: m.Outputs.Name(out), Kind: Callback})
			case out == ok:
				ts.Edges = append(ts.Edges, Edge{From: q, To: to, Input: i, Label: m.Inputs.Name(i), Kind: Callin})
			default:
				return nil, fmt.Errorf("state %d: callin %q answered %q, want %q or %q",
					q, m.Inputs.Name(i), m.Outputs.Name(out), OK, Err)
			}
		}
	}
	return ts, nil
}
