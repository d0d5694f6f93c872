package export

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/awalterschulze/gographviz"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
)

// DOTOptions control TypestateDOT.
type DOTOptions struct {
	// ShowErrors draws the error sink (a red double circle labelled err)
	// and every err transition into it as a red dotted edge. An err that
	// the purpose's restrictions caused is labelled "(excluded)", so a
	// restriction is not mistaken for a real error.
	ShowErrors bool
}

// startNode is the invisible node whose arrow marks the initial state.
const startNode = "__start"

type edgeKind int

const (
	kindCallin edgeKind = iota
	kindCallback
	kindQuiet
	kindErr
	kindMealy
)

var edgeStyle = map[edgeKind]map[string]string{
	kindCallin: {},
	// The Android documentation draws callbacks as double arrows.
	kindCallback: {"style": "bold", "color": "blue", "fontcolor": "blue", "arrowhead": "normalnormal"},
	kindQuiet:    {"style": "dashed", "color": "grey", "fontcolor": "grey"},
	kindErr:      {"style": "dotted", "color": "red", "fontcolor": "red"},
	kindMealy:    {},
}

// rawEdge is one machine transition as drawn; input orders the edges.
type rawEdge struct {
	from, to, input int
	kind            edgeKind
	label           string
}

// mergedEdge is one drawn edge: the transitions of one kind between the
// same two states.
type mergedEdge struct {
	from, to int
	kind     edgeKind
	labels   []string
}

// TypestateDOT renders the model as Graphviz DOT.
//
// A closure model is drawn as its callback typestate (mealy
// Machine.Typestate): callins as plain arrows, callbacks as bold blue double
// arrows, waits that timed out but changed state as dashed grey "quiet"
// arrows; the error sink and err transitions are left out unless
// opts.ShowErrors. A plain Mealy model is drawn with every transition
// labelled "input / output". Transitions of the same kind between the same
// two states are merged into one edge with one label per line. Edges are in
// the order of their source state in the document, then of the inputs;
// the initial state has an arrow from an invisible point node.
func TypestateDOT(d *model.Document, opts DOTOptions) ([]byte, error) {
	v, err := newView(d)
	if err != nil {
		return nil, err
	}
	var states []int // drawn states, in document order
	var raw []rawEdge
	sink := -1
	switch {
	case v.closure():
		states, raw, sink, err = v.closureEdges(opts)
		if err != nil {
			return nil, err
		}
	case d.Semantics == model.SemanticsMealy:
		states, raw = v.mealyEdges()
	default:
		return nil, fmt.Errorf("model %q: semantics %q cannot be drawn", d.Name, d.Semantics)
	}

	pos := make(map[int]int, len(states))
	for k, q := range states {
		pos[q] = k
	}
	sort.SliceStable(raw, func(a, b int) bool {
		if pa, pb := pos[raw[a].from], pos[raw[b].from]; pa != pb {
			return pa < pb
		}
		return raw[a].input < raw[b].input
	})
	var edges []*mergedEdge
	byKey := map[[3]int]*mergedEdge{}
	for _, e := range raw {
		key := [3]int{e.from, e.to, int(e.kind)}
		me := byKey[key]
		if me == nil {
			me = &mergedEdge{from: e.from, to: e.to, kind: e.kind}
			byKey[key] = me
			edges = append(edges, me)
		}
		me.labels = append(me.labels, e.label)
	}

	nodeIDs := v.nodeIDs()
	g := gographviz.NewGraph()
	if err := g.SetDir(true); err != nil {
		return nil, err
	}
	graphName := d.Name
	if graphName == "" {
		graphName = "typestate"
	}
	if err := g.SetName(dotID(graphName)); err != nil {
		return nil, err
	}
	for _, a := range [][2]string{
		{"rankdir", "LR"},
		{"label", dotString(title(d))},
		{"labelloc", "t"},
	} {
		if err := g.AddAttr(g.Name, a[0], a[1]); err != nil {
			return nil, err
		}
	}
	if err := g.AddNode(g.Name, startNode, map[string]string{"shape": "point"}); err != nil {
		return nil, err
	}
	for _, q := range states {
		attrs := map[string]string{"shape": "circle", "label": dotString(v.names[q])}
		if q == sink {
			attrs = map[string]string{"shape": "doublecircle", "color": "red", "fontcolor": "red", "label": dotString(mealy.Err)}
		}
		if err := g.AddNode(g.Name, nodeIDs[q], attrs); err != nil {
			return nil, err
		}
	}
	if err := g.AddEdge(startNode, nodeIDs[v.m.Initial], true, nil); err != nil {
		return nil, err
	}
	for _, e := range edges {
		attrs := map[string]string{"label": dotLabel(e.labels)}
		for k, val := range edgeStyle[e.kind] {
			attrs[k] = val
		}
		if err := g.AddEdge(nodeIDs[e.from], nodeIDs[e.to], true, attrs); err != nil {
			return nil, err
		}
	}
	ast, err := g.WriteAst()
	if err != nil {
		return nil, err
	}
	// gographviz ends the statement list with an empty line.
	out := ast.String()
	if trimmed, found := strings.CutSuffix(out, ";\n\n}\n"); found {
		out = trimmed + ";\n}\n"
	}
	return []byte(out), nil
}

