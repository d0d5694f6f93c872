package export

import (
	"fmt"
	"sort"
	"strings"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
)

// graph is the one description of a model's picture: the DOT writer (and,
// through the DOT, the SVG) and the Mermaid writer both draw it, so the
// pictures cannot drift apart.
type graph struct {
	title   string
	closure bool   // a callback typestate, not a plain Mealy machine
	nodes   []node // in document order; a shown error sink last
	edges   []mergedEdge
	// bundles are edges drawn as one arrow from a list of states
	// (PictureOptions.Bundle); empty otherwise.
	bundles []bundle
	initial int // machine state
	kinds   map[edgeKind]bool
	// crash says an err edge shown is of kind crash: the legend says
	// what its "(crash)" means.
	crash bool
}

// node is one drawn state.
type node struct {
	q int // machine state
	// name is what the state is called: the document's State.Name when it
	// has one (named is then true), else the state's ID.
	name  string
	named bool
	// path is the shortest way to the state from the initial state, as the
	// messages the typestate shows (callins, callbacks, quiet): it says
	// what an unnamed state means. Empty for the initial state and the sink.
	path []step
	sink bool
	// loops are the state's self-loops, drawn in its label
	// (PictureOptions.Bundle); with no bundling they are edges.
	loops []loop
}

// step is one message on a node's path.
type step struct {
	label string
	kind  edgeKind
}

type edgeKind int

const (
	kindCallin edgeKind = iota
	kindCallback
	kindQuiet
	kindErr
	kindMealy
	kindElided // a stretch of a long path left out (steps only)
)

// rawEdge is one machine transition as drawn; input orders the edges.
type rawEdge struct {
	from, to, input int
	kind            edgeKind
	label           string
	crash           bool // an err of kind crash
}

// mergedEdge is one drawn edge: the transitions of one kind between the
// same two states.
type mergedEdge struct {
	from, to int
	kind     edgeKind
	labels   []string
}

// graph builds the picture of the document's model. A closure model is
// drawn as its callback typestate (mealy Machine.Typestate), with the error
// sink and the err transitions only when opts.ShowErrors; a plain Mealy
// model with every transition labelled "input / output". Transitions of
// the same kind between the same two states are merged. Edges are in the
// order of their source state in the document, then of the inputs.
func (v *view) graph(opts PictureOptions) (*graph, error) {
	var states []int // drawn states, in document order
	var raw []rawEdge
	sink := -1
	var err error
	switch {
	case v.closure():
		states, raw, sink, err = v.closureEdges(opts)
		if err != nil {
			return nil, err
		}
	case v.d.Semantics == model.SemanticsMealy:
		states, raw = v.mealyEdges()
	default:
		return nil, fmt.Errorf("model %q: semantics %q cannot be drawn", v.d.Name, v.d.Semantics)
	}

	pos := make([]int, v.m.NumStates())
	for k, q := range states {
		pos[q] = k
	}
	sort.SliceStable(raw, func(a, b int) bool {
		if pa, pb := pos[raw[a].from], pos[raw[b].from]; pa != pb {
			return pa < pb
		}
		return raw[a].input < raw[b].input
	})
	g := &graph{title: title(v.d), closure: v.closure(), initial: v.m.Initial, kinds: map[edgeKind]bool{}}
	// The edges of one source state are adjacent now, so merging looks
	// only among that state's edges (a few, one per input at most) rather
	// than in a map of every edge of the model.
	group := 0 // index in g.edges of the current source state's first edge
	for k, e := range raw {
		g.kinds[e.kind] = true
		g.crash = g.crash || e.crash
		if k == 0 || e.from != raw[k-1].from {
			group = len(g.edges)
		}
		me := -1
		for c := group; c < len(g.edges); c++ {
			if g.edges[c].to == e.to && g.edges[c].kind == e.kind {
				me = c
				break
			}
		}
		if me < 0 {
			me = len(g.edges)
			g.edges = append(g.edges, mergedEdge{from: e.from, to: e.to, kind: e.kind})
		}
		g.edges[me].labels = append(g.edges[me].labels, e.label)
	}

	paths := v.paths()
	for _, q := range states {
		n := node{q: q, name: v.names[q], named: v.named[q], sink: q == sink}
		if !n.sink {
			n.path = paths(q)
		}
		g.nodes = append(g.nodes, n)
	}
	if opts.Bundle {
		g.bundleEdges()
	}
	return g, nil
}

// pathEnds is how many steps of a long access word a picture shows at
// each end: a deep state (in a chain of thousands) would otherwise carry
// its whole path as a label, making the picture quadratic in size.
const pathEnds = 6

