package export

import (
	"bytes"
	"fmt"

	"github.com/droidstar/droidstar/internal/model"
)

// SVG draws the model's picture: TypestateDOT with Bundle set, laid out and rendered by
// opts.Render (droidstar passes render.SVG: Graphviz compiled to
// WebAssembly, in the droidstar-render helper). The SVG and the DOT are
// one graph description, so they always show the same thing; the same
// document gives the same bytes.
func SVG(d *model.Document, opts PictureOptions) ([]byte, error) {
	if opts.Render == nil {
		return nil, fmt.Errorf("svg: no renderer (PictureOptions.Render is nil)")
	}
	v, err := newView(d)
	if err != nil {
		return nil, err
	}
	opts.Bundle = true
	gr, err := v.graph(opts)
	if err != nil {
		return nil, err
	}
	if err := gr.drawable(); err != nil {
		return nil, fmt.Errorf("svg: %w", err)
	}
	var buf bytes.Buffer
	if err := v.writeDOT(&buf, gr); err != nil {
		return nil, err
	}
	dot := buf.Bytes()
	svg, err := opts.Render(dot)
	if err != nil {
		return nil, fmt.Errorf("svg: %w", err)
	}
	return svg, nil
}

// MaxDrawnEdges is the most arrows (edges and bundles; self-loops are
// lines of their states' labels) a picture may have for SVG to draw it. Graphviz's layout grows much faster than the graph:
// on random 10-input models it took 1.2 s for 172 edges, 47 s for 275 and
// did not finish in 100 s for 367 (each learned example has under 30). A
// graph that large is unreadable as one picture anyway.
const MaxDrawnEdges = 200

// drawable refuses a graph too large to lay out in reasonable time, saying
// how large it is and what to do instead.
func (g *graph) drawable() error {
	drawn := len(g.edges) + len(g.bundles)
	if drawn <= MaxDrawnEdges {
		return nil
	}
	return fmt.Errorf("the picture would have %d states and %d edges, more than the %d edges droidstar lays out (Graphviz takes minutes on graphs this size); "+
		"draw it with 'droidstar export --format dot' and Graphviz's sfdp, or use --format mermaid",
		len(g.nodes), drawn, MaxDrawnEdges)
}
