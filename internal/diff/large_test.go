package diff

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	goldenfile "github.com/droidstar/droidstar/internal/golden"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
)

// behaviourOf is the behaviour comparison of two machines as Compare
// builds it.
func behaviourOf(t *testing.T, semantics string, a, b *mealy.Machine) (*side, *side, *behaviour) {
	t.Helper()
	o, err := newSide("old", "", model.FromMachine("old", semantics, a, nil))
	if err != nil {
		t.Fatal(err)
	}
	n, err := newSide("new", "", model.FromMachine("new", semantics, b, nil))
	if err != nil {
		t.Fatal(err)
	}
	return o, n, newBehaviour(o, n)
}

// The matching of large models weighs single pairs (agreementOf) and
// groups states by their answers (jointBlocks) instead of filling the
// grid; both must say what the grid says.
func TestAgreementOfOnePairIsTheGrids(t *testing.T) {
	cases := []struct {
		name      string
		semantics string
		a, b      *mealy.Machine
	}{
		{"random", model.SemanticsMealy, randomMealy(12, 1), randomMealy(9, 2)},
		{"mutated", model.SemanticsMealy, randomMealy(12, 1), mutate(randomMealy(12, 1), 5, 3)},
		{"mediaplayer", model.SemanticsClosure, machine(t, exampleDoc(t, "mediaplayer")), machine(t, exampleDoc(t, "countdowntimer"))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, b := behaviourOf(t, c.semantics, c.a, c.b)
			grid := b.agreement(agreementDepth)
			oldBlock, newBlock := b.jointBlocks(agreementDepth)
			ni := b.inputs.Size()
			top := agreementDepth * ni * ni * ni // every word of length 1..3 alike
			for p := range grid {
				for q := range grid[p] {
					if got := b.agreementOf(p, q, agreementDepth); got != grid[p][q] {
						t.Fatalf("agreementOf(%d, %d) = %d, grid says %d", p, q, got, grid[p][q])
					}
					if same := oldBlock[p] == newBlock[q]; same != (grid[p][q] == top) {
						t.Fatalf("(%d, %d): same block %v, agreement %d of %d", p, q, same, grid[p][q], top)
					}
				}
			}
		})
	}
}

