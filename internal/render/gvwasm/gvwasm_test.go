package gvwasm

import (
	"bytes"
	"context"
	"encoding/xml"
	"strings"
	"testing"
)

const sample = `digraph T {
	rankdir=LR;
	__start [shape=point];
	s0 [label="s0", penwidth=2];
	s1 [label=<s1<br/><font point-size="10">exec &#183; &#8658;done</font>>];
	__start -> s0;
	s0 -> s1 [label="exec"];
	s1 -> s0 [label="done", color="blue:invis:blue", arrowhead=normalnormal];
}
`

func TestSVGIsDeterministicXML(t *testing.T) {
	a, err := SVG(context.Background(), []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	b, err := SVG(context.Background(), []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatalf("two renderings differ")
	}
	var root struct {
		XMLName xml.Name
	}
	if err := xml.Unmarshal(a, &root); err != nil || root.XMLName.Local != "svg" {
		t.Fatalf("not an SVG document: %v %v", root.XMLName, err)
	}
	for _, want := range []string{"graphviz version " + GraphvizVersion, "<title>s0&#45;&gt;s1</title>", "⇒done"} {
		if !strings.Contains(string(a), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
}

func TestSVGRejectsBadDOT(t *testing.T) {
	if _, err := SVG(context.Background(), []byte("digraph { a -> ")); err == nil || !strings.Contains(err.Error(), "reading DOT") {
		t.Fatalf("bad DOT: %v", err)
	}
}

// BenchmarkSVG is the in-process cost of one typestate picture (the
// WebAssembly module is compiled once, at package init).
func BenchmarkSVG(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := SVG(context.Background(), []byte(sample)); err != nil {
			b.Fatal(err)
		}
	}
}
