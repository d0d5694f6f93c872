package export

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
)

// PictureOptions control the typestate pictures, which are all drawn from
// one graph: DOT (TypestateDOT), SVG (the DOT, rendered) and Mermaid.
type PictureOptions struct {
	// ShowErrors draws the error sink (a red double circle labelled err)
	// and every err transition into it as a red dotted edge. An err that
	// the purpose's restrictions caused is labelled "(excluded)", so a
	// restriction is not mistaken for a real error.
	ShowErrors bool
	// Bundle draws for reading rather than for tools: edges of one kind
	// with the same labels into one state from several states become one
	// arrow from a small node that lists them ("from s0, s3, s6–s11"), and
	// self-loops become lines of their state's label (↻ start · pause).
	// Every transition is still shown. SVG always bundles; DOT bundles
	// when asked (export --bundle), so that by default it has one edge per
	// merged transition for tools that read it; Mermaid never does.
	Bundle bool
	// Render turns DOT into SVG; Write needs it for FormatSVG. droidstar
	// passes render.SVG, which runs Graphviz (compiled to WebAssembly) in
	// the droidstar-render helper, so that commands that draw nothing
	// never load it.
	Render func(dot []byte) ([]byte, error)
}

// startNode is the point node whose arrow marks the initial state.
const startNode = "__start"

// The DOT attributes of each kind of edge. (No class attributes: the DOT
// must stay readable by gographviz, which does not know them.)
var edgeStyle = map[edgeKind]map[string]string{
	kindCallin: {},
	// The Android documentation draws callbacks as double arrows: two blue
	// lines and a double arrowhead.
	kindCallback: {"color": `"blue:invis:blue"`, "fontcolor": "blue", "arrowhead": "normalnormal"},
	kindQuiet:    {"style": "dashed", "color": "grey40", "fontcolor": "grey40"},
	kindErr:      {"style": "dotted", "color": "red", "fontcolor": "red"},
	kindMealy:    {},
}