// closureEdges is the typestate of a closure model, plus the err
// transitions (and the sink) when they are shown.
func (v *view) closureEdges(opts DOTOptions) (states []int, raw []rawEdge, sink int, err error) {
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
			if v.errKind(q, i) == model.ErrExcluded {
				label += " (excluded)"
			}
			raw = append(raw, rawEdge{from: q, to: to, input: i, kind: kindErr, label: label})
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
	_, reachable := v.m.AccessWords()
	for q := 0; q < v.m.NumStates(); q++ {
		if !reachable[q] {
			continue
		}
		states = append(states, q)
		for i := 0; i < v.m.Inputs.Size(); i++ {
			raw = append(raw, rawEdge{
				from: q, to: v.m.Next[q][i], input: i, kind: kindMealy,
				label: v.m.Inputs.Name(i) + " / " + v.m.Outputs.Name(v.m.Out[q][i]),
			})
		}
	}
	return states, raw
}

// nodeIDs gives every machine state a distinct DOT node ID derived from its
// document ID, never the start node's.
func (v *view) nodeIDs() []string {
	taken := map[string]bool{startNode: true}
	ids := make([]string, len(v.ids))
	for q, id := range v.ids {
		for taken[id] {
			id += "_"
		}
		taken[id] = true
		ids[q] = dotID(id)
	}
	return ids
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

var (
	bareID     = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	bareNumber = regexp.MustCompile(`^-?(\.[0-9]+|[0-9]+(\.[0-9]*)?)$`)
	dotKeyword = map[string]bool{"node": true, "edge": true, "graph": true, "digraph": true, "subgraph": true, "strict": true}
)

// dotID is s as a DOT ID: bare when DOT allows it, else a quoted string.
func dotID(s string) string {
	if (bareID.MatchString(s) && !dotKeyword[strings.ToLower(s)]) || bareNumber.MatchString(s) {
		return s
	}
	return `"` + escapeDOT(s) + `"`
}

// dotString is s as a quoted DOT string (always quoted, for labels).
func dotString(s string) string { return `"` + escapeDOT(s) + `"` }

// dotLabel joins labels into one quoted DOT label, one per line.
func dotLabel(labels []string) string {
	esc := make([]string, len(labels))
	for k, l := range labels {
		esc[k] = escapeDOT(l)
	}
	return `"` + strings.Join(esc, `\n`) + `"`
}

// escapeDOT escapes s for the inside of a quoted DOT string whose
// backslashes Graphviz reads as label escapes.
func escapeDOT(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", "").Replace(s)
}
