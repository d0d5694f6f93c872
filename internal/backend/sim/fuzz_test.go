package sim

import (
	"bytes"
	"errors"
	"testing"

	"github.com/droidstar/droidstar/internal/fuzzseed"
	"github.com/droidstar/droidstar/internal/model"
)

// The model readers are fuzzed one format at a time, so that each corpus
// stays in its own dialect: a DroidStar DOT mutated into a Mealy DOT is
// still tried, but the seeds of each target are of its own kind.

func FuzzParseDroidStarDOT(f *testing.F) {
	fuzzseed.Add(f, fixtures+"/*.gv", fixtures+"/player-closure*.dot", fixtures+"/bad-*.dot")
	f.Fuzz(func(t *testing.T, data []byte) { checkParse(t, data, FormatDroidStarDOT) })
}

func FuzzParseMealyDOT(f *testing.F) {
	fuzzseed.Add(f, fixtures+"/vending-mealy.dot", fixtures+"/turnstile-*.dot", fixtures+"/bad-*.dot", "../../../testdata/matrix/*.dot")
	f.Fuzz(func(t *testing.T, data []byte) { checkParse(t, data, FormatMealyDOT) })
}

func FuzzParseModelJSON(f *testing.F) {
	fuzzseed.Add(f, fixtures+"/*.json", "../../../testdata/export/*.json", "../../../testdata/diff/*.json")
	f.Fuzz(func(t *testing.T, data []byte) { checkParse(t, data, FormatJSON) })
}

// FuzzDetectModel reads with the format detected, which must agree with
// reading in the detected format.
func FuzzDetectModel(f *testing.F) {
	fuzzseed.Add(f, fixtures+"/*")
	f.Fuzz(func(t *testing.T, data []byte) {
		m := checkParse(t, data, FormatAuto)
		if m == nil {
			return
		}
		again, err := ParseModel("fuzz.model", data, m.Format)
		if err != nil {
			t.Fatalf("detected as %s, but reading it as %s fails: %v", m.Format, m.Format, err)
		}
		if eq, err := m.Machine.Equivalent(again.Machine); err != nil || !eq {
			t.Fatalf("detected and explicit %s readings differ (%v)", m.Format, err)
		}
	})
}

// checkParse reads data in format and checks what a user relies on: a
// failure is a *LoadError naming the file, with a line inside it when it
// has one; a success is a complete machine with one name per state, of
// the format asked for, which survives being written as a model document
// and read back.
func checkParse(t *testing.T, data []byte, format string) *Model {
	const name = "fuzz.model"
	m, err := ParseModel(name, data, format)
	if err != nil {
		if m != nil {
			t.Fatalf("a model and an error: %v", err)
		}
		var le *LoadError
		if !errors.As(err, &le) {
			t.Fatalf("error is not a *LoadError: %#v", err)
		}
		if le.Path != name || le.Msg == "" {
			t.Fatalf("error without the file or a message: %#v", le)
		}
		if lines := bytes.Count(data, []byte("\n")) + 2; le.Line < 0 || le.Line > lines || le.Col < 0 {
			t.Fatalf("error at line %d column %d of a %d-line input: %v", le.Line, le.Col, lines-1, le)
		}
		return nil
	}
	if err := m.Machine.Validate(); err != nil {
		t.Fatalf("the model read is not a complete machine: %v", err)
	}
	if len(m.StateNames) != m.Machine.NumStates() {
		t.Fatalf("%d state names for %d states", len(m.StateNames), m.Machine.NumStates())
	}
	if format != FormatAuto && m.Format != format {
		t.Fatalf("read as %s, model says %s", format, m.Format)
	}
	if m.Semantics != model.SemanticsClosure && m.Semantics != model.SemanticsMealy {
		t.Fatalf("semantics %q", m.Semantics)
	}
	doc, err := model.FromMachine("fuzz", m.Semantics, m.Machine, nil).Marshal()
	if err != nil {
		t.Fatalf("write the model as a document: %v", err)
	}
	back, err := ParseModel("fuzz.json", doc, FormatJSON)
	if err != nil {
		t.Fatalf("the model written as a document does not read back: %v\n%s", err, doc)
	}
	if eq, err := m.Machine.Equivalent(back.Machine); err != nil || !eq {
		t.Fatalf("the model written as a document reads back different (%v)", err)
	}
	return m
}