// TypestateDOT renders the model as Graphviz DOT.
//
// A closure model is drawn as its callback typestate (mealy
// Machine.Typestate): callins as plain black arrows, callbacks as blue
// double arrows (two lines, double arrowhead), waits that timed out but
// changed state as dashed grey "quiet" arrows; the error sink and err
// transitions are left out unless opts.ShowErrors. A plain Mealy model is
// drawn with every transition labelled "input / output". Transitions of
// the same kind between the same two states are merged into one edge with
// one label per line. Edges are in the order of their source state in the
// document, then of the inputs. The initial state has a bold outline and an
// arrow from a point node.
//
// A state the document names is labelled by its name. An unnamed state is
// labelled by its ID and, in small print under it, the shortest way to
// reach it from the initial state (callbacks marked ⇒), which is what the
// state means: "s5 / exec · ⇒postexec" is the state after exec returned
// and postexec was delivered. The graph label is the title and a one-line
// legend of the edge kinds shown.
func TypestateDOT(d *model.Document, opts PictureOptions) ([]byte, error) {
	var buf bytes.Buffer
	if err := typestateDOT(&buf, d, opts); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// typestateDOT writes TypestateDOT's text to w as it is made.
func typestateDOT(w io.Writer, d *model.Document, opts PictureOptions) error {
	v, err := newView(d)
	if err != nil {
		return err
	}
	gr, err := v.graph(opts)
	if err != nil {
		return err
	}
	return v.writeDOT(w, gr)
}

// writeDOT writes the graph as DOT, statement by statement: the graph's
// attributes, the edges in the graph's order, then the nodes sorted by
// their DOT IDs, each statement's attributes sorted by name. That is the
// layout gographviz writes (the golden files were made with it), but
// gographviz builds its text by repeated string concatenation, quadratic
// in the number of statements, which put a 10,000-state model out of
// reach.
func (v *view) writeDOT(w io.Writer, gr *graph) error {
	bw := bufio.NewWriter(w)
	nodeIDs := v.nodeIDs()
	graphName := v.d.Name
	if graphName == "" {
		graphName = "typestate"
	}
	bw.WriteString("digraph " + DOTID(graphName) + " {\n")
	stmt := func(s string, attrs [][2]string) {
		bw.WriteString("\t")
		bw.WriteString(s)
		if len(attrs) > 0 {
			sort.Slice(attrs, func(a, b int) bool { return attrs[a][0] < attrs[b][0] })
			bw.WriteString("[ ")
			for k, a := range attrs {
				if k > 0 {
					bw.WriteString(", ")
				}
				bw.WriteString(a[0])
				bw.WriteString("=")
				bw.WriteString(a[1])
			}
			bw.WriteString(" ]")
		}
		bw.WriteString(";\n")
	}
	stmt("label="+gr.dotTitle(), nil)
	stmt("labelloc=t", nil)
	stmt("rankdir=LR", nil)
	stmt(startNode+"->"+nodeIDs[gr.initial], nil)
	for _, e := range gr.edges {
		attrs := [][2]string{{"label", DOTLabel(e.labels)}}
		for k, val := range edgeStyle[e.kind] {
			attrs = append(attrs, [2]string{k, val})
		}
		stmt(nodeIDs[e.from]+"->"+nodeIDs[e.to], attrs)
	}
	// A bundle's arrow starts at a small node that lists its sources.
	taken := make(map[string]bool, len(nodeIDs)+1)
	taken[startNode] = true
	for _, id := range nodeIDs {
		taken[id] = true
	}
	bundleIDs := make([]string, len(gr.bundles))
	for k, b := range gr.bundles {
		id := fmt.Sprintf("__from%d", k+1)
		for taken[id] {
			id += "_"
		}
		taken[id] = true
		bundleIDs[k] = id
		attrs := [][2]string{{"label", DOTLabel(b.labels)}}
		for key, val := range edgeStyle[b.kind] {
			attrs = append(attrs, [2]string{key, val})
		}
		stmt(id+"->"+nodeIDs[b.to], attrs)
	}
	// Nodes in the order of their DOT IDs, the start node among them.
	type dotNode struct {
		id    string
		attrs [][2]string
	}
	nodes := make([]dotNode, 0, len(gr.nodes)+1)
	nodes = append(nodes, dotNode{startNode, [][2]string{{"shape", "point"}}})
	for k, b := range gr.bundles {
		names := make([]string, len(b.from))
		for j, q := range b.from {
			names[j] = v.names[q]
		}
		lines := fromText(names, fromPerLine)
		lines[0] = "from " + lines[0]
		nodes = append(nodes, dotNode{bundleIDs[k], [][2]string{
			{"shape", "box"}, {"style", `"rounded,dashed"`}, {"color", "grey50"}, {"fontsize", "10"},
			{"label", DOTLabel(lines)},
		}})
	}
	for _, n := range gr.nodes {
		var attrs [][2]string
		switch {
		case n.sink:
			label := DOTString(mealy.Err)
			if len(n.loops) > 0 {
				label = "<" + escapeHTML(mealy.Err) + loopLines(n.loops) + ">"
			}
			attrs = [][2]string{{"shape", "doublecircle"}, {"color", "red"}, {"fontcolor", "red"}, {"label", label}}
		default:
			attrs = [][2]string{{"shape", "ellipse"}, {"label", n.DOTLabel()}}
			if n.q == gr.initial {
				attrs = append(attrs, [2]string{"penwidth", "2"})
			}
		}
		nodes = append(nodes, dotNode{nodeIDs[n.q], attrs})
	}
	sort.Slice(nodes, func(a, b int) bool { return nodes[a].id < nodes[b].id })
	for _, n := range nodes {
		// gographviz separated a node's ID from its attributes by a space,
		// an edge's not.
		stmt(n.id+" ", n.attrs)
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

// dotTitle is the graph label: the title and, for a typestate, a one-line
// legend of the edge kinds it shows.
func (g *graph) dotTitle() string {
	var legend []string
	if g.closure {
		legend = append(legend, "→ callin")
		if g.kinds[kindCallback] {
			legend = append(legend, "⇒ callback (blue)")
		}
		if g.kinds[kindQuiet] {
			legend = append(legend, "⇢ quiet (grey)")
		}
		if g.kinds[kindErr] {
			legend = append(legend, "⇢ err (red)")
		}
		if g.crash {
			legend = append(legend, "(crash): it killed the harness's process")
		}
	} else if len(g.bundles) > 0 || g.hasLoops() {
		legend = append(legend, "→ input / output")
	}
	if g.hasLoops() {
		legend = append(legend, "↻ self-loop")
	}
	if len(g.bundles) > 0 {
		legend = append(legend, "from …: one arrow for each state listed")
	}
	if len(legend) == 0 {
		return DOTString(g.title)
	}
	return "<" + escapeHTML(g.title) + `<br/><font point-size="10">` + escapeHTML(strings.Join(legend, "   ")) + "</font>>"
}

// hasLoops reports whether a state's label shows a self-loop.
func (g *graph) hasLoops() bool {
	for _, n := range g.nodes {
		if len(n.loops) > 0 {
			return true
		}
	}
	return false
}

// dotLabel is a node's DOT label: the name alone for a named state or the
// initial state, else an HTML-like label with the ID over the path in
// small print. Each line is one run of text in one font, so that the SVG
// looks right whatever font the viewer substitutes.
func (n node) DOTLabel() string {
	if (n.named || len(n.path) == 0) && len(n.loops) == 0 {
		return DOTString(n.name)
	}
	label := "<" + escapeHTML(n.name)
	if !n.named && len(n.path) > 0 {
		label += `<br/><font point-size="10">` + escapeHTML(pathText(n.path)) + "</font>"
	}
	return label + loopLines(n.loops) + ">"
}

// fromPerLine and loopPerLine are how many states a bundle's node and how
// many labels a self-loop line of a state's label show per line, so that
// neither grows wider than a few state names.
const (
	fromPerLine = 4
	loopPerLine = 3
)

// loopColor is the colour of a self-loop line, the colour of an arrow of
// its kind.
var loopColor = map[edgeKind]string{kindCallback: "blue", kindQuiet: "grey40", kindErr: "red"}

// loopLines are a state's self-loops as lines of an HTML-like label, in
// small print and in the colour of their kind.
func loopLines(loops []loop) string {
	var b strings.Builder
	for _, l := range loops {
		for k := 0; k < len(l.labels); k += loopPerLine {
			part := loop{kind: l.kind, labels: l.labels[k:min(k+loopPerLine, len(l.labels))]}
			text := loopText(part)
			if k > 0 {
				text = "  " + strings.TrimPrefix(text, "↻ ")
			}
			b.WriteString(`<br/><font point-size="10"`)
			if c := loopColor[l.kind]; c != "" {
				b.WriteString(` color="` + c + `"`)
			}
			b.WriteString(">" + escapeHTML(text) + "</font>")
		}
	}
	return b.String()
}

// escapeHTML escapes text for an HTML-like Graphviz label. Characters
// beyond Latin-1 become numeric entities, which Graphviz reads and
// gographviz's parser needs.
func escapeHTML(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '"':
			b.WriteString("&quot;")
		case r == '\n':
			b.WriteString("<br/>")
		case r < ' ' || r == 0x7f:
			// other control characters are left out
		case r > 0xff:
			fmt.Fprintf(&b, "&#%d;", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
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
		ids[q] = DOTID(id)
	}
	return ids
}

var (
	bareID     = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	bareNumber = regexp.MustCompile(`^-?(\.[0-9]+|[0-9]+(\.[0-9]*)?)$`)
	dotKeyword = map[string]bool{"node": true, "edge": true, "graph": true, "digraph": true, "subgraph": true, "strict": true}
)

// DOTID is s as a DOT ID: bare when DOT allows it, else a quoted string.
func DOTID(s string) string {
	if (bareID.MatchString(s) && !dotKeyword[strings.ToLower(s)]) || bareNumber.MatchString(s) {
		return s
	}
	return `"` + escapeDOT(s) + `"`
}

// DOTString is s as a quoted DOT string (always quoted, for labels).
func DOTString(s string) string { return `"` + escapeDOT(s) + `"` }

// DOTLabel joins labels into one quoted DOT label, one per line.
func DOTLabel(labels []string) string {
	esc := make([]string, len(labels))
	for k, l := range labels {
		esc[k] = escapeDOT(l)
	}
	return `"` + strings.Join(esc, `\n`) + `"`
}

// escapeDOT escapes s for the inside of a quoted DOT string whose
// backslashes Graphviz reads as label escapes.
func escapeDOT(s string) string {
	if !strings.ContainsAny(s, "\\\"\n\r") {
		return s
	}
	return dotEscaper.Replace(s)
}

// dotEscaper is built once: building a Replacer costs more than using it.
var dotEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", "")
