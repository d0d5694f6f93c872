// Package gvwasm renders DOT in-process with Graphviz compiled to
// WebAssembly (github.com/goccy/go-graphviz, run by wazero). Importing it
// costs start-up time (go-graphviz compiles its WebAssembly module in a
// package init), so only the droidstar-render helper and tests import it;
// droidstar itself runs the helper through package render. The compiled
// module is cached in the user's cache folder (package gvcache).
package gvwasm

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	graphviz "github.com/goccy/go-graphviz"

	"github.com/droidstar/droidstar/internal/render/gvcache"
)

// go-graphviz's init, which has compiled its module by now, read $TMPDIR
// for the compilation cache as package gvcache set it.
func init() { gvcache.Restore() }

// GraphvizVersion is the Graphviz that go-graphviz v0.2.10 embeds; it
// appears in every SVG's header comment.
const GraphvizVersion = "12.1.2"

// SVG lays out a DOT graph with Graphviz's dot engine and renders it as
// SVG. The output depends only on the input: Graphviz estimates text widths
// from built-in font metrics here, not from the fonts installed.
//
// The errors of Close are ignored: Graphviz's gvFreeContext returns the
// number of errors reported since the module started, so after one bad
// graph every later Close would fail, and go-graphviz then returns the
// last message logged, often a mere warning.
func SVG(ctx context.Context, dot []byte) ([]byte, error) {
	gv, err := graphviz.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("starting graphviz: %w", err)
	}
	defer gv.Close()
	g, err := graphviz.ParseBytes(dot)
	if err != nil {
		return nil, fmt.Errorf("reading DOT: %s", strings.TrimSpace(err.Error()))
	}
	defer g.Close()
	var buf bytes.Buffer
	if err := gv.Render(ctx, g, graphviz.SVG, &buf); err != nil {
		return nil, fmt.Errorf("rendering SVG: %w", err)
	}
	if buf.Len() == 0 {
		return nil, fmt.Errorf("rendering SVG: graphviz wrote nothing")
	}
	return buf.Bytes(), nil
}
