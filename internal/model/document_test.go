package model

import (
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/mealy"
)

func closureMachine() *mealy.Machine {
	in, out, _ := mealy.ClosureAlphabets([]string{"start"}, []string{"done"})
	m := mealy.NewMachine(in, out, 3)
	m.SetTransition(0, 0, 0, 1) // start / ok
	m.SetTransition(0, 1, 1, 0) // wait / quiet
	m.SetTransition(1, 0, 2, 2) // start / err
	m.SetTransition(1, 1, 3, 0) // wait / done
	m.SetTransition(2, 0, 2, 2)
	m.SetTransition(2, 1, 2, 2)
	return m
}

func TestFromMachineRoundTrip(t *testing.T) {
	m := closureMachine()
	d := FromMachine("T", SemanticsClosure, m, func(q, i int) *ErrInfo {
		return &ErrInfo{Kind: ErrThrown, Detail: "IllegalStateException"}
	})
	if d.States[2].ID != "s2" || !d.States[2].Sink || strings.Join(d.States[1].Access, " ") != "start" {
		t.Fatalf("states %+v", d.States)
	}
	var errs int
	for _, tr := range d.Transitions {
		if tr.Err != nil {
			errs++
			if tr.From != "s1" || tr.Input != "start" {
				t.Fatalf("err info on %+v; only the transition into the sink has one", tr)
			}
		}
	}
	if errs != 1 {
		t.Fatalf("%d err infos, want 1", errs)
	}
	data, err := d.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	m2, ids, err := back.Machine()
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := m.Equivalent(m2); !ok || strings.Join(ids, ",") != "s0,s1,s2" {
		t.Fatalf("round trip changed the machine (ids %v)", ids)
	}
}

func TestIncompleteClosureModelGetsASink(t *testing.T) {
	d := &Document{Format: Format, Version: Version, Semantics: SemanticsClosure,
		Inputs: []string{"start", "wait"}, Outputs: []string{"ok", "quiet", "err"}, Initial: "a",
		States: []State{{ID: "a"}, {ID: "sink"}},
		Transitions: []Transition{
			{From: "a", Input: "start", Output: "ok", To: "sink"},
			{From: "sink", Input: "start", Output: "ok", To: "a"},
		}}
	m, ids, err := d.Machine()
	if err != nil {
		t.Fatal(err)
	}
	// "sink" is taken by an ordinary state, so the added one is sink2.
	if strings.Join(ids, ",") != "a,sink,sink2" || m.NumStates() != 3 {
		t.Fatalf("ids %v", ids)
	}
	out, _ := m.Run(m.Inputs.MustWord("start", "start", "wait", "start"))
	if m.Outputs.Format(out) != "ok ok err err" {
		t.Fatalf("outputs %s", m.Outputs.Format(out))
	}
}

func TestDocumentErrors(t *testing.T) {
	base := `"format": "droidstar-model", "version": 1, "semantics": "mealy", "inputs": ["a"], "outputs": ["x"], "initial": "s0", "states": [{"id": "s0", "access": []}]`
	cases := []struct{ json, want string }{
		{`{"format": "aalpy", "version": 1}`, `format is "aalpy", want "droidstar-model"`},
		{`{"format": "droidstar-model", "version": 9}`, `version 9 is not supported (this droidstar reads version 1)`},
		{`{` + base + `, "complete": true, "transitions": []}`, `state 0 has no transition on input "a"`},
		{`{` + base + `, "complete": false, "transitions": []}`, `an incomplete model needs semantics "closure"`},
		{`{` + base + `, "complete": true, "transitions": [{"from": "s0", "input": "a", "output": "x", "to": "s9"}]}`, `transition 1: unknown state "s9"`},
		{`{` + base + `, "complete": true, "transitions": [{"from": "s0", "input": "b", "output": "x", "to": "s0"}]}`, `transition 1: unknown input "b"`},
		{`{` + base + `, "complete": true, "transitions": [{"from": "s0", "input": "a", "output": "x", "to": "s0"}, {"from": "s0", "input": "a", "output": "x", "to": "s0"}]}`, `transition 2: state "s0" has two transitions on "a"`},
		{`{` + base + `, "complete": true, "colour": "red"}`, `1:177: json: unknown field "colour"`},
	}
	for _, c := range cases {
		d, err := Unmarshal([]byte(c.json))
		if err == nil {
			_, _, err = d.Machine()
		}
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s\n got %v\nwant %s", c.json, err, c.want)
		}
	}
}

