package diff

import (
	"fmt"
	"strings"

	"github.com/awalterschulze/gographviz"

	"github.com/droidstar/droidstar/internal/export"
	"github.com/droidstar/droidstar/internal/mealy"
)

// Overlay colours: what only the old model has is red and dashed, what
// only the new one has green.
const (
	colourRemoved = "red"
	colourAdded   = "forestgreen"
)

// edgeClass is how an overlay edge is drawn.
type edgeClass int

const (
	classShared edgeClass = iota
	classRemoved
	classAdded
)

// overlayEdge is one drawn edge: the edges of one kind and class between
// the same two nodes, one label per line.
type overlayEdge struct {
	from, to string
	kind     string // "callin", "callback", "quiet", "mealy"
	class    edgeClass
	labels   []string
}

// DOT draws both typestates over each other as Graphviz DOT: a matched
// pair of states is one node (labelled "old/new" when their names differ),
// a state only the old model has is red and dashed, one only the new model
// has green; unchanged edges are drawn as in 'droidstar export --format
// dot' (callins plain, callbacks blue double arrows, quiet waits that
// change state dashed grey), removed edges red and dashed, added edges
// green. A changed
// edge is drawn twice, removed and added. The error sink and err edges are
// left out. The same report always gives the same bytes.
func (r *Report) DOT() ([]byte, error) {
	if r.old == nil || r.st == nil {
		return nil, fmt.Errorf("the report has no models to draw (it was not made by Compare)")
	}
	o, n, st := r.old, r.new, r.st
	oldNode := map[int]string{}
	newNode := map[int]string{}
	type node struct {
		id    string
		attrs map[string]string
	}
	var nodes []node
	taken := map[string]bool{startNode: true}
	fresh := func(base string) string {
		id := base
		for taken[id] {
			id += "_"
		}
		taken[id] = true
		return export.DOTID(id)
	}
	for _, p := range o.states {
		q, matched := st.toNew[p]
		if !matched {
			id := fresh("old_" + o.ids[p])
			oldNode[p] = id
			nodes = append(nodes, node{id, map[string]string{"shape": "ellipse", "style": "dashed", "color": colourRemoved,
				"fontcolor": colourRemoved, "label": export.DOTString(o.names[p])}})
			continue
		}
		label := o.names[p]
		if n.names[q] != label {
			label += "/" + n.names[q]
		}
		id := fresh(o.ids[p])
		oldNode[p], newNode[q] = id, id
		nodes = append(nodes, node{id, map[string]string{"shape": "ellipse", "label": export.DOTString(label)}})
	}
	for _, q := range n.states {
		if _, matched := st.toOld[q]; matched {
			continue
		}
		id := fresh("new_" + n.ids[q])
		newNode[q] = id
		nodes = append(nodes, node{id, map[string]string{"shape": "ellipse", "color": colourAdded,
			"fontcolor": colourAdded, "label": export.DOTString(n.names[q])}})
	}

	var edges []*overlayEdge
	byKey := map[string]*overlayEdge{}
	addEdge := func(s *side, nodeOf map[int]string, e edge, class edgeClass) {
		kind, label := edgeKindLabel(s, e)
		from, to := nodeOf[e.from], nodeOf[e.to]
		if to == "" { // a non-err edge into the sink or another undrawn state
			return
		}
		key := fmt.Sprintf("%s\x00%s\x00%s\x00%d", from, to, kind, class)
		oe := byKey[key]
		if oe == nil {
			oe = &overlayEdge{from: from, to: to, kind: kind, class: class}
			byKey[key] = oe
			edges = append(edges, oe)
		}
		oe.labels = append(oe.labels, label)
	}
	for _, pe := range st.shared {
		addEdge(o, oldNode, pe[0], classShared)
	}
	for _, e := range st.removed {
		addEdge(o, oldNode, e, classRemoved)
	}
	for _, e := range st.added {
		addEdge(n, newNode, e, classAdded)
	}

	g := gographviz.NewGraph()
	if err := g.SetDir(true); err != nil {
		return nil, err
	}
	if err := g.SetName("diff"); err != nil {
		return nil, err
	}
	title := r.Old.Name
	if r.New.Name != r.Old.Name {
		title += " → " + r.New.Name
	}
	title += ": " + name(r.Old.File, "old") + " → " + name(r.New.File, "new") +
		"\nred dashed: only in old; green: only in new"
	for _, a := range [][2]string{{"rankdir", "LR"}, {"label", export.DOTString(title)}, {"labelloc", "t"}} {
		if err := g.AddAttr(g.Name, a[0], a[1]); err != nil {
			return nil, err
		}
	}
	if err := g.AddNode(g.Name, startNode, map[string]string{"shape": "point"}); err != nil {
		return nil, err
	}
	for _, nd := range nodes {
		if nd.id == oldNode[o.m.Initial] || nd.id == newNode[n.m.Initial] {
			nd.attrs["penwidth"] = "2"
		}
		if err := g.AddNode(g.Name, nd.id, nd.attrs); err != nil {
			return nil, err
		}
	}
	starts := []string{oldNode[o.m.Initial]}
	if newNode[n.m.Initial] != starts[0] {
		starts = append(starts, newNode[n.m.Initial])
	}
	for k, s := range starts {
		attrs := map[string]string(nil)
		if len(starts) == 2 {
			attrs = map[string]string{"color": colourRemoved, "style": "dashed"}
			if k == 1 {
				attrs = map[string]string{"color": colourAdded}
			}
		}
		if err := g.AddEdge(startNode, s, true, attrs); err != nil {
			return nil, err
		}
	}
	for _, e := range edges {
		attrs := map[string]string{"label": export.DOTLabel(e.labels)}
		for k, v := range kindStyle[e.kind] {
			attrs[k] = v
		}
		colour := ""
		switch e.class {
		case classRemoved:
			colour, attrs["style"] = colourRemoved, "dashed"
		case classAdded:
			colour = colourAdded
			delete(attrs, "style")
		}
		if colour != "" {
			attrs["color"], attrs["fontcolor"] = colour, colour
			if e.kind == "callback" {
				attrs["color"] = `"` + colour + ":invis:" + colour + `"`
			}
		}
		if err := g.AddEdge(e.from, e.to, true, attrs); err != nil {
			return nil, err
		}
	}
	ast, err := g.WriteAst()
	if err != nil {
		return nil, err
	}
	out := ast.String()
	if trimmed, found := strings.CutSuffix(out, ";\n\n}\n"); found {
		out = trimmed + ";\n}\n"
	}
	return []byte(out), nil
}

// startNode is the invisible node whose arrows mark the initial states.
const startNode = "__start"

// kindStyle is export's typestate style per edge kind: callbacks as
// double arrows (two lines and a double arrowhead), quiet waits that move
// dashed grey.
var kindStyle = map[string]map[string]string{
	"callin":   {},
	"callback": {"color": `"blue:invis:blue"`, "fontcolor": "blue", "arrowhead": "normalnormal"},
	"quiet":    {"style": "dashed", "color": "grey40", "fontcolor": "grey40"},
	"mealy":    {},
}

// edgeKindLabel is the kind of a typestate edge and its label.
func edgeKindLabel(s *side, e edge) (kind, label string) {
	in, out := s.m.Inputs.Name(e.input), s.m.Outputs.Name(e.output)
	switch {
	case !s.closure():
		return "mealy", in + " / " + out
	case in != mealy.Wait:
		return "callin", in
	case out == mealy.Quiet:
		return "quiet", mealy.Quiet
	}
	return "callback", out
}