// paths gives each reachable state's access word as the messages the
// picture shows: a callin by its name, a wait by the callback it delivered
// (or quiet); in a plain Mealy machine, the inputs. A word longer than
// 2·pathEnds+1 shows its first and last pathEnds steps around one
// "… N more" step. It works on the access tree, so the labels of all
// states take time and memory linear in the machine.
func (v *view) paths() func(q int) []step {
	t := v.m.AccessTree()
	// head[q] is q's ancestor at depth pathEnds (q itself when shallower):
	// the first steps of q's word are that ancestor's word.
	head := make([]int, len(t.Depth))
	for _, q := range t.Order {
		if t.Depth[q] <= pathEnds {
			head[q] = q
		} else {
			head[q] = head[t.Parent[q]]
		}
	}
	wait, hasWait := v.m.Inputs.Index(mealy.Wait)
	// into is the step of the tree edge that enters q.
	into := func(q int) step {
		i := t.Via[q]
		o := v.m.Outputs.Name(v.m.Out[t.Parent[q]][i])
		switch {
		case !v.closure():
			return step{v.m.Inputs.Name(i), kindMealy}
		case o == mealy.Err:
			return step{v.m.Inputs.Name(i), kindErr}
		case hasWait && i == wait && o == mealy.Quiet:
			return step{mealy.Quiet, kindQuiet}
		case hasWait && i == wait:
			return step{o, kindCallback}
		default:
			return step{v.m.Inputs.Name(i), kindCallin}
		}
	}
	// up lists the last n steps of q's word, in order.
	up := func(q, n int) []step {
		steps := make([]step, n)
		for k := n - 1; k >= 0; k-- {
			steps[k] = into(q)
			q = t.Parent[q]
		}
		return steps
	}
	return func(q int) []step {
		d := t.Depth[q]
		if d < 0 {
			return nil
		}
		if d <= 2*pathEnds+1 {
			return up(q, d)
		}
		steps := up(head[q], pathEnds)
		steps = append(steps, step{fmt.Sprintf("… %d more", d-2*pathEnds), kindElided})
		return append(steps, up(q, pathEnds)...)
	}
}

// pathText writes a path as the pictures show it: messages joined by
// " · ", callbacks marked ⇒, quiet timeouts as "(quiet)", err as ✗.
func pathText(path []step) string {
	parts := make([]string, len(path))
	for k, s := range path {
		switch s.kind {
		case kindCallback:
			parts[k] = "⇒" + s.label
		case kindQuiet:
			parts[k] = "(quiet)"
		case kindErr:
			parts[k] = "✗" + s.label
		default: // callins, Mealy inputs, and an elided stretch
			parts[k] = s.label
		}
	}
	return strings.Join(parts, " · ")
}

// closureEdges is the typestate of a closure model, plus the err
// transitions (and the sink) when they are shown.
func (v *view) closureEdges(opts PictureOptions) (states []int, raw []rawEdge, sink int, err error) {
	ts, err := v.m.Typestate()
	if err != nil {
		return nil, nil, -1, fmt.Errorf("model %q: %w", v.d.Name, err)
	}
	errOut, _ := v.m.Outputs.Index(mealy.Err)
	states = append(states, ts.States...)
	for _, e := range ts.Edges {
		re := rawEdge{from: e.From, to: e.To, input: e.Input, label: e.Label}
		switch e.Kind {
		case mealy.Callin:
			re.kind = kindCallin
		case mealy.Callback:
			re.kind = kindCallback
		default:
			re.kind = kindQuiet
		}
		raw = append(raw, re)
	}
	if !opts.ShowErrors {
		return states, raw, -1, nil
	}
	shown := make(map[int]bool, len(states))
	for _, q := range states {
		shown[q] = true
	}
	for _, q := range ts.States {
		for i := 0; i < v.m.Inputs.Size(); i++ {
			if v.m.Out[q][i] != errOut {
				continue
			}
			to := v.m.Next[q][i]
			label := v.m.Inputs.Name(i)
			crash := false
			switch v.errKind(q, i) {
			case model.ErrExcluded:
				label += " (excluded)"
			case model.ErrCrash:
				label += " (crash)"
				crash = true
			}
			raw = append(raw, rawEdge{from: q, to: to, input: i, kind: kindErr, label: label, crash: crash})
			if !shown[to] {
				// The sink (or, in a machine whose errors are not
				// prefix-closed, some other state) is drawn last.
				shown[to] = true
				states = append(states, to)
			}
		}
	}
	return states, raw, ts.Sink, nil
}

// mealyEdges is every transition of a plain Mealy machine's reachable states.
func (v *view) mealyEdges() (states []int, raw []rawEdge) {
	reachable := v.m.Reachable()
	// One label string per input and output, shared by every edge.
	labels := make([][]string, v.m.Inputs.Size())
	for i := range labels {
		labels[i] = make([]string, v.m.Outputs.Size())
		for o := range labels[i] {
			labels[i][o] = v.m.Inputs.Name(i) + " / " + v.m.Outputs.Name(o)
		}
	}
	raw = make([]rawEdge, 0, v.m.NumStates()*v.m.Inputs.Size())
	for q := 0; q < v.m.NumStates(); q++ {
		if !reachable[q] {
			continue
		}
		states = append(states, q)
		for i := 0; i < v.m.Inputs.Size(); i++ {
			raw = append(raw, rawEdge{
				from: q, to: v.m.Next[q][i], input: i, kind: kindMealy,
				label: labels[i][v.m.Out[q][i]],
			})
		}
	}
	return states, raw
}

// title is the graph label: the model name, with the class when it adds
// something.
func title(d *model.Document) string {
	t := d.Name
	if d.Purpose != nil && d.Purpose.Class != "" && d.Purpose.Class != d.Name {
		if t == "" {
			t = d.Purpose.Class
		} else {
			t += " (" + d.Purpose.Class + ")"
		}
	}
	return t
}