// Encode must give Marshal's bytes, whatever the lists hold.
func TestEncodeIsMarshal(t *testing.T) {
	full := FromMachine("T", SemanticsClosure, closureMachine(), func(q, i int) *ErrInfo {
		return &ErrInfo{Kind: ErrThrown, Detail: "<IllegalState> & \"quoted\"\n"}
	})
	full.Warnings = []string{"a <warning>"}
	full.Stats = &Stats{States: 3}
	noLists := *full
	noLists.States, noLists.Transitions = nil, nil
	emptyLists := *full
	emptyLists.States, emptyLists.Transitions = []State{}, []Transition{}
	tricky := *full
	tricky.Name = "states\n  \"states\": null,"
	for name, d := range map[string]*Document{"full": full, "nil lists": &noLists, "empty lists": &emptyLists, "tricky name": &tricky} {
		t.Run(name, func(t *testing.T) {
			want, err := d.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			var got strings.Builder
			if err := d.Encode(&got); err != nil {
				t.Fatal(err)
			}
			if got.String() != string(want) {
				t.Fatalf("Encode:\n%s\nMarshal:\n%s", got.String(), want)
			}
		})
	}
}

// Unmarshal sizes the lists ahead; a list the document leaves out must
// still come back nil and an empty one empty, as encoding/json gives them.
func TestUnmarshalKeepsMissingAndEmptyLists(t *testing.T) {
	const head = `{"format": "droidstar-model", "version": 1, "name": "from", "semantics": "mealy", "inputs": ["access"], "outputs": ["from"], "initial": "s0"`
	for _, c := range []struct {
		name, doc        string
		nilStates, nilTr bool
	}{
		{"missing", head + `}`, true, true},
		{"null", head + `, "states": null, "transitions": null}`, true, true},
		{"empty", head + `, "states": [], "transitions": []}`, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := Unmarshal([]byte(c.doc))
			if err != nil {
				t.Fatal(err)
			}
			if (d.States == nil) != c.nilStates || (d.Transitions == nil) != c.nilTr || len(d.States)+len(d.Transitions) != 0 {
				t.Fatalf("states %#v (nil %v), transitions %#v (nil %v); want nil %v, %v", d.States, d.States == nil, d.Transitions, d.Transitions == nil, c.nilStates, c.nilTr)
			}
		})
	}
}

// Documents written before the bound the learned model needs was called
// what it is keep their figure, and encode under the new key.
func TestLegacyNeededKey(t *testing.T) {
	src := `{"format": "droidstar-model", "version": 1, "name": "x", "semantics": "mealy", "inputs": ["a"], "outputs": ["x"],
 "initial": "s0", "states": [{"id": "s0", "access": []}], "transitions": [{"from": "s0", "input": "a", "output": "x", "to": "s0"}],
 "complete": true, "bound": {"used": 2, "needed": 1}}`
	d, err := Unmarshal([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if d.Bound == nil || d.Bound.LearnedNeeds != 1 || d.Bound.Used != 2 || d.Bound.Needed != nil {
		t.Fatalf("bound %+v", d.Bound)
	}
	data, err := d.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"bound": {
    "used": 2,
    "learned_model_needs": 1
  }`) || strings.Contains(string(data), `"needed"`) {
		t.Fatalf("encoded:\n%s", data)
	}
}