// Above exactMatchPairs the matching is greedy. A large model against a
// copy with some outputs changed is matched state for state, and exactly
// the changed transitions are listed.
func TestGreedyMatchingOfLargeModels(t *testing.T) {
	const n = 200
	if n*n <= exactMatchPairs {
		t.Fatalf("%d states are matched exactly; the test wants the greedy matching", n)
	}
	old := randomMealy(n, 7)
	changed := old.Clone()
	var want []string
	for _, q := range []int{5, 77, 150} {
		changed.SetTransition(q, 3, (old.Out[q][3]+1)%old.Outputs.Size(), old.Next[q][3])
		want = append(want, fmt.Sprintf("s%d --d/%s--> s%d  now  s%d --d/%s--> s%d", q, old.Outputs.Name(old.Out[q][3]), old.Next[q][3],
			q, changed.Outputs.Name(changed.Out[q][3]), changed.Next[q][3]))
	}
	// FromMachine numbers states canonically (breadth-first), which
	// randomMealy's states already are.
	r, err := Compare(model.FromMachine("old", model.SemanticsMealy, old, nil), model.FromMachine("new", model.SemanticsMealy, changed, nil), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.States.Pairs) != n || len(r.States.OnlyOld)+len(r.States.OnlyNew) != 0 {
		t.Fatalf("%d pairs, only old %v, only new %v", len(r.States.Pairs), r.States.OnlyOld, r.States.OnlyNew)
	}
	for _, p := range r.States.Pairs {
		if p.Old != p.New {
			t.Fatalf("matched %s with %s", p.Old, p.New)
		}
	}
	var got []string
	for _, line := range strings.Split(r.Text(), "\n") {
		if s, ok := strings.CutPrefix(line, "  changed: "); ok {
			got = append(got, s)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("changed:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	td := r.Transitions
	if td.Unchanged != n*10-3 || len(td.Removed)+len(td.Added) != 0 {
		t.Fatalf("%d unchanged, %d removed, %d added", td.Unchanged, len(td.Removed), len(td.Added))
	}

	self, err := Compare(model.FromMachine("old", model.SemanticsMealy, old, nil), model.FromMachine("old", model.SemanticsMealy, old, nil), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !self.Same || self.Transitions.Unchanged != n*10 || len(self.Transitions.Changed) != 0 {
		t.Fatalf("a large model against itself: %s, %+v", self.Verdict(), self.Transitions)
	}
}

// When the product is larger than the search's budget, the search stops
// once it has every witness it shows: the witnesses are those of the full
// search, and the counts say "at least".
func TestSearchStopsAfterItsBudget(t *testing.T) {
	oldDoc := model.FromMachine("old", model.SemanticsMealy, randomMealy(60, 1), nil)
	newDoc := model.FromMachine("new", model.SemanticsMealy, randomMealy(60, 2), nil)
	full, err := Compare(oldDoc, newDoc, Options{OldFile: "a.json", NewFile: "b.json"})
	if err != nil {
		t.Fatal(err)
	}
	cut, err := Compare(oldDoc, newDoc, Options{OldFile: "a.json", NewFile: "b.json", budget: 100})
	if err != nil {
		t.Fatal(err)
	}
	if full.OldOnly.StoppedAfter != 0 || full.OldOnly.Total <= cut.OldOnly.Total {
		t.Fatalf("full search: stopped after %d, %d witnesses; cut: %d", full.OldOnly.StoppedAfter, full.OldOnly.Total, cut.OldOnly.Total)
	}
	// It stops at the first product state it takes from its queue once it
	// has met 100.
	stopped := cut.OldOnly.StoppedAfter
	if stopped < 100 || stopped >= 100+10 || cut.NewOnly.StoppedAfter != stopped {
		t.Fatalf("stopped after %d and %d, want 100 to 109", stopped, cut.NewOnly.StoppedAfter)
	}
	if !reflect.DeepEqual(cut.OldOnly.Traces, full.OldOnly.Traces) || !reflect.DeepEqual(cut.NewOnly.Traces, full.NewOnly.Traces) {
		t.Fatal("the search that stopped early gives other witnesses")
	}
	if cut.Same || cut.SameBehaviour {
		t.Fatalf("verdict: %s", cut.Verdict())
	}
	want := fmt.Sprintf("traces accepted by old, rejected by new: 3 shortest of at least %d (the search stopped after %d pairs of states)\n", cut.OldOnly.Total, stopped)
	if text := cut.Text(); !strings.Contains(text, want) {
		t.Fatalf("text:\n%s\nwant a line:\n%s", text, want)
	}
	want = fmt.Sprintf("The 3 shortest of at least %d (the search stopped after %d pairs of states):\n", cut.NewOnly.Total, stopped)
	if md := cut.Markdown(); !strings.Contains(md, want) {
		t.Fatalf("markdown:\n%s\nwant a line:\n%s", md, want)
	}
	js, err := cut.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(js), fmt.Sprintf(`"stopped_after": %d`, stopped)) {
		t.Fatalf("JSON without stopped_after:\n%.2000s", js)
	}
}

// The text and Markdown reports list listLimit transitions of each kind
// and count the rest; the JSON lists them all.
func TestReportsListAtMostTheLimit(t *testing.T) {
	r, err := Compare(model.FromMachine("old", model.SemanticsMealy, randomMealy(200, 1), nil),
		model.FromMachine("new", model.SemanticsMealy, randomMealy(200, 2), nil), Options{})
	if err != nil {
		t.Fatal(err)
	}
	changed := len(r.Transitions.Changed)
	if changed <= listLimit {
		t.Fatalf("%d changed transitions; the test wants more than %d", changed, listLimit)
	}
	count := func(text, prefix string) int {
		n := 0
		for _, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(line, prefix) {
				n++
			}
		}
		return n
	}
	text := r.Text()
	if n := count(text, "  changed: "); n != listLimit {
		t.Fatalf("text lists %d changed transitions, want %d", n, listLimit)
	}
	if want := fmt.Sprintf("\n  ... and %d more changed\n", changed-listLimit); !strings.Contains(text, want) {
		t.Fatalf("text has no line %q", want)
	}
	md := r.Markdown()
	if n := count(md, "| changed | `"); n != listLimit {
		t.Fatalf("markdown lists %d changed transitions, want %d", n, listLimit)
	}
	if want := fmt.Sprintf("\n| changed | ... and %d more | |\n", changed-listLimit); !strings.Contains(md, want) {
		t.Fatalf("markdown has no row %q", want)
	}
	js, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Transitions.Changed) != changed {
		t.Fatalf("JSON lists %d changed transitions, want %d", len(back.Transitions.Changed), changed)
	}
}

// WriteJSON streams the long lists into the encoding of the rest; the
// bytes must be those of encoding the report whole.
func TestWriteJSONIsTheWholeEncoding(t *testing.T) {
	mp := machine(t, exampleDoc(t, "mediaplayer"))
	mu := mutations(mp)[3]
	mp.SetTransition(mu.q, mu.i, mu.out, mu.to)
	cases := []struct {
		name     string
		old, new *model.Document
	}{
		{"same", exampleDoc(t, "mediaplayer"), exampleDoc(t, "mediaplayer")},
		{"examples", exampleDoc(t, "mediaplayer"), exampleDoc(t, "countdowntimer")},
		{"mutated", exampleDoc(t, "mediaplayer"), model.FromMachine("MediaPlayer", model.SemanticsClosure, mp, nil)},
		{"files", readDoc(t, goldenfile.Path("testdata", "diff", "mediaplayer.json")), readDoc(t, goldenfile.Path("testdata", "diff", "mediaplayer-pause-error.json"))},
		{"large", model.FromMachine("old", model.SemanticsMealy, randomMealy(120, 1), nil), model.FromMachine("new", model.SemanticsMealy, randomMealy(110, 2), nil)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := Compare(c.old, c.new, Options{OldFile: "old <&>.json", NewFile: "new.json"})
			if err != nil {
				t.Fatal(err)
			}
			whole, err := encodeJSON(r, "")
			if err != nil {
				t.Fatal(err)
			}
			streamed, err := r.JSON()
			if err != nil {
				t.Fatal(err)
			}
			if string(streamed) != string(whole) {
				t.Fatalf("streamed JSON differs from the whole encoding:\n%s\nwant:\n%s", streamed, whole)
			}
		})
	}
}
