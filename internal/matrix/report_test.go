package matrix

import "testing"

func TestOutcome(t *testing.T) {
	yes, no := true, false
	learned := func(name string, same *bool) *Result {
		return &Result{Target: Target{Name: name}, Learned: true, Same: same}
	}
	failed := &Result{Target: Target{Name: "f"}, Error: "no device"}
	uncompared := &Result{Target: Target{Name: "u"}, Learned: true, Error: "compare with a: alphabets"}
	for _, tc := range []struct {
		name    string
		targets []*Result
		want    Outcome
	}{
		{"one target", []*Result{learned("a", &yes)}, AllSame},
		{"all same", []*Result{learned("a", &yes), learned("b", &yes)}, AllSame},
		{"one differs", []*Result{learned("a", &yes), learned("b", &yes), learned("c", &no)}, Different},
		{"one failed", []*Result{learned("a", &yes), failed}, Failed},
		{"failed beats different", []*Result{learned("a", &yes), learned("c", &no), failed}, Failed},
		{"not compared", []*Result{learned("a", &yes), uncompared}, Failed},
		{"baseline failed", []*Result{failed, learned("b", nil)}, Failed},
	} {
		r := &Report{Baseline: tc.targets[0].Name, Targets: tc.targets}
		if got := r.Outcome(); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Markdown escapes what would end a table cell; the text table prints
// what it is given.
func TestRenderEscapesCells(t *testing.T) {
	yes, no := true, false
	r := &Report{Purpose: "p|q.yaml", Baseline: "a", Targets: []*Result{
		{Target: Target{Name: "a"}, Learned: true, States: 3, Transitions: 5, Same: &yes},
		{Target: Target{Name: "b"}, Error: "open x|y.dot: no such file"},
		{Target: Target{Name: "c"}, Learned: true, States: 2, Transitions: 1, Same: &no, FirstDifference: "start · wait/a|b"},
		{Target: Target{Name: "d"}, Learned: true, States: 3, Transitions: 5, Error: "compare with a: boom"},
	}}
	wantMD := "# Typestate matrix: p|q.yaml\n\nBaseline: a.\n\n" +
		"| target | states | transitions | same as a | first differing trace |\n|---|---|---|---|---|\n" +
		"| a | 3 | 5 | baseline |  |\n" +
		"| b | - | - | failed | open x\\|y.dot: no such file |\n" +
		"| c | 2 | 1 | no | `start · wait/a\\|b` |\n" +
		"| d | 3 | 5 | not compared | compare with a: boom |\n"
	if got := r.Markdown(); got != wantMD {
		t.Errorf("markdown:\n%s\nwant:\n%s", got, wantMD)
	}
	wantTable := "target  states  transitions  vs a\n" +
		"a            3            5  baseline\n" +
		"b            -            -  failed: open x|y.dot: no such file\n" +
		"c            2            1  different: start · wait/a|b\n" +
		"d            3            5  not compared: compare with a: boom\n"
	if got := r.Table(); got != wantTable {
		t.Errorf("table:\n%s\nwant:\n%s", got, wantTable)
	}
}
