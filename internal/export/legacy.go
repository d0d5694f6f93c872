package export

import (
	"fmt"
	"strings"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
)

// Labels of DroidStar's DOT dialect.
const (
	legacyWaitPrefix = "delta_"
	legacyQuiet      = "delta_beta"
)

// LegacyDOT renders a closure model in DroidStar's own DOT dialect, as in
// the diagrams of its example-results:
//
//	digraph {
//	  0 -> 1[label=exec];
//	  1 -> 2[label=delta_postexec];
//	  0 -> 0[label=delta_beta];
//	}
//
// States are integers and the initial state is 0. A callin that returned
// normally is labelled by its name, a wait that delivered callback X by
// delta_X, and a wait that stayed quiet by delta_beta (self-loops
// included, unlike the typestate view). The error sink and every err
// transition are omitted: a missing edge means err.
//
// DroidStar numbered states in the order its own L* run found them and left
// the sink's number as a gap. Here states are numbered breadth-first from
// the initial state over all transitions, inputs in the document's order,
// and the sink's number is left out the same way; that reproduces
// DroidStar's own files byte for byte when its run found the states
// breadth-first (three of its six published diagrams), so old and new
// results can be compared as text. Edges are listed by state number, then
// input order. Only closure models have this form; a name that would make a
// label ambiguous (a callin starting with delta_, a callback named beta) is
// an error.
func LegacyDOT(d *model.Document) ([]byte, error) {
	v, err := newView(d)
	if err != nil {
		return nil, err
	}
	if !v.closure() {
		return nil, fmt.Errorf("model %q: DroidStar's DOT dialect is for synchronous-closure models (semantics %q), not %q",
			d.Name, model.SemanticsClosure, d.Semantics)
	}
	if !v.m.IsClosure() {
		return nil, fmt.Errorf("model %q: DroidStar's DOT dialect needs input %q and outputs %q, %q, %q",
			d.Name, mealy.Wait, mealy.OK, mealy.Quiet, mealy.Err)
	}
	m := v.m
	wait, _ := m.Inputs.Index(mealy.Wait)
	ok, _ := m.Outputs.Index(mealy.OK)
	quiet, _ := m.Outputs.Index(mealy.Quiet)
	errOut, _ := m.Outputs.Index(mealy.Err)
	for i := 0; i < m.Inputs.Size(); i++ {
		if n := m.Inputs.Name(i); i != wait && strings.HasPrefix(n, legacyWaitPrefix) {
			return nil, fmt.Errorf("model %q: callin %q would read as a wait in DroidStar's dialect", d.Name, n)
		}
	}
	if _, clash := m.Outputs.Index("beta"); clash {
		return nil, fmt.Errorf("model %q: a callback named %q would read as a quiet wait (%s) in DroidStar's dialect", d.Name, "beta", legacyQuiet)
	}
	label := func(q, i int) (string, error) {
		out := m.Out[q][i]
		switch {
		case i == wait && out == quiet:
			return legacyQuiet, nil
		case i == wait && out != ok:
			return legacyWaitPrefix + m.Outputs.Name(out), nil
		case i != wait && out == ok:
			return m.Inputs.Name(i), nil
		}
		return "", fmt.Errorf("model %q: state %q: input %q answered %q, which a closure model cannot",
			d.Name, v.ids[q], m.Inputs.Name(i), m.Outputs.Name(out))
	}

	// Number every state breadth-first over all transitions, as DroidStar's
	// L* found them when its run explored breadth-first, then leave the
	// sink out: its number stays a gap, as in DroidStar's files.
	num := make([]int, m.NumStates())
	for q := range num {
		num[q] = -1
	}
	num[m.Initial] = 0
	order := []int{m.Initial}
	for k := 0; k < len(order); k++ {
		for i := 0; i < m.Inputs.Size(); i++ {
			if to := m.Next[order[k]][i]; num[to] < 0 {
				num[to] = len(order)
				order = append(order, to)
			}
		}
	}
	sink, hasSink := m.Sink(errOut)
	var b strings.Builder
	b.WriteString("digraph {\n")
	for _, q := range order {
		if hasSink && q == sink {
			continue
		}
		for i := 0; i < m.Inputs.Size(); i++ {
			if m.Out[q][i] == errOut {
				continue
			}
			l, err := label(q, i)
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(&b, "  %d -> %d[label=%s];\n", num[q], num[m.Next[q][i]], DOTID(l))
		}
	}
	b.WriteString("}\n")
	return []byte(b.String()), nil
}
