package sim

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
)

// Model formats.
const (
	// FormatDroidStarDOT is the DOT dialect of the original DroidStar:
	// integer states (0 initial), callin labels, delta_X for a wait that
	// delivered callback X, delta_beta for a quiet wait, error sink omitted.
	FormatDroidStarDOT = "droidstar-dot"
	// FormatMealyDOT is the Mealy DOT of AALpy, LearnLib and the automata
	// wiki: `s0 -> s1 [label="in / out"]`, initial state marked by
	// `__start0 -> s0`.
	FormatMealyDOT = "mealy-dot"
	// FormatJSON is droidstar's own model document (package model).
	FormatJSON = "json"
	// FormatAuto detects the format (so does "").
	FormatAuto = "auto"
)

// Model is a target machine the simulator answers queries from.
type Model struct {
	Machine    *mealy.Machine
	StateNames []string // one per machine state, as named in the file ("sink" for an added error sink)
	Semantics  string   // model.SemanticsClosure or model.SemanticsMealy
	Format     string   // "droidstar-dot", "mealy-dot" or "json"
	Path       string
}

// LoadError is an error in a model file; Line (and Col) are 0 when unknown.
type LoadError struct {
	Path string
	Line int
	Col  int
	Msg  string
	// UnknownFormat says that the format could not be detected; Ask then
	// says where the user names it (a flag, a purpose field), which only
	// the caller knows.
	UnknownFormat bool
	Ask           string
}

