package export

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	goldenfile "github.com/droidstar/droidstar/internal/golden"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/model/modeltest"
)

func TestFromText(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  string
	}{
		{[]string{"s0", "s1", "s3", "s6", "s7", "s8", "s9", "s10", "s11"}, "s0, s1, s3, s6–s11"},
		{[]string{"s0", "s1", "s2"}, "s0–s2"},
		{[]string{"s8", "s9", "s11"}, "s8, s9, s11"},
		{[]string{"created", "running", "done", "s4"}, "created, running, done, s4"},
		// Leading zeros and other prefixes are no runs.
		{[]string{"s01", "s02", "s03", "q4", "q5", "r6"}, "s01, s02, s03, q4,|q5, r6"},
		{[]string{"a1", "a2", "a3", "b", "c", "d", "e", "f"}, "a1–a3, b, c, d,|e, f"},
	} {
		if got := strings.Join(fromText(c.names, 4), "|"); got != c.want {
			t.Errorf("fromText(%q) = %q, want %q", c.names, got, c.want)
		}
	}
}

// shownTransitions lists what a picture's graph shows, one line per
// transition ("from -input-> to"), whether drawn as an edge, as a member of
// a bundle or as a loop line of its state.
func shownTransitions(g *graph) []string {
	var out []string
	add := func(from, to int, kind edgeKind, labels []string) {
		for _, l := range labels {
			out = append(out, fmt.Sprintf("%d -%d:%s-> %d", from, kind, l, to))
		}
	}
	for _, e := range g.edges {
		add(e.from, e.to, e.kind, e.labels)
	}
	for _, b := range g.bundles {
		for _, q := range b.from {
			add(q, b.to, b.kind, b.labels)
		}
	}
	for _, n := range g.nodes {
		for _, l := range n.loops {
			add(n.q, n.q, l.kind, l.labels)
		}
	}
	sort.Strings(out)
	return out
}

// Bundling changes how transitions are drawn, never which: the bundled
// graph shows exactly the transitions of the plain one, and a bundle has
// BundleMin sources or more.
func TestBundlingKeepsEveryTransition(t *testing.T) {
	docs, err := exampleDocs()
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]*model.Document{"mealy": plainMealy(t), "asynctask-errors": asyncTask(t)}
	for name, d := range docs {
		cases[name] = d
	}
	for seed := uint64(1); seed <= 3; seed++ {
		d, err := modeltest.Random(60, 4, 3, seed)
		if err != nil {
			t.Fatal(err)
		}
		cases[fmt.Sprintf("random-%d", seed)] = d
	}
	for name, d := range cases {
		t.Run(name, func(t *testing.T) {
			v, err := newView(d)
			if err != nil {
				t.Fatal(err)
			}
			opts := PictureOptions{ShowErrors: strings.HasSuffix(name, "-errors")}
			plain, err := v.graph(opts)
			if err != nil {
				t.Fatal(err)
			}
			opts.Bundle = true
			bundled, err := v.graph(opts)
			if err != nil {
				t.Fatal(err)
			}
			if a, b := shownTransitions(plain), shownTransitions(bundled); !equal(a, b) {
				t.Errorf("bundled picture shows\n%s\nplain one\n%s", strings.Join(b, "\n"), strings.Join(a, "\n"))
			}
			for _, e := range bundled.edges {
				if e.from == e.to {
					t.Errorf("self-loop %d drawn as an edge", e.from)
				}
			}
			for _, b := range bundled.bundles {
				if len(b.from) < BundleMin {
					t.Errorf("bundle into %d from only %d states", b.to, len(b.from))
				}
			}
		})
	}
}

// The bundled DOT of MediaPlayer, which export --bundle writes and the SVG
// is drawn from: release and reset each one arrow from a box of states,
// the self-loops lines of their states.
func TestBundledDOTGolden(t *testing.T) {
	docs, err := exampleDocs()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Write(docs["mediaplayer"], FormatDOT, PictureOptions{Bundle: true})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "examples/mediaplayer.bundled.dot", got)
	g := parseDOT(t, got)
	for _, want := range []string{`"from s0, s1, s3, s4,\ns6–s11"`, `"from s0, s1, s3, s6–s11"`} {
		found := false
		for _, n := range g.Nodes.Nodes {
			found = found || n.Attrs["label"] == want
		}
		if !found {
			t.Errorf("no bundle labelled %s", want)
		}
	}
}

// The picture the README shows is MediaPlayer's SVG as droidstar draws it
// now (go test ./internal/export -update rewrites it).
func TestREADMEPicture(t *testing.T) {
	docs, err := exampleDocs()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Write(docs["mediaplayer"], FormatSVG, PictureOptions{Render: renderSVG})
	if err != nil {
		t.Fatal(err)
	}
	goldenfile.CheckFile(t, "examples/mediaplayer/typestate.svg", got, "./internal/export")
}
