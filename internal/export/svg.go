package export

import (
	"fmt"

	"github.com/droidstar/droidstar/internal/model"
)

// SVG draws the model's picture: TypestateDOT, laid out and rendered by
// opts.Render (droidstar passes render.SVG: Graphviz compiled to
// WebAssembly, in the droidstar-render helper). The SVG and the DOT are
// one graph description, so they always show the same thing; the same
// document gives the same bytes.
func SVG(d *model.Document, opts PictureOptions) ([]byte, error) {
	if opts.Render == nil {
		return nil, fmt.Errorf("svg: no renderer (PictureOptions.Render is nil)")
	}
	dot, err := TypestateDOT(d, opts)
	if err != nil {
		return nil, err
	}
	svg, err := opts.Render(dot)
	if err != nil {
		return nil, fmt.Errorf("svg: %w", err)
	}
	return svg, nil
}
