// Package diff compares two learned models of the same class, say the
// typestates learned on Android API 23 and API 34: do they accept the same
// behaviour, and if not, which shortest traces tell them apart and which
// transitions were added, removed or changed.
//
// # Behaviour
//
// A trace is a sequence of callins and waits with what each answered, as in
// "prepare · wait/prepared · start". A model accepts a trace when running
// its inputs gives those answers and no callin answers err; nothing after an
// err counts. A wait that answers quiet and stays where it is changes
// nothing and is no event; neither is a wait that answers err (an error
// callback, or a wait the purpose excludes), which the typestate drops like
// every err edge: the comparison reads it as a wait that answered quiet and
// stayed. A wait that answers quiet and moves to another state (the object
// moved on by itself) is an event, shown as wait/quiet. Both models see the
// same waits: time passes for both.
//
// Two models have the same behaviour when they accept the same traces. The
// comparison builds the product of the two machines so normalised and
// searches it breadth-first from the two initial states; a product state
// where the models answer an input differently is a divergence, and the
// shortest trace reaching it, extended by that input, is a witness: it is
// accepted by the model whose answer is an event, and rejected by the other
// (both, when each answers a different callback). Witnesses come out
// shortest first, one per divergence, in the order of the search (inputs in
// the old model's order), so the first one is a shortest distinguishing
// trace and the output is deterministic. A plain Mealy model (semantics
// "mealy") is compared as it is: every answer is an event.
//
// When the alphabets differ (a callin added in a newer Android, a callback
// gone), the difference is reported and the behaviour is compared on the
// shared inputs, both machines restricted to them. Two models with
// different alphabets never count as the same.
//
// # Structure
//
// The structural view pairs the states of the two typestates by a heaviest
// matching (see matchStates) and lists the typestate edges that only the old
// model has (removed), only the new one has (added), or that leave matched
// states on the same input with another output or into a state not matched
// to the old target (changed). Overlay draws both typestates in one picture.
package diff

import (
	"fmt"
	"strings"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
)

// Format and Version identify the JSON report.
const (
	Format  = "droidstar-diff"
	Version = 1
)

// DefaultMaxTraces is how many witnesses per direction a report keeps
// unless told otherwise.
const DefaultMaxTraces = 3

// Options control a comparison.
type Options struct {
	// OldFile and NewFile name the models in the report.
	OldFile, NewFile string
	// MaxTraces is how many witnesses per direction the report keeps
	// (DefaultMaxTraces when 0).
	MaxTraces int
	// budget is the product search's budget (productBudget when 0), for
	// tests of the search that stops early.
	budget int
}

// Report is the result of a comparison. Its JSON encoding is the documented
// "droidstar-diff" format, version 1 (droidstar help ci); fields are only
// ever added to it, never renamed or removed, within a version.
type Report struct {
	Format  string    `json:"format"`
	Version int       `json:"version"`
	Old     ModelInfo `json:"old"`
	New     ModelInfo `json:"new"`
	// Semantics is the models' semantics, "closure" or "mealy".
	Semantics string `json:"semantics"`
	// Same is true when the alphabets are the same and so is the
	// behaviour: the command's exit code is 0 exactly then.
	Same     bool         `json:"same"`
	Alphabet AlphabetDiff `json:"alphabet"`
	// SameBehaviour is true when the models accept the same traces over
	// the shared inputs.
	SameBehaviour bool `json:"same_behaviour"`
	// OldOnly are shortest traces the old model accepts and the new one
	// rejects; NewOnly the other way round.
	OldOnly     Witnesses      `json:"old_only"`
	NewOnly     Witnesses      `json:"new_only"`
	States      StateMatching  `json:"states"`
	Transitions TransitionDiff `json:"transitions"`

	old, new *side
	st       *structure
}

// ModelInfo identifies one of the two models.
type ModelInfo struct {
	File  string `json:"file,omitempty"`
	Name  string `json:"name"`
	Class string `json:"class,omitempty"`
	// SDK is the API level of the device that answered the queries, when
	// the model records one (the first device's).
	SDK int `json:"sdk,omitempty"`
	// States and Transitions count the typestate (the error sink and err
	// edges left out; every reachable transition of a plain Mealy model).
	States      int `json:"states"`
	Transitions int `json:"transitions"`
}

// AlphabetDiff lists the symbols only one model has. For a closure model
// the inputs are the callins (wait is always shared) and the outputs the
// callbacks (ok, quiet and err are always shared).
type AlphabetDiff struct {
	InputsOnlyOld  []string `json:"inputs_only_old"`
	InputsOnlyNew  []string `json:"inputs_only_new"`
	OutputsOnlyOld []string `json:"outputs_only_old"`
	OutputsOnlyNew []string `json:"outputs_only_new"`
	// Restricted is true when the inputs differ and the behaviour was
	// compared on SharedInputs only.
	Restricted   bool     `json:"restricted"`
	SharedInputs []string `json:"shared_inputs"`
}

