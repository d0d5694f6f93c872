package export

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/droidstar/droidstar/internal/backend/sim"
	"github.com/droidstar/droidstar/internal/fuzzseed"
	"github.com/droidstar/droidstar/internal/model"
)

// FuzzDecodeExport decodes a model document and writes it in every format
// that needs no renderer, as `droidstar export` does. A document that
// describes no machine is refused by every format, never written; one that
// does (a closure one with a callback typestate) is drawn as DOT that
// parses and as Mermaid; the Lifestate
// JSON is JSON; and DroidStar's dialect reads back as the same machine.
func FuzzDecodeExport(f *testing.F) {
	fuzzseed.Add(f, "../../testdata/export/*.json", "../../testdata/models/*.json", "../../testdata/diff/*.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := model.Unmarshal(data)
		if err != nil {
			return
		}
		m, _, machineErr := d.Machine()
		// What the pictures draw: a Mealy machine as it is, a closure
		// machine as its callback typestate.
		drawable := machineErr == nil
		if drawable && d.Semantics == model.SemanticsClosure {
			_, tsErr := m.Typestate()
			drawable = tsErr == nil
		}
		for _, format := range Formats() {
			if format == FormatSVG {
				continue // needs the droidstar-render helper
			}
			for _, showErrors := range []bool{false, true} {
				out, err := Write(d, format, PictureOptions{ShowErrors: showErrors})
				if err != nil {
					if out != nil {
						t.Fatalf("%s: output and an error: %v", format, err)
					}
					if err.Error() == "" {
						t.Fatalf("%s: empty error", format)
					}
				}
				switch format {
				case FormatDOT, FormatMermaid:
					if drawable != (err == nil) {
						t.Fatalf("%s: drawable %v, error %v", format, drawable, err)
					}
				case FormatJSON:
					// JSON refuses exactly the documents that are no machine.
					if (machineErr == nil) != (err == nil) {
						t.Fatalf("json: machine error %v, export error %v", machineErr, err)
					}
				}
				if machineErr != nil && err == nil {
					t.Fatalf("%s: a document that is no machine (%v) was written:\n%s", format, machineErr, out)
				}
				if err != nil {
					continue
				}
				switch format {
				case FormatDOT:
					// gographviz's lexer refuses U+FFFD, which Graphviz
					// reads like any other character (the model reader
					// works around it: sim.TestDOTReplacementChar).
					parseDOT(t, bytes.ReplaceAll(out, []byte("\uFFFD"), []byte("?")))
				case FormatLifestateJSON:
					if !json.Valid(out) {
						t.Fatalf("lifestate JSON is not JSON:\n%s", out)
					}
				case FormatLegacyDOT:
					back, err := sim.ParseModel("fuzz.gv", out, sim.FormatDroidStarDOT)
					if err != nil {
						t.Fatalf("DroidStar's dialect does not read back: %v\n%s", err, out)
					}
					if back.Machine.Inputs.Equal(m.Inputs) {
						if eq, err := m.Equivalent(back.Machine); err != nil || !eq {
							t.Fatalf("DroidStar's dialect reads back as another machine (%v):\n%s", err, out)
						}
					}
				case FormatSummary:
					if len(out) == 0 {
						t.Fatal("empty summary")
					}
				}
			}
		}
	})
}
