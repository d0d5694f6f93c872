package diff

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/backend/sim"
	goldenfile "github.com/droidstar/droidstar/internal/golden"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
)

// golden compares got with testdata/diff/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, "diff", name, got, "./internal/diff")
}

var exampleNames = []string{"asynctask", "countdowntimer", "fileobserver", "mediaplayer", "speechrecognizer", "spellcheckersession", "sqliteopenhelper"}

// exampleDoc loads an example's simulation model as a model document.
func exampleDoc(t *testing.T, name string) *model.Document {
	t.Helper()
	file := goldenfile.Path("examples", name, "model.dot")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	m, err := sim.ParseModel(file, data, "")
	if err != nil {
		t.Fatal(err)
	}
	if m.Semantics != model.SemanticsClosure {
		t.Fatalf("%s: semantics %q", name, m.Semantics)
	}
	return model.FromMachine(name, m.Semantics, m.Machine, nil)
}

func readDoc(t *testing.T, file string) *model.Document {
	t.Helper()
	d, err := model.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func machine(t *testing.T, d *model.Document) *mealy.Machine {
	t.Helper()
	m, _, err := d.Machine()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// --- the semantics, written out independently of the package ---

// stepper reads a machine as the package documentation defines: a callin
// that answers err rejects the trace (dead from then on), a wait that
// answers err is read as a wait that answered quiet and stayed.
type stepper struct {
	m       *mealy.Machine
	closure bool
}

// step returns the answer to the input named in at q, and the next state
// (-1: dead).
func (s stepper) step(q int, in string) (string, int) {
	if q < 0 {
		return mealy.Err, -1
	}
	i, ok := s.m.Inputs.Index(in)
	if !ok {
		panic("no input " + in)
	}
	return s.stepIndex(q, i)
}

// stepIndex is step for the input with index i.
func (s stepper) stepIndex(q, i int) (string, int) {
	if q < 0 {
		return mealy.Err, -1
	}
	out := s.m.Outputs.Name(s.m.Out[q][i])
	if s.closure && out == mealy.Err {
		if s.m.Inputs.Name(i) == mealy.Wait {
			return mealy.Quiet, q
		}
		return mealy.Err, -1
	}
	return out, s.m.Next[q][i]
}

// reading is the answers to a word up to and including the first err.
func (s stepper) reading(word []string) []string {
	q := s.m.Initial
	var out []string
	for _, in := range word {
		o, next := s.step(q, in)
		out = append(out, o)
		if next < 0 {
			break
		}
		q = next
	}
	return out
}

// normalised is the machine the stepper reads, as a complete Mealy
// machine over the given inputs and outputs (a dead state added last).
func (s stepper) normalised(inputs, outputs *mealy.Alphabet) *mealy.Machine {
	n := s.m.NumStates()
	t := mealy.NewMachine(inputs, outputs, n+1)
	t.Initial = s.m.Initial
	for k, in := range inputs.Names() {
		for q := 0; q < n; q++ {
			o, next := s.step(q, in)
			if next < 0 {
				next = n
			}
			oi, _ := outputs.Index(o)
			t.SetTransition(q, k, oi, next)
		}
		e, _ := outputs.Index(mealy.Err)
		t.SetTransition(n, k, e, n)
	}
	return t
}

// bruteShortest enumerates every input word of length 1..maxLen
// depth-first (inputs in order) and returns the length of a shortest one
// on which the two readings differ, or 0 when none is that short. Words
// are extended only while both readings agree and one model is alive.
func bruteShortest(a, b stepper, inputs []string, maxLen int) int {
	best := 0
	ia, ib := make([]int, len(inputs)), make([]int, len(inputs))
	for k, in := range inputs {
		ia[k], _ = a.m.Inputs.Index(in)
		ib[k], _ = b.m.Inputs.Index(in)
	}
	var walk func(qa, qb, depth int)
	walk = func(qa, qb, depth int) {
		if depth == maxLen || (best > 0 && depth+1 >= best) {
			return
		}
		for k := range inputs {
			oa, na := a.stepIndex(qa, ia[k])
			ob, nb := b.stepIndex(qb, ib[k])
			if oa != ob {
				if best == 0 || depth+1 < best {
					best = depth + 1
				}
				continue
			}
			if na < 0 && nb < 0 {
				continue
			}
			walk(na, nb, depth+1)
		}
	}
	walk(a.m.Initial, b.m.Initial, 0)
	return best
}

// oracle compares two closure machines over their shared inputs on its
// own: the shortest distinguishing word by mealy's Counterexample on the
// normalised machines (nil when equivalent).
func oracle(t *testing.T, a, b stepper, shared []string) mealy.Word {
	t.Helper()
	in := mealy.MustAlphabet(shared...)
	out := mealy.MustAlphabet(a.m.Outputs.Names()...)
	for _, o := range b.m.Outputs.Names() {
		if _, ok := out.Index(o); !ok {
			_, _ = out.Add(o)
		}
	}
	w, differ, err := a.normalised(in, out).Counterexample(b.normalised(in, out))
	if err != nil {
		t.Fatal(err)
	}
	if !differ {
		return nil
	}
	return w
}

// checkWitness replays a witness on both models: the accepting one gives
// exactly its answers (and its last step is an event: not a quiet wait
// that stays put up to equivalence), the other one does not.
func checkWitness(t *testing.T, w Witness, accepting, other stepper, otherIDs []string) {
	t.Helper()
	var word, answers []string
	for _, s := range w.Trace {
		word = append(word, s.Input)
		answers = append(answers, s.Output)
	}
	if got := accepting.reading(word); !reflect.DeepEqual(got, answers) {
		t.Fatalf("witness %v: the accepting model answers %v", w.Trace, got)
	}
	last := answers[len(answers)-1]
	if last == mealy.Err {
		t.Fatalf("witness %v ends in err", w.Trace)
	}
	if got := other.reading(word); reflect.DeepEqual(got, answers) {
		t.Fatalf("witness %v: the other model accepts it too", w.Trace)
	}
	// The other model's answer on the last input, from its own state.
	q := other.m.Initial
	for _, in := range word[:len(word)-1] {
		_, q = other.step(q, in)
	}
	i, _ := other.m.Inputs.Index(word[len(word)-1])
	if want := other.m.Outputs.Name(other.m.Out[q][i]); w.Other.Output != want || w.Other.From != otherIDs[q] {
		t.Fatalf("witness %v: other %+v, want output %s from %s", w.Trace, w.Other, want, otherIDs[q])
	}
	if last == mealy.Quiet {
		m := accepting.m
		p := m.Initial
		for _, in := range word[:len(word)-1] {
			_, p = accepting.step(p, in)
		}
		_, next := accepting.step(p, mealy.Wait)
		in := mealy.MustAlphabet(m.Inputs.Names()...)
		norm := accepting.normalised(in, m.Outputs)
		if norm.Distinguishers().Word(p, next) == nil {
			t.Fatalf("witness %v ends in a quiet wait that stays put", w.Trace)
		}
	}
}

func wordNames(in []string, w mealy.Word) []string {
	out := make([]string, len(w))
	for k, i := range w {
		out[k] = in[i]
	}
	return out
}

// --- tests ---

func TestIdenticalModelsAreTheSame(t *testing.T) {
	for _, name := range exampleNames {
		t.Run(name, func(t *testing.T) {
			d := exampleDoc(t, name)
			r, err := Compare(d, d, Options{OldFile: "a.json", NewFile: "b.json"})
			if err != nil {
				t.Fatal(err)
			}
			if !r.Same || !r.SameBehaviour || r.OldOnly.Total+r.NewOnly.Total != 0 || r.Alphabet.Restricted {
				t.Fatalf("report %+v", r)
			}
			td := r.Transitions
			if len(td.Changed)+len(td.Removed)+len(td.Added) != 0 || td.Unchanged != r.Old.Transitions {
				t.Fatalf("transitions %+v", td)
			}
			for _, p := range r.States.Pairs {
				if p.Old != p.New {
					t.Fatalf("state %s matched to %s", p.Old, p.New)
				}
			}
			if len(r.States.Pairs) != r.Old.States || len(r.States.OnlyOld)+len(r.States.OnlyNew) != 0 {
				t.Fatalf("matching %+v", r.States)
			}
		})
	}
	d := exampleDoc(t, "countdowntimer")
	r, err := Compare(d, d, Options{OldFile: "a.json", NewFile: "b.json"})
	if err != nil {
		t.Fatal(err)
	}
	const want = `old: a.json: countdowntimer, 3 states, 5 transitions
new: b.json: countdowntimer, 3 states, 5 transitions
same: the two models accept the same traces
`
	if got := r.Text(); got != want {
		t.Fatalf("text:\n%s\nwant:\n%s", got, want)
	}
}

// mutation is one single-transition change of a machine.
type mutation struct {
	q, i, out, to int
}

// mutations lists every single-transition change of a closure machine
// that keeps it a closure machine: another output (a callin answers ok or
// err, a wait a callback, quiet or err), or another target.
func mutations(m *mealy.Machine) []mutation {
	wait, _ := m.Inputs.Index(mealy.Wait)
	ok, _ := m.Outputs.Index(mealy.OK)
	errOut, _ := m.Outputs.Index(mealy.Err)
	var out []mutation
	for q := 0; q < m.NumStates(); q++ {
		for i := 0; i < m.Inputs.Size(); i++ {
			for o := 0; o < m.Outputs.Size(); o++ {
				valid := (i == wait && o != ok) || (i != wait && (o == ok || o == errOut))
				if valid && o != m.Out[q][i] {
					out = append(out, mutation{q, i, o, m.Next[q][i]})
				}
			}
			for to := 0; to < m.NumStates(); to++ {
				if to != m.Next[q][i] {
					out = append(out, mutation{q, i, m.Out[q][i], to})
				}
			}
		}
	}
	return out
}

// bruteCap bounds the brute-force enumeration of short traces; longer
// witnesses are checked against the oracle only (and brute force checks
// that nothing up to the cap distinguishes).
const bruteCap = 12

// Every single-transition mutation of every example model: diff says
// "different" exactly when the mutant is not equivalent, its first witness
// in each direction is accepted by one model and rejected by the other,
// and the shortest of them is a shortest distinguishing trace (mealy's
// Counterexample on independently normalised machines, and brute force).
func TestEveryMutationOfEveryExample(t *testing.T) {
	total, different, identity, longest := 0, 0, 0, 0
	for _, name := range exampleNames {
		t.Run(name, func(t *testing.T) {
			d := exampleDoc(t, name)
			m := machine(t, d)
			inputs := m.Inputs.Names()
			a := stepper{m, true}
			for _, mu := range mutations(m) {
				mm := m.Clone()
				mm.SetTransition(mu.q, mu.i, mu.out, mu.to)
				nd := model.FromMachine(name, model.SemanticsClosure, mm, nil)
				label := fmt.Sprintf("s%d %s: %s→%s becomes %s→s%d", mu.q, m.Inputs.Name(mu.i),
					m.Outputs.Name(m.Out[mu.q][mu.i]), d.Transitions[mu.q*len(inputs)+mu.i].To, m.Outputs.Name(mu.out), mu.to)
				r, err := Compare(d, nd, Options{})
				if err != nil {
					t.Fatalf("%s: %v", label, err)
				}
				total++
				nm := machine(t, nd)
				_, nids, _ := nd.Machine()
				_, oids, _ := d.Machine()
				b := stepper{nm, true}
				want := oracle(t, a, b, inputs)
				if r.SameBehaviour != (want == nil) || r.Same != (want == nil) {
					t.Fatalf("%s: same=%v, but the oracle's shortest difference is %v", label, r.SameBehaviour, wordNames(inputs, want))
				}
				brute := bruteShortest(a, b, inputs, min(len(want), bruteCap))
				if want == nil {
					if brute != 0 {
						t.Fatalf("%s: equivalent, but brute force tells them apart at length %d", label, brute)
					}
					continue
				}
				different++
				longest = max(longest, len(want))
				if brute != 0 && brute != len(want) || brute == 0 && len(want) <= bruteCap {
					t.Fatalf("%s: brute force's shortest %d, oracle's %d", label, brute, len(want))
				}
				shortest := 0
				for _, dir := range []struct {
					ws               Witnesses
					accepting, other stepper
					otherIDs         []string
				}{{r.OldOnly, a, b, nids}, {r.NewOnly, b, a, oids}} {
					prev := 0
					for k, w := range dir.ws.Traces {
						if len(w.Trace) < prev {
							t.Fatalf("%s: witnesses not shortest first: %v", label, dir.ws.Traces)
						}
						prev = len(w.Trace)
						if k == 0 {
							checkWitness(t, w, dir.accepting, dir.other, dir.otherIDs)
							if shortest == 0 || len(w.Trace) < shortest {
								shortest = len(w.Trace)
							}
						}
					}
				}
				if shortest != len(want) {
					t.Fatalf("%s: shortest witness has length %d, the shortest difference %d (%v)", label, shortest, len(want), wordNames(inputs, want))
				}
				// Every typestate edge is accounted for exactly once.
				td := r.Transitions
				if td.Unchanged+len(td.Changed)+len(td.Removed) != r.Old.Transitions ||
					td.Unchanged+len(td.Changed)+len(td.Added) != r.New.Transitions {
					t.Fatalf("%s: %d old and %d new edges, transitions %+v", label, r.Old.Transitions, r.New.Transitions, td)
				}
				if len(td.Changed)+len(td.Removed)+len(td.Added) == 0 {
					t.Fatalf("%s: different behaviour, but no transition changed", label)
				}
				if len(r.States.OnlyOld)+len(r.States.OnlyNew) == 0 && reflect.DeepEqual(oids, nids) {
					allSame := true
					for _, p := range r.States.Pairs {
						allSame = allSame && p.Old == p.New
					}
					if allSame {
						identity++
					}
				}
			}
		})
	}
	t.Logf("%d mutations, %d not equivalent (shortest witnesses up to %d long); %d of these matched state for state",
		total, different, longest, identity)
}

// The realistic case: MediaPlayer learned from the example model, and
// learned again from a variant where pause() in PlaybackCompleted is an
// error (testdata/diff/README.md). The reports in every format and the
// overlay DOT are golden files.
func TestMediaPlayerGolden(t *testing.T) {
	oldFile, newFile := "testdata/diff/mediaplayer.json", "testdata/diff/mediaplayer-pause-error.json"
	r, err := Compare(readDoc(t, goldenfile.Path(oldFile)), readDoc(t, goldenfile.Path(newFile)), Options{OldFile: oldFile, NewFile: newFile})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range Formats() {
		data, err := r.Write(f)
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "mediaplayer.diff."+map[string]string{FormatText: "txt", FormatMarkdown: "md", FormatJSON: "json"}[f], data)
	}
	dot, err := r.DOT()
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "mediaplayer.diff.dot", dot)

	// What the golden files say, asserted exactly.
	if r.Same || r.SameBehaviour || r.OldOnly.Total != 3 || r.NewOnly.Total != 0 {
		t.Fatalf("verdict: same %v, behaviour %v, %d/%d witnesses", r.Same, r.SameBehaviour, r.OldOnly.Total, r.NewOnly.Total)
	}
	w := r.OldOnly.Traces[0]
	if got := r.traceString(w.Trace); got != "setDataSource · prepare · wait/prepared · start · wait/completion · pause · start · wait/completion" {
		t.Fatalf("first witness %s", got)
	}
	if w.Other != (Transition{From: "s7", Output: "err", To: "s2", Err: w.Other.Err}) ||
		*w.Other.Err != (model.ErrInfo{Kind: model.ErrErrorCallback, Detail: "error"}) {
		t.Fatalf("other %+v %+v", w.Other, w.Other.Err)
	}
	td := r.Transitions
	want := []Change{{Input: "wait",
		Old: &Transition{From: "s9", Output: "completion", To: "s11"},
		New: &Transition{From: "s9", Output: "completion", To: "s8"}}}
	if !reflect.DeepEqual(td.Changed, want) || len(td.Removed)+len(td.Added) != 0 || td.Unchanged != 54 {
		t.Fatalf("transitions %+v", td)
	}
	// The JSON is the report itself.
	data, _ := r.JSON()
	var back Report
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	back.old, back.new, back.st = r.old, r.new, r.st
	if !reflect.DeepEqual(&back, r) {
		t.Fatal("the JSON does not round-trip")
	}
}