// Same reports whether the alphabets are the same.
func (a AlphabetDiff) Same() bool {
	return len(a.InputsOnlyOld)+len(a.InputsOnlyNew)+len(a.OutputsOnlyOld)+len(a.OutputsOnlyNew) == 0
}

// Witnesses are the shortest traces one model accepts and the other
// rejects: Total divergences have one, Traces are the first of them.
type Witnesses struct {
	Total  int       `json:"total"`
	Traces []Witness `json:"traces"`
	// StoppedAfter is set when the product of two large models was too
	// big to search to the end: the search stopped after this many
	// product states (see productBudget). Traces are still the first
	// witnesses, but Total is a lower bound: it counts those met before.
	StoppedAfter int `json:"stopped_after,omitempty"`
}

// Witness is one trace accepted by one model and rejected by the other.
type Witness struct {
	// Trace is the trace the accepting model runs; the two models answer
	// alike up to the last step, where they part.
	Trace []Step `json:"trace"`
	// OldState and NewState are the states the two models are in before
	// the last step.
	OldState string `json:"old_state"`
	NewState string `json:"new_state"`
	// Other is what the other model does on the last input, with the
	// reason for an err when its model records one.
	Other Transition `json:"other"`
}

// Step is one input and its answer.
type Step struct {
	Input  string `json:"input"`
	Output string `json:"output"`
}

// Transition is one transition of one model, from the model's document.
type Transition struct {
	From   string         `json:"from"`
	Output string         `json:"output"`
	To     string         `json:"to"`
	Err    *model.ErrInfo `json:"err,omitempty"`
}

// StateMatching is the best matching between the typestates' states.
type StateMatching struct {
	Pairs   []StatePair `json:"pairs"`
	OnlyOld []string    `json:"only_old"`
	OnlyNew []string    `json:"only_new"`
}

// StatePair is one matched pair of state IDs.
type StatePair struct {
	Old string `json:"old"`
	New string `json:"new"`
}

// TransitionDiff lists the typestate edges under the state matching.
type TransitionDiff struct {
	Unchanged int `json:"unchanged"`
	// Removed edges are in the old typestate only: New is what the new
	// model does at the matched state on that input (null when the state
	// is unmatched or the input is not in the new alphabet).
	Removed []Change `json:"removed"`
	// Added edges are in the new typestate only; Old as above.
	Added []Change `json:"added"`
	// Changed edges leave matched states on the same input with another
	// output, or into a state not matched to the old target.
	Changed []Change `json:"changed"`
}

// Change is one edge that differs: the two models' transitions on Input.
type Change struct {
	Input string      `json:"input"`
	Old   *Transition `json:"old"`
	New   *Transition `json:"new"`
}

// Compare compares two model documents.
func Compare(oldDoc, newDoc *model.Document, opts Options) (*Report, error) {
	o, err := newSide("old", opts.OldFile, oldDoc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name(opts.OldFile, "old model"), err)
	}
	n, err := newSide("new", opts.NewFile, newDoc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name(opts.NewFile, "new model"), err)
	}
	return compareSides(o, n, opts)
}

// Model is a model document read for a comparison: what the comparison
// needs of it, without the document, which for a large model takes
// several times the memory. A caller that loads each model as it reads it
// never holds both documents at once.
type Model struct{ s *side }

// Load reads a model document for CompareModels; file names the model in
// errors and in the report.
func Load(d *model.Document, file string) (*Model, error) {
	s, err := newSide("model", file, d)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name(file, "model"), err)
	}
	return &Model{s: s}, nil
}

// CompareModels compares two loaded models as Compare compares their
// documents; the files named when loading name them (opts.OldFile and
// NewFile are not used).
func CompareModels(oldModel, newModel *Model, opts Options) (*Report, error) {
	return compareSides(oldModel.s, newModel.s, opts)
}