func (e *LoadError) Error() string {
	if e.UnknownFormat {
		ask := cmp.Or(e.Ask, "name the model's format")
		return fmt.Sprintf("%s: %s; %s: %s, %s or %s", e.Path, e.Msg, ask, FormatDroidStarDOT, FormatMealyDOT, FormatJSON)
	}
	switch {
	case e.Line > 0 && e.Col > 0:
		return fmt.Sprintf("%s: line %d, column %d: %s", e.Path, e.Line, e.Col, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("%s: line %d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

// LoadModel reads a model file; format "" or "auto" detects the format.
func LoadModel(path, format string) (*Model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseModel(path, data, format)
}

// ParseModel reads a model from data; name is used in messages and for
// detection; format "" or "auto" detects the format.
//
// Detection: a ".json" name or content starting with '{' is JSON; a DOT
// digraph with an edge label containing '/' is mealy-dot; one with a
// "delta_" label or only integer node IDs (and no '/') is droidstar-dot;
// anything else is an error asking for an explicit format.
func ParseModel(name string, data []byte, format string) (*Model, error) {
	switch format {
	case "", FormatAuto, FormatDroidStarDOT, FormatMealyDOT, FormatJSON:
	default:
		return nil, &LoadError{Path: name, Msg: fmt.Sprintf("unknown model format %q (want %s, %s, %s or %s)",
			format, FormatDroidStarDOT, FormatMealyDOT, FormatJSON, FormatAuto)}
	}
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\uFEFF")))
	if len(trimmed) == 0 {
		return nil, &LoadError{Path: name, Msg: "empty file"}
	}
	if format == "" || format == FormatAuto {
		if strings.EqualFold(filepath.Ext(name), ".json") || trimmed[0] == '{' {
			format = FormatJSON
		}
	}
	if format == FormatJSON {
		return parseJSON(name, bytes.TrimPrefix(data, []byte("\uFEFF")))
	}
	g, err := readDOT(name, data)
	if err != nil {
		return nil, err
	}
	if format == "" || format == FormatAuto {
		if format, err = detectDOT(name, g); err != nil {
			return nil, err
		}
	}
	if format == FormatDroidStarDOT {
		return buildDroidStar(name, g)
	}
	return buildMealy(name, g)
}

// detectDOT tells droidstar-dot from mealy-dot by the labels and node IDs.
func detectDOT(name string, g *dotGraph) (string, error) {
	slash, delta, labels := false, false, 0
	for _, e := range g.edges {
		if isStartMarker(e.from) || !e.hasLabel {
			continue
		}
		labels++
		slash = slash || strings.Contains(e.label, "/")
		delta = delta || strings.HasPrefix(e.label, deltaPrefix)
	}
	allInt := len(g.nodes) > 0
	for _, n := range g.nodes {
		allInt = allInt && isStateNumber(n)
	}
	switch {
	case len(g.edges) == 0:
		return "", &LoadError{Path: name, Msg: "no edges: a model needs transitions"}
	case slash:
		return FormatMealyDOT, nil
	case delta || allInt:
		return FormatDroidStarDOT, nil
	case labels == 0:
		return "", &LoadError{Path: name, Msg: "cannot tell the model's format: no edge has a label", UnknownFormat: true}
	}
	return "", &LoadError{Path: name, Msg: "cannot tell the model's format: no edge label has mealy-dot's \"input / output\" form, " +
		"and there are neither delta_ labels nor only numbered states as in DroidStar's diagrams", UnknownFormat: true}
}

// parseJSON reads droidstar's own model document.
func parseJSON(name string, data []byte) (*Model, error) {
	doc, err := model.Unmarshal(data)
	if err != nil {
		return nil, jsonLoadError(name, data, err)
	}
	m, names, err := doc.Machine()
	if err != nil {
		return nil, &LoadError{Path: name, Msg: err.Error()}
	}
	return &Model{Machine: m, StateNames: names, Semantics: doc.Semantics, Format: FormatJSON, Path: name}, nil
}

var jsonPosition = regexp.MustCompile(`^(\d+):(\d+): (.*)$`)

// jsonLoadError turns model.Unmarshal's "line:col: msg" into a LoadError.
func jsonLoadError(name string, data []byte, err error) error {
	msg := err.Error()
	if m := jsonPosition.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		col, _ := strconv.Atoi(m[2])
		return &LoadError{Path: name, Line: line, Col: col, Msg: m[3]}
	}
	return &LoadError{Path: name, Msg: msg}
}

// WithCallins returns a copy of a closure model whose input alphabet is
// callins, in that order, then wait. A callin the model never shows throws
// everywhere: it answers err and leads to the error sink (added when the
// model has none), as DroidStar's diagrams mean for an input they omit
// (SQLiteOpenHelper's openHV). A callin of the model left out of callins is
// dropped from the alphabet (the model restricted to the listed callins).
// States and their names are kept; m is not changed.
func (m *Model) WithCallins(callins []string) (*Model, error) {
	if m.Semantics != model.SemanticsClosure {
		return nil, &LoadError{Path: m.Path, Msg: fmt.Sprintf("the model is a plain Mealy machine (no %q input): it has no callins to set", mealy.Wait)}
	}
	if len(callins) == 0 {
		return nil, &LoadError{Path: m.Path, Msg: "no callins given"}
	}
	for _, c := range callins {
		if c == mealy.Wait {
			return nil, &LoadError{Path: m.Path, Msg: fmt.Sprintf("callin %q: a callin needs a name other than %q", c, mealy.Wait)}
		}
	}
	inputs, err := mealy.NewAlphabet(append(append([]string(nil), callins...), mealy.Wait)...)
	if err != nil {
		return nil, &LoadError{Path: m.Path, Msg: "callins: " + err.Error()}
	}
	old := m.Machine
	c := mealy.NewMachine(inputs, old.Outputs, old.NumStates())
	c.Initial = old.Initial
	for i, name := range inputs.Names() {
		j, ok := old.Inputs.Index(name)
		if !ok {
			continue
		}
		for q := 0; q < old.NumStates(); q++ {
			c.SetTransition(q, i, old.Out[q][j], old.Next[q][j])
		}
	}
	names := model.CompleteWithSink(c, append([]string(nil), m.StateNames...))
	if err := c.Validate(); err != nil {
		return nil, &LoadError{Path: m.Path, Msg: err.Error()}
	}
	return &Model{Machine: c, StateNames: names, Semantics: m.Semantics, Format: m.Format, Path: m.Path}, nil
}