// A change that adds a state and one that removes one, on the example
// model (not minimal: Paused and PlaybackCompleted are separate states that
// answer alike): the matching pairs every state with itself and the
// structural view shows exactly the changed edge.
func TestStructureOfOneChange(t *testing.T) {
	d := exampleDoc(t, "mediaplayer")
	m := machine(t, d)
	ids := map[string]int{}
	for q, s := range d.States {
		ids[strings.Join(s.Access, " ")] = q
	}
	completed := ids["setDataSource prepare wait start wait"]
	errorPending := ids["setDataSource start"]
	pause, _ := m.Inputs.Index("pause")
	mm := m.Clone()
	mm.SetTransition(completed, pause, m.Out[completed][pause], errorPending)
	nd := model.FromMachine("mediaplayer", model.SemanticsClosure, mm, nil)
	r, err := Compare(d, nd, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range r.States.Pairs {
		if p.Old != p.New {
			t.Fatalf("matching %+v", r.States.Pairs)
		}
	}
	from := fmt.Sprintf("s%d", completed)
	want := []Change{{Input: "pause",
		Old: &Transition{From: from, Output: "ok", To: from},
		New: &Transition{From: from, Output: "ok", To: fmt.Sprintf("s%d", errorPending)}}}
	if !reflect.DeepEqual(r.Transitions.Changed, want) || len(r.Transitions.Removed)+len(r.Transitions.Added) != 0 {
		t.Fatalf("transitions %+v", r.Transitions)
	}
	if got := r.edgeString("pause", want[0].Old) + " / " + r.edgeString("pause", want[0].New); got != "s12 --pause--> s12 / s12 --pause--> s5" {
		t.Fatalf("edges %s", got)
	}
}

// alphabetVariant rebuilds a closure machine over other callins and
// callbacks: a callin of m missing from callins is dropped, one m lacks
// throws everywhere (to m's error sink), a wait that delivered a callback
// missing from callbacks sees nothing and stays.
func alphabetVariant(t *testing.T, m *mealy.Machine, callins []string, callbacks []string) *mealy.Machine {
	t.Helper()
	in, out, err := mealy.ClosureAlphabets(callins, callbacks)
	if err != nil {
		t.Fatal(err)
	}
	e, _ := m.Outputs.Index(mealy.Err)
	sink, ok := m.Sink(e)
	if !ok {
		t.Fatal("no error sink")
	}
	v := mealy.NewMachine(in, out, m.NumStates())
	v.Initial = m.Initial
	errOut, _ := out.Index(mealy.Err)
	quiet, _ := out.Index(mealy.Quiet)
	for k, name := range in.Names() {
		i, ok := m.Inputs.Index(name)
		for q := 0; q < m.NumStates(); q++ {
			if !ok {
				v.SetTransition(q, k, errOut, sink)
				continue
			}
			o, found := out.Index(m.Outputs.Name(m.Out[q][i]))
			if !found { // a callback no longer emitted: the wait sees nothing
				v.SetTransition(q, k, quiet, q)
				continue
			}
			v.SetTransition(q, k, o, m.Next[q][i])
		}
	}
	return v
}

func TestAlphabetChanges(t *testing.T) {
	d := exampleDoc(t, "countdowntimer")
	m := machine(t, d)
	cases := []struct {
		name               string
		callins, callbacks []string
		sameBehaviour      bool
		lines              []string
		oldOnly            string
	}{
		{"a callin added", []string{"start", "cancel", "pause"}, []string{"finished"}, true,
			[]string{"callin pause only in new", "behaviour compared on the shared callins only: start, cancel (and wait)"}, ""},
		{"a callin removed", []string{"start"}, []string{"finished"}, true,
			[]string{"callin cancel only in old", "behaviour compared on the shared callins only: start (and wait)"}, ""},
		{"a callback gone", []string{"start", "cancel"}, nil, false,
			[]string{"callback finished only in old"}, "start · wait/finished"},
		{"a callback added", []string{"start", "cancel"}, []string{"finished", "tick"}, true,
			[]string{"callback tick only in new"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			nd := model.FromMachine("countdowntimer", model.SemanticsClosure, alphabetVariant(t, m, c.callins, c.callbacks), nil)
			r, err := Compare(d, nd, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Same || r.SameBehaviour != c.sameBehaviour || !reflect.DeepEqual(r.alphabetLines(), c.lines) {
				t.Fatalf("same %v, behaviour %v, alphabet %q", r.Same, r.SameBehaviour, r.alphabetLines())
			}
			got := ""
			if len(r.OldOnly.Traces) > 0 {
				got = r.traceString(r.OldOnly.Traces[0].Trace)
			}
			if got != c.oldOnly || r.NewOnly.Total != 0 {
				t.Fatalf("old-only witness %q, %d new-only", got, r.NewOnly.Total)
			}
		})
	}
	// The text of the first case, exactly.
	nd := model.FromMachine("countdowntimer", model.SemanticsClosure, alphabetVariant(t, m, cases[0].callins, cases[0].callbacks), nil)
	r, err := Compare(d, nd, Options{OldFile: "old.json", NewFile: "new.json"})
	if err != nil {
		t.Fatal(err)
	}
	const want = `old: old.json: countdowntimer, 3 states, 5 transitions
new: new.json: countdowntimer, 3 states, 5 transitions
different: the alphabets differ; on the shared inputs the two models accept the same traces
  callin pause only in new
  behaviour compared on the shared callins only: start, cancel (and wait)

traces accepted by old, rejected by new: none

traces accepted by new, rejected by old: none

transitions under the best state matching: 5 unchanged, 0 changed, 0 removed, 0 added
  states (old=new): s0=s0 s1=s1 s3=s3
`
	if got := r.Text(); got != want {
		t.Fatalf("text:\n%s\nwant:\n%s", got, want)
	}
}

func TestCompareErrors(t *testing.T) {
	closure := exampleDoc(t, "countdowntimer")
	mealyDoc := readDoc(t, goldenfile.Path("testdata", "models", "vending-mealy.json"))
	_, err := Compare(closure, mealyDoc, Options{OldFile: "a.json", NewFile: "b.json"})
	want := "incompatible semantics: a.json is a closure model (callback typestate), b.json is a plain Mealy model; both must be closure models or both plain Mealy models"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	m := machine(t, closure)
	bad := m.Clone()
	wait, _ := m.Inputs.Index(mealy.Wait)
	ok, _ := m.Outputs.Index(mealy.OK)
	bad.SetTransition(0, wait, ok, 0)
	_, err = Compare(closure, model.FromMachine("bad", model.SemanticsClosure, bad, nil), Options{NewFile: "b.json"})
	if want := `b.json: state 0: "wait" answered "ok"; a wait answers a callback or "quiet"`; err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	// Models of unrelated classes share no callin: nothing to compare.
	other := model.FromMachine("other", model.SemanticsClosure, alphabetVariant(t, m, []string{"exec"}, []string{"finished"}), nil)
	_, err = Compare(closure, other, Options{OldFile: "a.json", NewFile: "b.json"})
	if want := "cannot compare a.json with b.json: they share no callins (old: start, cancel; new: exec), so no trace of one can be played on the other; are they models of the same class?"; err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	broken := *closure
	broken.Initial = "nowhere"
	_, err = Compare(&broken, closure, Options{})
	if want := `old model: initial state "nowhere" is not among the states`; err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	if _, err := (&Report{}).Write("html"); err == nil || err.Error() != `unknown format "html" (formats: text, markdown, json)` {
		t.Fatalf("got %v", err)
	}
	if _, err := (&Report{}).DOT(); err == nil {
		t.Fatal("a report without models drew a picture")
	}
}

// Plain Mealy models are compared as they are: every answer counts, and
// each divergence gives a witness both ways.
func TestPlainMealyModels(t *testing.T) {
	d := readDoc(t, goldenfile.Path("testdata", "models", "vending-mealy.json"))
	m := machine(t, d)
	mm := m.Clone()
	coin, _ := m.Inputs.Index("coin")
	nothing, _ := m.Outputs.Index("nothing")
	q := m.Next[m.Initial][coin]
	mm.SetTransition(q, coin, nothing, q)
	r, err := Compare(d, model.FromMachine("vending", model.SemanticsMealy, mm, nil), Options{OldFile: "a.json", NewFile: "b.json"})
	if err != nil {
		t.Fatal(err)
	}
	got := r.Text()
	const want = `old: a.json: vending, 3 states, 6 transitions
new: b.json: vending, 2 states, 4 transitions
different: the two models accept different traces

traces accepted by old, rejected by new:
  1. coin/credit(1) · coin/credit(2)
     new (in s1): coin → nothing

traces accepted by new, rejected by old:
  1. coin/credit(1) · coin/nothing
     old (in s1): coin → credit(2)

transitions under the best state matching: 3 unchanged, 1 changed, 2 removed, 0 added
  states (old=new): s1=s1 s0=s0; only in old: s2
  changed: s1 --coin/credit(2)--> s2  now  s1 --coin/nothing--> s1
  removed: s2 --coin/refund | credit(2)--> s2
  removed: s2 --button/coffee & change + receipt--> s0
`
	if got != want {
		t.Fatalf("text:\n%s\nwant:\n%s", got, want)
	}
}

// States only one model has are drawn in its colour, and so are their edges.
func TestOverlayDOTMarksUnmatchedStates(t *testing.T) {
	d := readDoc(t, goldenfile.Path("testdata", "models", "vending-mealy.json"))
	m := machine(t, d)
	mm := m.Clone()
	coin, _ := m.Inputs.Index("coin")
	nothing, _ := m.Outputs.Index("nothing")
	q := m.Next[m.Initial][coin]
	mm.SetTransition(q, coin, nothing, q)
	r, err := Compare(d, model.FromMachine("vending", model.SemanticsMealy, mm, nil), Options{})
	if err != nil {
		t.Fatal(err)
	}
	dot, err := r.DOT()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		`old_s2 [ color=red, fontcolor=red, label="s2", shape=ellipse, style=dashed ];`,
		`s1->old_s2[ color=red, fontcolor=red, label="coin / credit(2)", style=dashed ];`,
		`s1->s1[ color=forestgreen, fontcolor=forestgreen, label="coin / nothing" ];`,
		`old_s2->s0[ color=red, fontcolor=red, label="button / coffee & change + receipt", style=dashed ];`,
		`s0->s1[ label="coin / credit(1)" ];`,
	} {
		if !strings.Contains(string(dot), "\t"+line+"\n") {
			t.Errorf("DOT lacks %s:\n%s", line, dot)
		}
	}
}

// closureDoc builds an incomplete closure document from "from input output
// to" lines; omitted transitions throw.
func closureDoc(callins, callbacks []string, lines ...string) *model.Document {
	d := &model.Document{Format: model.Format, Version: model.Version, Name: "t", Semantics: model.SemanticsClosure,
		Inputs: append(append([]string{}, callins...), mealy.Wait), Outputs: append([]string{mealy.OK, mealy.Quiet, mealy.Err}, callbacks...),
		Initial: "s0"}
	seen := map[string]bool{}
	for _, l := range lines {
		f := strings.Fields(l)
		for _, s := range []string{f[0], f[3]} {
			if !seen[s] {
				seen[s] = true
				d.States = append(d.States, model.State{ID: s})
			}
		}
		d.Transitions = append(d.Transitions, model.Transition{From: f[0], Input: f[1], Output: f[2], To: f[3]})
	}
	return d
}

// The typestate reading of the closure, case by case.
func TestTypestateReading(t *testing.T) {
	in, cb := []string{"start", "cancel"}, []string{"done"}
	base := []string{"s0 start ok s1", "s0 cancel ok s0", "s0 wait quiet s0", "s1 cancel ok s0"}
	cases := []struct {
		name     string
		old, new []string
		oldOnly  string // first witness each way, "" for none
		newOnly  string
	}{
		{"a wait that errs is a quiet wait that stays",
			[]string{"s1 wait err s2"}, []string{"s1 wait quiet s1"}, "", ""},
		{"a quiet wait into an equivalent state stays",
			[]string{"s1 wait quiet s1"}, []string{"s1 wait quiet s3", "s3 cancel ok s0", "s3 wait quiet s3"}, "", ""},
		{"a quiet wait that moves is seen by both: time passes for both",
			[]string{"s1 wait quiet s3", "s3 start ok s3", "s3 cancel ok s0", "s3 wait quiet s3"}, []string{"s1 wait quiet s1"},
			"start · wait/quiet · start → new (in s1): start → err", ""},
		{"a callback against a quiet wait that stays: one way only",
			[]string{"s1 wait done s0"}, []string{"s1 wait quiet s1"}, "start · wait/done → new (in s1): wait → quiet", ""},
		{"a callback against a quiet wait that moves: both ways",
			[]string{"s1 wait done s0"}, []string{"s1 wait quiet s0"},
			"start · wait/done → new (in s1): wait → quiet", "start · wait/quiet → old (in s1): wait → done"},
		{"a callback against an error callback",
			[]string{"s1 wait done s0"}, []string{"s1 wait err s2"}, "start · wait/done → new (in s1): wait → err", ""},
	}
	first := func(r *Report, w Witnesses, other string) string {
		if len(w.Traces) == 0 {
			return ""
		}
		x := w.Traces[0]
		state := x.NewState
		if other == "old" {
			state = x.OldState
		}
		return fmt.Sprintf("%s → %s (in %s): %s", r.traceString(x.Trace), other, state, answerString(x.Trace[len(x.Trace)-1].Input, &x.Other))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := Compare(closureDoc(in, cb, append(base, c.old...)...), closureDoc(in, cb, append(base, c.new...)...), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if r.SameBehaviour != (c.oldOnly == "" && c.newOnly == "") {
				t.Fatalf("same behaviour %v", r.SameBehaviour)
			}
			if got := first(r, r.OldOnly, "new"); got != c.oldOnly {
				t.Errorf("old only: %q, want %q", got, c.oldOnly)
			}
			if got := first(r, r.NewOnly, "old"); got != c.newOnly {
				t.Errorf("new only: %q, want %q", got, c.newOnly)
			}
		})
	}
}