func compareSides(o, n *side, opts Options) (*Report, error) {
	if opts.MaxTraces <= 0 {
		opts.MaxTraces = DefaultMaxTraces
	}
	if opts.budget <= 0 {
		opts.budget = productBudget
	}
	if o.semantics != n.semantics {
		return nil, fmt.Errorf("incompatible semantics: %s is %s, %s is %s; both must be closure models or both plain Mealy models",
			name(o.file, "the old model"), describeSemantics(o.semantics),
			name(n.file, "the new model"), describeSemantics(n.semantics))
	}
	if oc, nc := o.callins(), n.callins(); len(minus(oc, minus(oc, nc))) == 0 {
		// With no callin in common, every trace either model accepts is
		// one the other cannot even play: a verdict would say nothing.
		word := "callins"
		if o.semantics != model.SemanticsClosure {
			word = "inputs"
		}
		return nil, fmt.Errorf("cannot compare %s with %s: they share no %s (old: %s; new: %s), so no trace of one can be played on the other; are they models of the same class?",
			name(o.file, "the old model"), name(n.file, "the new model"), word, strings.Join(oc, ", "), strings.Join(nc, ", "))
	}
	r := &Report{Format: Format, Version: Version, Old: info(o), New: info(n), Semantics: o.semantics, old: o, new: n}
	r.Alphabet = AlphabetDiff{
		InputsOnlyOld: minus(o.callins(), n.callins()), InputsOnlyNew: minus(n.callins(), o.callins()),
		OutputsOnlyOld: minus(o.callbacks(), n.callbacks()), OutputsOnlyNew: minus(n.callbacks(), o.callbacks()),
	}
	b := newBehaviour(o, n)
	r.Alphabet.SharedInputs = b.inputs.Names()
	r.Alphabet.Restricted = len(r.Alphabet.InputsOnlyOld)+len(r.Alphabet.InputsOnlyNew) > 0
	r.OldOnly, r.NewOnly = witnesses(o, n, b, opts.MaxTraces, opts.budget)
	r.SameBehaviour = r.OldOnly.Total+r.NewOnly.Total == 0
	r.Same = r.SameBehaviour && r.Alphabet.Same()
	toNew, err := matchStates(o, n, b)
	if err != nil {
		return nil, err
	}
	r.st = compareStructure(o, n, toNew)
	r.States, r.Transitions = r.st.matching, r.st.transitions
	return r, nil
}

// witnesses turns the divergences into witnesses per direction. Only the
// first max of each direction are spelt out; the others are counted.
func witnesses(o, n *side, b *behaviour, max, budget int) (oldOnly, newOnly Witnesses) {
	oldOnly.Traces, newOnly.Traces = []Witness{}, []Witness{}
	stopped := b.divergences(budget, func(s *search, d divergence) bool {
		oldEvent := b.event(b.old, b.oldBlock, d.at.old, d.input)
		newEvent := b.event(b.new, b.newBlock, d.at.new, d.input)
		if oldEvent {
			oldOnly.Total++
		}
		if newEvent {
			newOnly.Total++
		}
		wantOld, wantNew := oldEvent && len(oldOnly.Traces) < max, newEvent && len(newOnly.Traces) < max
		if wantOld || wantNew {
			word := s.prefix(d)
			prefix := make([]Step, len(word))
			p := pair{b.old.Initial, b.new.Initial}
			for k, i := range word {
				prefix[k] = Step{Input: b.inputs.Name(i), Output: b.outputs.Name(b.old.Out[p.old][i])}
				p = pair{b.old.Next[p.old][i], b.new.Next[p.new][i]}
			}
			in := b.inputs.Name(d.input)
			mk := func(accepting *mealy.Machine, q int, other *side, otherState int) Witness {
				t, _ := other.answer(otherState, in)
				trace := append(append([]Step{}, prefix...), Step{Input: in, Output: b.outputs.Name(accepting.Out[q][d.input])})
				return Witness{Trace: trace, OldState: o.ids[d.at.old], NewState: n.ids[d.at.new], Other: t}
			}
			if wantOld {
				oldOnly.Traces = append(oldOnly.Traces, mk(b.old, d.at.old, n, d.at.new))
			}
			if wantNew {
				newOnly.Traces = append(newOnly.Traces, mk(b.new, d.at.new, o, d.at.old))
			}
		}
		return len(oldOnly.Traces) < max || len(newOnly.Traces) < max
	})
	oldOnly.StoppedAfter, newOnly.StoppedAfter = stopped, stopped
	return oldOnly, newOnly
}

func info(s *side) ModelInfo {
	mi := s.info
	mi.States, mi.Transitions = len(s.states), len(s.edges)
	return mi
}

// minus is the names of a not in b, in a's order (never nil).
func minus(a, b []string) []string {
	in := make(map[string]bool, len(b))
	for _, x := range b {
		in[x] = true
	}
	out := []string{}
	for _, x := range a {
		if !in[x] {
			out = append(out, x)
		}
	}
	return out
}

func name(file, fallback string) string {
	if file != "" {
		return file
	}
	return fallback
}

func describeSemantics(s string) string {
	switch s {
	case model.SemanticsClosure:
		return "a closure model (callback typestate)"
	case model.SemanticsMealy:
		return "a plain Mealy model"
	}
	return fmt.Sprintf("of semantics %q", s)
}
