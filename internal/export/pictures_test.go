package export

import (
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/droidstar/droidstar/examples"
	"github.com/droidstar/droidstar/internal/compose/composetest"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/render/gvwasm"
)

// renderSVG renders in-process, as the droidstar-render helper does
// (internal/render's tests check that the helper gives the same bytes).
func renderSVG(dot []byte) ([]byte, error) { return gvwasm.SVG(context.Background(), dot) }

// An unnamed state is labelled by its ID over the shortest path to it,
// callbacks marked ⇒; the initial state by its ID alone.
func TestDOTLabelsUnnamedStatesByPath(t *testing.T) {
	d := asyncTask(t)
	for k := range d.States {
		d.States[k].Name = ""
	}
	data, err := TypestateDOT(d, PictureOptions{})
	if err != nil {
		t.Fatal(err)
	}
	g := parseDOT(t, data)
	for id, want := range map[string]string{
		"s0": `"s0"`,
		"s1": `<s1<br/><font point-size="10">exec</font>>`,
		"s4": `<s4<br/><font point-size="10">exec · &#8658;postexec</font>>`,
	} {
		if got := g.Nodes.Lookup[id].Attrs["label"]; got != want {
			t.Errorf("%s is labelled %s, want %s", id, got, want)
		}
	}
	// Awkward names are escaped in HTML-like labels.
	n := node{name: `a<b>&"c"`, path: []step{{"x→y", kindCallin}, {"z", kindCallback}, {"q", kindQuiet}, {"e", kindErr}}}
	if got, want := n.DOTLabel(), `<a&lt;b&gt;&amp;&quot;c&quot;<br/><font point-size="10">x&#8594;y · &#8658;z · (quiet) · &#10007;e</font>>`; got != want {
		t.Errorf("label %s, want %s", got, want)
	}
}

// mermaidStatement is one line of the stateDiagram-v2 subset Mermaid
// writes, checked against the lexer rules of Mermaid's stateDiagram.jison:
// a state ID is [^:\n\s\-{]+, a label runs from ':' to the end of the line
// and must not contain ':' or ';', '#' starts a comment outside a label, and
// %% starts one anywhere.
var mermaidStatement = regexp.MustCompile(`^(%%[^{\n].*|stateDiagram-v2|    direction LR|    \[\*\] --> [A-Za-z][A-Za-z0-9_]*|    [A-Za-z][A-Za-z0-9_]* --> [A-Za-z][A-Za-z0-9_]*: [^:;%\n]+|    [A-Za-z][A-Za-z0-9_]*: [^:;%\n]+|    state "[^":;%\n]*" as [A-Za-z][A-Za-z0-9_]*|    classDef err fill:#fee,stroke:#c00,color:#c00|    class [A-Za-z][A-Za-z0-9_]* err)$`)

func checkMermaid(t *testing.T, text string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if !strings.HasSuffix(text, "\n") {
		t.Errorf("no final newline")
	}
	seenHeader := false
	for k, l := range lines {
		if !mermaidStatement.MatchString(l) {
			t.Errorf("line %d is not a statement Mermaid reads as intended: %q", k+1, l)
		}
		if l == "stateDiagram-v2" {
			seenHeader = true
		}
		if m := regexp.MustCompile(`(?i)direction\s+(tb|bt|rl|lr)`).FindString(l); m != "" && l != "    direction LR" {
			t.Errorf("line %d would read as a direction statement: %q", k+1, l)
		}
		// Outside the comments and the classDef, '#' only starts an entity.
		if !strings.HasPrefix(l, "%%") && !strings.HasPrefix(l, "    classDef") {
			if rest := regexp.MustCompile(`#[0-9]+;`).ReplaceAllString(l, ""); strings.Contains(rest, "#") {
				t.Errorf("line %d has a bare #: %q", k+1, l)
			}
		}
	}
	if !seenHeader {
		t.Errorf("no stateDiagram-v2 header:\n%s", text)
	}
}

