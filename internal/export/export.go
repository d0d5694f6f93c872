// Package export renders a learned model document: droidstar's JSON, the
// callback typestate as Graphviz DOT and as SVG drawn from that DOT, as a
// Mermaid state diagram, DroidStar's own DOT dialect, the typestate as
// Lifestate rules (text and JSON), and a one-screen text summary with the
// statistics in the columns of the DroidStar paper's Table 1.
//
// Every writer takes a *model.Document and works on the machine the document
// describes (Document.Machine), so a model learned now, a model read from
// disk and a hand-written model render alike. Output is deterministic: the
// same document always gives the same bytes.
package export

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
)

// The output formats Write knows.
const (
	FormatJSON          = "json"
	FormatDOT           = "dot"
	FormatSVG           = "svg"
	FormatMermaid       = "mermaid"
	FormatLegacyDOT     = "legacy-dot"
	FormatLifestate     = "lifestate"
	FormatLifestateJSON = "lifestate-json"
	FormatSummary       = "summary"
)

var formats = []string{
	FormatJSON, FormatDOT, FormatSVG, FormatMermaid, FormatLegacyDOT,
	FormatLifestate, FormatLifestateJSON, FormatSummary,
}

var extensions = map[string]string{
	FormatJSON:          ".json",
	FormatDOT:           ".dot",
	FormatSVG:           ".svg",
	FormatMermaid:       ".mmd",
	FormatLegacyDOT:     ".gv", // DroidStar's own files were *-diagram.gv
	FormatLifestate:     ".lifestate.txt",
	FormatLifestateJSON: ".lifestate.json",
	FormatSummary:       ".txt",
}

var descriptions = map[string]string{
	FormatJSON:          "the model document (droidstar-model, version 1)",
	FormatDOT:           "the typestate as Graphviz DOT",
	FormatSVG:           "the typestate drawn from the DOT (needs the droidstar-render helper, not Graphviz)",
	FormatMermaid:       "the typestate as a Mermaid stateDiagram-v2 (renders in GitHub and GitLab Markdown)",
	FormatLegacyDOT:     "DroidStar's own DOT dialect (closure models only)",
	FormatLifestate:     "the typestate as Lifestate enable/disable/allow/disallow rules (closure models only)",
	FormatLifestateJSON: "the Lifestate rules as JSON",
	FormatSummary:       "the one-screen text summary learn prints",
}

// Formats lists the formats Write knows, in a stable order.
func Formats() []string { return append([]string(nil), formats...) }

// IsFormat reports whether Write knows format.
func IsFormat(format string) bool {
	_, ok := extensions[format]
	return ok
}

// Description is a one-line description of a format, for help texts.
func Description(format string) string { return descriptions[format] }

// Extension is the file-name extension (with its dot) for a format, or ""
// for an unknown one.
func Extension(format string) string { return extensions[format] }

// JSON is the model document itself (Document.Marshal), so that every
// format is reachable from this package.
func JSON(d *model.Document) ([]byte, error) { return d.Marshal() }

// Write renders d in the named format. opts only matter to the pictures
// (dot, svg, mermaid); svg needs opts.Render.
func Write(d *model.Document, format string, opts PictureOptions) ([]byte, error) {
	var buf bytes.Buffer
	if err := WriteTo(&buf, d, format, opts); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteTo renders d in the named format to w, as Write does. The formats
// whose text grows with the model (json, dot, mermaid) are written as
// they are made, so that a large model's text is never held whole as
// well. On an error in the model nothing is written; on an error of w, part
// of the text may have been.
func WriteTo(w io.Writer, d *model.Document, format string, opts PictureOptions) error {
	if !IsFormat(format) {
		return fmt.Errorf("unknown format %q (formats: %s)", format, strings.Join(formats, ", "))
	}
	var data []byte
	var err error
	switch format {
	case FormatJSON:
		// Every format refuses a model that describes no machine, this
		// one (which would not otherwise look at it) included.
		if _, err := newView(d); err != nil {
			return err
		}
		return d.Encode(w)
	case FormatDOT:
		return typestateDOT(w, d, opts)
	case FormatMermaid:
		return mermaid(w, d, opts)
	case FormatSVG:
		data, err = SVG(d, opts)
	case FormatLegacyDOT:
		data, err = LegacyDOT(d)
	case FormatLifestate:
		data, err = LifestateText(d)
	case FormatLifestateJSON:
		data, err = LifestateJSON(d)
	case FormatSummary:
		// Summary never fails; the check makes this format refuse what
		// the others refuse.
		if _, err := newView(d); err != nil {
			return err
		}
		data = []byte(Summary(d))
	}
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

// view is a document together with the machine it describes.
type view struct {
	d     *model.Document
	m     *mealy.Machine
	ids   []string // machine state -> document state ID ("sink" for an added sink)
	names []string // machine state -> display name (State.Name, else ID)
	named []bool   // machine state -> the document gives it a State.Name
	// errs explains err transitions, by machine state and input.
	errs map[[2]int]*model.ErrInfo
}

func newView(d *model.Document) (*view, error) {
	if d == nil {
		return nil, fmt.Errorf("no model document")
	}
	m, ids, err := d.Machine()
	if err != nil {
		return nil, fmt.Errorf("model %q: %w", d.Name, err)
	}
	v := &view{d: d, m: m, ids: ids, names: make([]string, len(ids)), named: make([]bool, len(ids)), errs: map[[2]int]*model.ErrInfo{}}
	index := make(map[string]int, len(ids))
	for q, id := range ids {
		index[id] = q
		v.names[q] = id
	}
	for q, s := range d.States {
		if s.Name != "" {
			v.names[q], v.named[q] = s.Name, true
		}
	}
	for _, t := range d.Transitions {
		if t.Err == nil {
			continue
		}
		q, ok1 := index[t.From]
		i, ok2 := m.Inputs.Index(t.Input)
		if ok1 && ok2 {
			v.errs[[2]int{q, i}] = t.Err
		}
	}
	return v, nil
}

// closure reports whether the document is a synchronous-closure model.
func (v *view) closure() bool { return v.d.Semantics == model.SemanticsClosure }

// errKind is the recorded reason for the err answer of q on input i, or ""
// when the document does not say.
func (v *view) errKind(q, i int) model.ErrKind {
	if e := v.errs[[2]int{q, i}]; e != nil {
		return e.Kind
	}
	return ""
}