func TestMermaidGolden(t *testing.T) {
	for _, c := range dotCases {
		t.Run(c.name, func(t *testing.T) {
			d := c.doc(t)
			got, err := Mermaid(d, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if again, _ := Mermaid(d, c.opts); !bytes.Equal(got, again) {
				t.Fatalf("output is not deterministic")
			}
			golden(t, c.name+".mmd", got)
			checkMermaid(t, string(got))
			// One transition line per label the DOT draws (merged edges are
			// split), plus the start.
			g := parseDOT(t, mustDOT(t, d, c.opts))
			labels := 0
			for _, e := range g.Edges.Edges {
				if e.Src != startNode {
					labels += strings.Count(e.Attrs["label"], `\n`) + 1
				}
			}
			if n := strings.Count(string(got), " --> "); n != labels+1 {
				t.Errorf("%d transitions, want %d", n, labels+1)
			}
		})
	}
}

func mustDOT(t *testing.T, d *model.Document, opts PictureOptions) []byte {
	t.Helper()
	data, err := TypestateDOT(d, opts)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestMermaidContent(t *testing.T) {
	got, err := Mermaid(asyncTask(t), PictureOptions{ShowErrors: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"    [*] --> s0\n",
		"    state \"created\" as s0\n",
		"    s0 --> s1: exec\n",
		"    s1 --> s4: ⇒ postexec\n",
		"    s2 --> s3: ✗ exec (excluded)\n",
		"    state \"err\" as s3\n",
		"    class s3 err\n",
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("mermaid lacks %q:\n%s", want, got)
		}
	}
	got, _ = Mermaid(recognizer(t), PictureOptions{})
	if !strings.Contains(string(got), "    s3 --> s0: (quiet)\n") {
		t.Errorf("quiet edge:\n%s", got)
	}
	// Unnamed states are described by their path.
	d := asyncTask(t)
	for k := range d.States {
		d.States[k].Name = ""
	}
	got, _ = Mermaid(d, PictureOptions{})
	if !strings.Contains(string(got), "    s4: exec · ⇒postexec\n") || strings.Contains(string(got), "    s0:") {
		t.Errorf("state descriptions:\n%s", got)
	}
}

// Names that mean something to Mermaid are escaped or replaced.
func TestMermaidEscapes(t *testing.T) {
	for in, want := range map[string]string{
		"exec":                    "exec",
		"a:b;c":                   "a#58;b#59;c",
		"50% #1 <b> & \"q\" {x}":  "50#37; #35;1 #60;b#62; #38; #34;q#34; #123;x#125;",
		"set direction LR":        "set directio#110; LR",
		"onEvent/MODIFY|x (y) ⇒z": "onEvent/MODIFY|x (y) ⇒z",
		"two\nlines":              "two lines",
	} {
		if got := mermaidText(in); got != want {
			t.Errorf("mermaidText(%q) = %q, want %q", in, got, want)
		}
	}
	d := plainMealy(t)
	d.States[0].ID, d.States[1].ID, d.States[2].ID = "default-x", "state", "ok_1"
	d.Initial = "default-x"
	for k := range d.Transitions {
		tr := &d.Transitions[k]
		for _, p := range []*string{&tr.From, &tr.To} {
			switch *p {
			case "s0":
				*p = "default-x"
			case "s1":
				*p = "state"
			case "s2":
				*p = "ok_1"
			}
		}
	}
	d.Name = "odd: direction TB"
	got, err := Mermaid(d, PictureOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkMermaid(t, string(got))
	for _, want := range []string{"    [*] --> q0\n", "    state \"default-x\" as q0\n", "    state \"state\" as q1\n", "    ok_1 --> q0: a / y\n"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("mermaid lacks %q:\n%s", want, got)
		}
	}
}

// svgNode is the part of an SVG element tree the tests look at.
type svgNode struct {
	XMLName  xml.Name
	Attrs    []xml.Attr `xml:",any,attr"`
	Children []svgNode  `xml:",any"`
	Text     string     `xml:",chardata"`
}

func (n *svgNode) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func (n *svgNode) walk(f func(*svgNode)) {
	f(n)
	for k := range n.Children {
		n.Children[k].walk(f)
	}
}

func (n *svgNode) title() string {
	for _, c := range n.Children {
		if c.XMLName.Local == "title" {
			return c.Text
		}
	}
	return ""
}

// parseSVG parses the SVG and returns its node groups (by title) and its
// edge groups (by "from->to", in order).
func parseSVG(t *testing.T, data []byte) (root *svgNode, nodes map[string]*svgNode, edges map[string][]*svgNode) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true
	root = &svgNode{}
	if err := dec.Decode(root); err != nil {
		t.Fatalf("the SVG is not XML: %v", err)
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if cd, ok := tok.(xml.CharData); err != nil || !ok || len(bytes.TrimSpace(cd)) > 0 {
			t.Fatalf("content after the root element: %v (%v)", tok, err)
		}
	}
	nodes, edges = map[string]*svgNode{}, map[string][]*svgNode{}
	root.walk(func(n *svgNode) {
		if n.XMLName.Local != "g" {
			return
		}
		switch n.attr("class") {
		case "node":
			nodes[n.title()] = n
		case "edge":
			edges[n.title()] = append(edges[n.title()], n)
		}
	})
	return root, nodes, edges
}

// strokes lists the stroke colours of an edge's lines.
func strokes(e *svgNode) []string {
	var out []string
	e.walk(func(n *svgNode) {
		if n.XMLName.Local == "path" && n.attr("stroke") != "none" {
			out = append(out, n.attr("stroke"))
		}
	})
	return out
}

func TestSVGShowsTheTypestate(t *testing.T) {
	d := asyncTask(t)
	data, err := SVG(d, PictureOptions{Render: renderSVG})
	if err != nil {
		t.Fatal(err)
	}
	again, err := SVG(d, PictureOptions{Render: renderSVG})
	if err != nil || !bytes.Equal(data, again) {
		t.Fatalf("SVG output is not deterministic (err %v)", err)
	}
	root, nodes, edges := parseSVG(t, data)
	if root.XMLName.Local != "svg" || root.XMLName.Space != "http://www.w3.org/2000/svg" {
		t.Fatalf("root element %v", root.XMLName)
	}
	// One node per shown state (created, running, cancelling, done), plus
	// the start point; the sink is hidden.
	if len(nodes) != 5 || nodes[startNode] == nil {
		t.Fatalf("SVG nodes %v", keys(nodes))
	}
	// Self-loops are lines of their state's label, not arrows.
	for id, want := range map[string][]string{
		"s0": {"created"}, "s1": {"running"}, "s2": {"cancelling", "↻ cancel"}, "s4": {"done", "↻ cancel"},
	} {
		n := nodes[id]
		if n == nil {
			t.Fatalf("no node %s", id)
		}
		var texts []string
		n.walk(func(c *svgNode) {
			if c.XMLName.Local == "text" {
				texts = append(texts, c.Text)
			}
		})
		if !equal(texts, want) {
			t.Errorf("node %s shows %q, want %q", id, texts, want)
		}
	}
	for _, loop := range []string{"s2->s2", "s4->s4"} {
		if len(edges[loop]) != 0 {
			t.Errorf("self-loop %s is drawn as an arrow", loop)
		}
	}
	// Callins are one black line; callbacks two blue ones.
	ci := edges["s0->s1"]
	if len(ci) != 1 || !equal(strokes(ci[0]), []string{"black"}) {
		t.Errorf("callin exec: strokes %v", strokes(ci[0]))
	}
	cb := edges["s1->s4"]
	if len(cb) != 1 || !equal(strokes(cb[0]), []string{"blue", "blue"}) {
		t.Errorf("callback postexec: strokes %v", strokes(cb[0]))
	}
	if e := edges["__start->s0"]; len(e) != 1 {
		t.Errorf("no start arrow")
	}
	if s := nodes["s0"]; !strings.Contains(string(data), `stroke-width="2"`) || s == nil {
		t.Errorf("the initial state is not bold")
	}

	// With ShowErrors the sink is a node and err edges are red.
	data, err = SVG(d, PictureOptions{ShowErrors: true, Render: renderSVG})
	if err != nil {
		t.Fatal(err)
	}
	_, nodes, edges = parseSVG(t, data)
	if len(nodes) != 6 || nodes["s3"] == nil {
		t.Errorf("SVG nodes with errors %v", keys(nodes))
	}
	if e := edges["s1->s3"]; len(e) != 1 || !equal(strokes(e[0]), []string{"red"}) {
		t.Errorf("err edge: %v", e)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func equal(a, b []string) bool { return strings.Join(a, ",") == strings.Join(b, ",") }

// exampleDocs learns the bundled examples that have a simulation model,
// once, on the simulated device as 'droidstar learn --example' does, and
// strips what varies from run to run, with the learner's efficiency
// (statistics, time) or with any edit of the purpose file (its
// fingerprint), so that the golden files show what each format makes of
// the learned typestate.
var exampleDocs = sync.OnceValues(func() (map[string]*model.Document, error) {
	docs := map[string]*model.Document{}
	for _, name := range examples.Names() {
		d, err := composetest.LearnExample(name)
		if err != nil {
			return nil, err
		}
		d.Stats, d.Warnings = nil, nil
		docs[name] = d
	}
	return docs, nil
})

// Every format on every bundled example, against testdata/export/examples.
func TestExamplesGolden(t *testing.T) {
	docs, err := exampleDocs()
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) < 7 {
		t.Fatalf("only %d examples learned", len(docs))
	}
	for _, name := range examples.Names() {
		d := docs[name]
		if d == nil {
			continue
		}
		for _, f := range Formats() {
			t.Run(name+"/"+f, func(t *testing.T) {
				got, err := Write(d, f, PictureOptions{Render: renderSVG})
				if err != nil {
					t.Fatal(err)
				}
				golden(t, "examples/"+name+Extension(f), got)
				switch f {
				case FormatSVG:
					_, nodes, _ := parseSVG(t, got)
					ts, _, _ := mustTypestate(t, d)
					boxes := 0
					for id := range nodes {
						if strings.HasPrefix(id, "__from") {
							boxes++
						}
					}
					if len(nodes)-boxes != len(ts.States)+1 {
						t.Errorf("%d SVG nodes (%d bundle boxes among them) for %d states", len(nodes), boxes, len(ts.States))
					}
				case FormatMermaid:
					checkMermaid(t, string(got))
				case FormatDOT:
					parseDOT(t, got)
				}
			})
		}
	}
}

func mustTypestate(t *testing.T, d *model.Document) (*mealy.Typestate, *mealy.Machine, []string) {
	t.Helper()
	m, ids, err := d.Machine()
	if err != nil {
		t.Fatal(err)
	}
	ts, err := m.Typestate()
	if err != nil {
		t.Fatal(err)
	}
	return ts, m, ids
}
