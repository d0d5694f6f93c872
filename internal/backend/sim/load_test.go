package sim

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/refdata"
)

const fixtures = "../../../testdata/models"

func fixture(name string) string { return filepath.Join(fixtures, name) }

// run feeds space-separated inputs to the machine and returns the outputs,
// space-separated (plain Mealy runs: no quiet-chain rule).
func run(t *testing.T, m *mealy.Machine, word string) string {
	t.Helper()
	w, err := m.Inputs.Word(strings.Fields(word)...)
	if err != nil {
		t.Fatalf("word %q: %v", word, err)
	}
	out, _ := m.Run(w)
	return m.Outputs.Format(out)
}

// wordIO is an input word and the outputs it must give.
type wordIO struct{ in, out string }

// The six typestates DroidStar learned in 2016, read from its own diagrams.
// State counts are those of the complete machine (the error sink, omitted
// from the diagrams, included). All six are minimal: no two states of any
// diagram are equivalent, as Minimize confirms below. The words were derived
// by hand from the diagrams.
func TestDroidStarDiagrams(t *testing.T) {
	droidstarDir := refdata.Require(t, "models", "droidstar-2016")
	tests := []struct {
		file      string
		extra     []string
		states    []string // state names in machine order
		inputs    string
		outputs   string
		minStates int
		words     []wordIO
	}{
		{
			file: "AsyncTask-NoGet", states: []string{"0", "1", "2", "4", "5", "sink"},
			inputs: "exec cancel wait", outputs: "ok quiet err postexec cancelled", minStates: 6,
			words: []wordIO{
				{"exec wait", "ok postexec"},
				{"cancel exec wait", "ok ok cancelled"},
				{"exec exec", "ok err"},
				{"exec exec cancel wait", "ok err err err"},
				{"wait exec cancel wait wait", "quiet ok ok cancelled quiet"},
				{"cancel cancel wait cancel", "ok ok cancelled ok"},
			},
		},
		{
			file: "CountDownTimer", states: []string{"0", "1", "3", "sink"},
			inputs: "start cancel wait", outputs: "ok quiet err finished", minStates: 4,
			words: []wordIO{
				{"start wait", "ok finished"},
				{"start start", "ok err"},
				{"cancel start cancel wait", "ok ok ok quiet"},
				{"start wait start", "ok finished err"},
			},
		},
		{
			file: "FileObserver", states: []string{"0", "1", "2", "4", "5", "6", "sink"},
			inputs: "stop modify delete wait", outputs: "ok quiet err modified deleted", minStates: 7,
			words: []wordIO{
				{"modify wait wait", "ok modified modified"},
				{"modify wait modify wait wait", "ok modified ok modified modified"},
				{"delete wait modify wait", "ok deleted ok quiet"},
				{"modify modify", "ok err"},
				{"stop wait delete wait", "ok quiet ok quiet"},
			},
		},
		{
			file: "SQLiteOpenHelper", extra: []string{"openHV"}, states: []string{"0", "1", "3", "4", "5", "6", "7", "8", "sink"},
			inputs: "openNew openLV openSV close openHV wait", outputs: "ok quiet err confd created opened upgrd", minStates: 9,
			words: []wordIO{
				{"openNew wait wait wait", "ok confd created opened"},
				{"openLV wait wait", "ok confd upgrd"},
				{"openSV wait wait close", "ok confd opened ok"},
				{"openHV", "err"},
				{"wait", "err"},
				{"openNew openNew", "ok err"},
				{"openNew close wait close wait", "ok ok confd ok quiet"},
			},
		},
		{
			file: "SpeechRecognizer", states: []string{"0", "1", "2", "4", "5", "6", "7", "sink"},
			inputs: "start stop cancel wait", outputs: "ok quiet err starting finished", minStates: 8,
			words: []wordIO{
				{"start wait wait", "ok starting finished"},
				{"start cancel start wait", "ok ok ok quiet"},
				{"start cancel wait start wait", "ok ok quiet ok starting"},
				{"stop start", "ok err"},
				{"start cancel stop", "ok ok err"},
			},
		},
		{
			file: "SpellCheckerSession", states: []string{"0", "1", "2", "4", "sink"},
			inputs: "close cancel suggest wait", outputs: "ok quiet err results", minStates: 5,
			words: []wordIO{
				{"suggest wait wait", "ok results quiet"},
				{"close suggest wait", "ok ok quiet"},
				{"suggest suggest", "ok err"},
				{"suggest close wait suggest", "ok ok quiet err"},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join(droidstarDir, tc.file+"-diagram.gv")
			m, err := LoadModel(path, "")
			if err != nil {
				t.Fatal(err)
			}
			if tc.extra != nil {
				if m, err = m.WithCallins(append(callinsOf(m), tc.extra...)); err != nil {
					t.Fatal(err)
				}
			}
			if m.Format != FormatDroidStarDOT || m.Semantics != model.SemanticsClosure || m.Path != path {
				t.Errorf("format %q, semantics %q, path %q", m.Format, m.Semantics, m.Path)
			}
			if !slices.Equal(m.StateNames, tc.states) || m.Machine.NumStates() != len(tc.states) {
				t.Errorf("states %v (%d in the machine), want %v", m.StateNames, m.Machine.NumStates(), tc.states)
			}
			if m.StateNames[m.Machine.Initial] != "0" {
				t.Errorf("initial state %q", m.StateNames[m.Machine.Initial])
			}
			if got := strings.Join(m.Machine.Inputs.Names(), " "); got != tc.inputs {
				t.Errorf("inputs %q, want %q", got, tc.inputs)
			}
			if got := strings.Join(m.Machine.Outputs.Names(), " "); got != tc.outputs {
				t.Errorf("outputs %q, want %q", got, tc.outputs)
			}
			if min := m.Machine.Minimize(); min.NumStates() != tc.minStates || m.Machine.IsMinimal() != (tc.minStates == len(tc.states)) {
				t.Errorf("minimal machine has %d states, want %d", min.NumStates(), tc.minStates)
			}
			errOut, _ := m.Machine.Outputs.Index(mealy.Err)
			if sink, ok := m.Machine.Sink(errOut); !ok || m.StateNames[sink] != "sink" {
				t.Errorf("no error sink named sink")
			}
			for _, w := range tc.words {
				if got := run(t, m.Machine, w.in); got != w.out {
					t.Errorf("%s: got %q, want %q", w.in, got, w.out)
				}
			}
			// The typestate of the machine has exactly the diagram's edges
			// minus its wait/quiet self-loops (a non-loop quiet edge stays).
			ts, err := m.Machine.Typestate()
			if err != nil {
				t.Fatal(err)
			}
			g, err := readDOT(path, mustRead(t, path))
			if err != nil {
				t.Fatal(err)
			}
			want := 0
			for _, e := range g.edges {
				if e.label != deltaQuiet || e.from != e.to {
					want++
				}
			}
			if len(ts.Edges) != want {
				t.Errorf("typestate has %d edges, want %d", len(ts.Edges), want)
			}
		})
	}
	// Without openHV, SQLiteOpenHelper's alphabet is the diagram's.
	m, err := LoadModel(filepath.Join(droidstarDir, "SQLiteOpenHelper-diagram.gv"), FormatDroidStarDOT)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(m.Machine.Inputs.Names(), " "); got != "openNew openLV openSV close wait" {
		t.Errorf("inputs without extra callins: %q", got)
	}
	// The purpose's callin order, openHV included, in which openHV throws.
	w, err := m.WithCallins([]string{"openNew", "openLV", "openSV", "openHV", "close"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(w.Machine.Inputs.Names(), " "); got != "openNew openLV openSV openHV close wait" || w.Machine.NumStates() != 9 {
		t.Errorf("inputs %q, %d states", got, w.Machine.NumStates())
	}
	if got := run(t, w.Machine, "openHV wait"); got != "err err" {
		t.Errorf("openHV wait answers %q", got)
	}
}

// callinsOf lists a closure model's callins in order.
func callinsOf(m *Model) []string {
	return slices.DeleteFunc(m.Machine.Inputs.Names(), func(s string) bool { return s == mealy.Wait })
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// The 13 public Mealy benchmarks load with the state and input counts AALpy
// reported, are minimal, and every edge gets the line it is on.
func TestMealyBenchmarks(t *testing.T) {
	benchDir := refdata.Require(t, "benchmarks", "mealy")
	f, err := os.Open(filepath.Join(benchDir, "aalpy-perfect-teacher.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type counts struct{ states, inputs int }
	want := map[string]counts{}
	var order []string
	sc := bufio.NewScanner(f)
	var header []string
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		cols := strings.Split(line, "\t")
		if header == nil {
			header = cols
			continue
		}
		row := map[string]string{}
		for k, h := range header {
			if k < len(cols) {
				row[h] = cols[k]
			}
		}
		s, err1 := strconv.Atoi(row["states"])
		i, err2 := strconv.Atoi(row["inputs"])
		if err1 != nil || err2 != nil {
			t.Fatalf("bad row %q", line)
		}
		if _, seen := want[row["model"]]; !seen {
			order = append(order, row["model"])
		}
		want[row["model"]] = counts{s, i}
	}
	if len(order) != 13 {
		t.Fatalf("%d models in the table, want 13", len(order))
	}
	files, _ := filepath.Glob(filepath.Join(benchDir, "*.dot"))
	if len(files) != 13 {
		t.Fatalf("%d .dot files, want 13", len(files))
	}
	for _, name := range order {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(benchDir, name+".dot")
			m, err := LoadModel(path, "")
			if err != nil {
				t.Fatal(err)
			}
			if m.Format != FormatMealyDOT || m.Semantics != model.SemanticsMealy {
				t.Errorf("format %q, semantics %q", m.Format, m.Semantics)
			}
			if got := (counts{m.Machine.NumStates(), m.Machine.Inputs.Size()}); got != want[name] {
				t.Errorf("states/inputs %v, want %v", got, want[name])
			}
			if !m.Machine.IsMinimal() {
				t.Errorf("not minimal")
			}
			if len(m.StateNames) != m.Machine.NumStates() || !strings.HasPrefix(m.StateNames[m.Machine.Initial], "s") {
				t.Errorf("state names %v, initial %d", m.StateNames, m.Machine.Initial)
			}
			data := mustRead(t, path)
			lines := strings.Split(string(data), "\n")
			g, err := readDOT(path, data)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range g.edges {
				if e.line < 1 || e.line > len(lines) {
					t.Fatalf("edge %s -> %s has line %d", e.from, e.to, e.line)
				}
				src := lines[e.line-1]
				if !strings.Contains(src, e.from) || !strings.Contains(src, "-> "+e.to) && !strings.Contains(src, "->"+e.to) {
					t.Fatalf("edge %s -> %s placed on line %d: %q", e.from, e.to, e.line, src)
				}
			}
		})
	}
	// Initial states not declared first, and labels padded with spaces.
	gnu, err := LoadModel(filepath.Join(benchDir, "GnuTLS_3.3.8_server_full.dot"), FormatMealyDOT)
	if err != nil {
		t.Fatal(err)
	}
	if gnu.StateNames[gnu.Machine.Initial] != "s9" {
		t.Errorf("GnuTLS initial state %q, want s9", gnu.StateNames[gnu.Machine.Initial])
	}
	tcp, err := LoadModel(filepath.Join(benchDir, "TCP_Linux_Client.dot"), "")
	if err != nil {
		t.Fatal(err)
	}
	if got := run(t, tcp.Machine, "CONNECT SYN+ACK(V,V,0)"); got != "SYN(FRESH,ZERO,0) ACK(NEXT,NEXT,0)" {
		t.Errorf("TCP client: %q", got)
	}
}

// The fixtures this package owns.
func TestFixtures(t *testing.T) {
	tests := []struct {
		file      string
		format    string
		semantics string
		states    []string
		initial   string
		inputs    string
		outputs   []string
		minStates int
		words     []wordIO
	}{
		{
			file: "player-closure.dot", format: FormatMealyDOT, semantics: model.SemanticsClosure,
			states: []string{"idle", "preparing", "prepared", "started", "done", "sink"}, initial: "idle",
			inputs: "prepare reset wait start", outputs: []string{"ok", "quiet", "err", "onPrepared", "onCompletion"}, minStates: 6,
			words: []wordIO{
				{"prepare wait start wait", "ok onPrepared ok onCompletion"},
				{"start", "err"},
				{"start reset", "err err"},
				{"prepare prepare", "ok err"},
				{"prepare wait start wait wait prepare wait", "ok onPrepared ok onCompletion quiet ok onPrepared"},
				{"prepare reset wait", "ok ok quiet"},
			},
		},
		{
			file: "player-closure.json", format: FormatJSON, semantics: model.SemanticsClosure,
			states: []string{"idle", "preparing", "prepared", "started", "done", "sink"}, initial: "idle",
			inputs: "prepare reset wait start", outputs: []string{"ok", "quiet", "err", "onPrepared", "onCompletion"}, minStates: 6,
			words: []wordIO{{"prepare wait start wait", "ok onPrepared ok onCompletion"}, {"start", "err"}},
		},
		{
			file: "vending-mealy.dot", format: FormatMealyDOT, semantics: model.SemanticsMealy,
			states: []string{"s1", "s2", "s0"}, initial: "s0", inputs: "coin button",
			outputs:   []string{"credit(2)", "nothing", "credit(1)", "refund | credit(2)", "coffee & change + receipt"},
			minStates: 3,
			words: []wordIO{
				{"button coin", "nothing credit(1)"},
			},
		},
		{
			// The automata wiki's label forms: HTML labels with a line per
			// transition, and inputs sharing an output joined by " | ".
			file: "turnstile-wiki.dot", format: FormatMealyDOT, semantics: model.SemanticsMealy,
			states: []string{"s0", "s1", "s2"}, initial: "s0", inputs: "coin push ping peek kick",
			outputs:   []string{"unlock", "blocked", "<red>", "alarm & jam", "refund", "<green>", "pong", "lock", "alarm & lock", "jammed"},
			minStates: 3,
			words: []wordIO{
				{"push ping peek coin", "blocked blocked <red> unlock"},
				{"coin coin peek ping push", "unlock refund <green> pong lock"},
				{"coin kick coin", "unlock alarm & lock unlock"},
				{"kick coin push kick ping peek", "alarm & jam jammed jammed jammed jammed jammed"},
			},
		},
		{
			file: "download-droidstar.gv", format: FormatDroidStarDOT, semantics: model.SemanticsClosure,
			states: []string{"0", "1", "2", "4", "5", "sink"}, initial: "0",
			inputs: "enqueue remove wait", outputs: []string{"ok", "quiet", "err", "progress", "complete"},
			minStates: 5, // states 4 (completed) and 5 (removed) are equivalent
			words: []wordIO{
				{"enqueue wait wait wait", "ok progress complete quiet"},
				{"enqueue remove wait enqueue", "ok ok quiet err"},
				{"remove", "err"},
			},
		},
		{
			file: "download-droidstar.json", format: FormatJSON, semantics: model.SemanticsClosure,
			states: []string{"0", "1", "2", "4", "5", "sink"}, initial: "0",
			inputs: "enqueue remove wait", outputs: []string{"ok", "quiet", "err", "progress", "complete"},
			minStates: 5,
			words:     []wordIO{{"enqueue wait wait wait", "ok progress complete quiet"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			m, err := LoadModel(fixture(tc.file), "auto")
			if err != nil {
				t.Fatal(err)
			}
			if m.Format != tc.format || m.Semantics != tc.semantics {
				t.Errorf("format %q, semantics %q; want %q, %q", m.Format, m.Semantics, tc.format, tc.semantics)
			}
			if !slices.Equal(m.StateNames, tc.states) || m.StateNames[m.Machine.Initial] != tc.initial {
				t.Errorf("states %v, initial %q; want %v, %q", m.StateNames, m.StateNames[m.Machine.Initial], tc.states, tc.initial)
			}
			if got := strings.Join(m.Machine.Inputs.Names(), " "); got != tc.inputs {
				t.Errorf("inputs %q, want %q", got, tc.inputs)
			}
			if got := m.Machine.Outputs.Names(); !slices.Equal(got, tc.outputs) {
				t.Errorf("outputs %q, want %q", got, tc.outputs)
			}
			if got := m.Machine.Minimize().NumStates(); got != tc.minStates {
				t.Errorf("minimal machine has %d states, want %d", got, tc.minStates)
			}
			for _, w := range tc.words {
				if got := run(t, m.Machine, w.in); got != w.out {
					t.Errorf("%s: got %q, want %q", w.in, got, w.out)
				}
			}
		})
	}
	// The same explicit format loads the same model.
	for file, format := range map[string]string{
		"player-closure.dot": FormatMealyDOT, "download-droidstar.gv": FormatDroidStarDOT, "vending-mealy.json": FormatJSON,
	} {
		if m, err := LoadModel(fixture(file), format); err != nil || m.Format != format {
			t.Errorf("%s as %s: %v", file, format, err)
		}
	}
}

// player-closure-quirks.dot is player-closure.dot in every DOT oddity that
// real model files use; it must read exactly the same.
func TestDOTQuirks(t *testing.T) {
	clean, err := LoadModel(fixture("player-closure.dot"), "")
	if err != nil {
		t.Fatal(err)
	}
	quirks, err := LoadModel(fixture("player-closure-quirks.dot"), "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(clean.StateNames, quirks.StateNames) || !clean.Machine.Inputs.Equal(quirks.Machine.Inputs) ||
		!clean.Machine.Outputs.Equal(quirks.Machine.Outputs) {
		t.Fatalf("states %v / %v, inputs %v / %v, outputs %v / %v", clean.StateNames, quirks.StateNames,
			clean.Machine.Inputs.Names(), quirks.Machine.Inputs.Names(), clean.Machine.Outputs.Names(), quirks.Machine.Outputs.Names())
	}
	if w, differ, err := clean.Machine.Counterexample(quirks.Machine); differ || err != nil {
		t.Fatalf("the quirky file differs on %v (%v)", clean.Machine.Inputs.Format(w), err)
	}
	// The lexer keeps every line where it was, so edges keep their lines.
	data := mustRead(t, fixture("player-closure-quirks.dot"))
	g, err := readDOT("quirks", data)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	for _, e := range g.edges {
		src := lines[e.line-1]
		if !strings.Contains(src, e.from) {
			t.Errorf("edge %s -> %s placed on line %d: %q", e.from, e.to, e.line, src)
		}
	}
	if n := normalizeDOT(string(data)); strings.Count(n.src, "\n") != strings.Count(string(data), "\n") {
		t.Errorf("normalising changed the number of lines")
	}
}

// A machine read from JSON equals the one read from DOT for the same model,
// and writing any loaded model as a JSON document reads back equal.
func TestRoundTrip(t *testing.T) {
	for _, pair := range [][2]string{
		{"player-closure.dot", "player-closure.json"},
		{"player-closure-quirks.dot", "player-closure.json"},
		{"vending-mealy.dot", "vending-mealy.json"},
		{"download-droidstar.gv", "download-droidstar.json"},
	} {
		dot, err := LoadModel(fixture(pair[0]), "")
		if err != nil {
			t.Fatal(err)
		}
		js, err := LoadModel(fixture(pair[1]), "")
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := dot.Machine.Equivalent(js.Machine); !ok || err != nil {
			t.Errorf("%s and %s differ (%v)", pair[0], pair[1], err)
		}
		if dot.Semantics != js.Semantics || !slices.Equal(sorted(dot.StateNames), sorted(js.StateNames)) {
			t.Errorf("%s and %s: semantics %q / %q, states %v / %v", pair[0], pair[1], dot.Semantics, js.Semantics, dot.StateNames, js.StateNames)
		}
	}
	paths, _ := filepath.Glob(fixture("*"))
	var shared []string
	if dir := refdata.Dir(); dir != "" {
		shared = []string{filepath.Join(dir, "models", "droidstar-2016"), filepath.Join(dir, "benchmarks", "mealy")}
	}
	for _, dir := range shared {
		gv, _ := filepath.Glob(filepath.Join(dir, "*.gv"))
		dot, _ := filepath.Glob(filepath.Join(dir, "*.dot"))
		paths = append(append(paths, gv...), dot...)
	}
	for _, p := range paths {
		if strings.HasPrefix(filepath.Base(p), "bad-") {
			continue
		}
		m, err := LoadModel(p, "")
		if err != nil {
			t.Fatal(err)
		}
		data, err := model.FromMachine("rt", m.Semantics, m.Machine, nil).Marshal()
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseModel(p+".json", data, "")
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		canon, _ := m.Machine.Canonical()
		if ok, err := m.Machine.Equivalent(back.Machine); !ok || err != nil || back.Machine.NumStates() != canon.NumStates() {
			t.Errorf("%s: the JSON round trip changed the machine (%v)", p, err)
		}
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func TestWithCallins(t *testing.T) {
	m, err := LoadModel(fixture("download-droidstar.gv"), "")
	if err != nil {
		t.Fatal(err)
	}
	c, err := m.WithCallins([]string{"remove", "pause", "enqueue"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.Machine.Inputs.Names(), " "); got != "remove pause enqueue wait" {
		t.Errorf("inputs %q", got)
	}
	if !slices.Equal(c.StateNames, m.StateNames) || c.Format != m.Format || c.Semantics != m.Semantics {
		t.Errorf("states %v, format %q, semantics %q", c.StateNames, c.Format, c.Semantics)
	}
	if got := run(t, c.Machine, "enqueue wait pause remove"); got != "ok progress err err" {
		t.Errorf("enqueue wait pause remove: %q", got)
	}
	if m.Machine.Inputs.Size() != 3 {
		t.Errorf("the original model changed")
	}
	// Leaving callins out restricts the model to the others.
	r, err := m.WithCallins([]string{"enqueue"})
	if err != nil {
		t.Fatal(err)
	}
	if got := run(t, r.Machine, "enqueue wait wait enqueue"); got != "ok progress complete err" || r.Machine.Inputs.Size() != 2 {
		t.Errorf("restricted: %q over %v", got, r.Machine.Inputs.Names())
	}
	// A closure model without a sink gets one.
	p, err := ParseModel("p", []byte("digraph {\n a -> a [label=\"go / ok\"]\n a -> a [label=\"wait / quiet\"]\n}"), "")
	if err != nil {
		t.Fatal(err)
	}
	if p, err = p.WithCallins([]string{"go", "stop"}); err != nil || !slices.Equal(p.StateNames, []string{"a", "sink"}) {
		t.Errorf("states %v (%v)", p.StateNames, err)
	}
	for _, tc := range []struct {
		file    string
		callins []string
		want    string
	}{
		{"vending-mealy.dot", []string{"coin"}, `the model is a plain Mealy machine (no "wait" input): it has no callins to set`},
		{"download-droidstar.gv", nil, "no callins given"},
		{"download-droidstar.gv", []string{"enqueue", "wait"}, `callin "wait": a callin needs a name other than "wait"`},
		{"download-droidstar.gv", []string{"enqueue", "enqueue"}, `callins: duplicate symbol "enqueue"`},
	} {
		m, err := LoadModel(fixture(tc.file), "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.WithCallins(tc.callins); err == nil || err.Error() != fixture(tc.file)+": "+tc.want {
			t.Errorf("%s %v: got %v, want %s", tc.file, tc.callins, err, tc.want)
		}
	}
}

// Exact errors, from fixture files and inline sources.
func TestLoadErrors(t *testing.T) {
	files := []struct{ file, format, want string }{
		{"bad-empty.dot", "", "empty file"},
		{"bad-duplicate.dot", "", `line 7: state "s0" has two transitions on input "a": a / y -> s0 here and a / x -> s1 at line 2`},
		{"bad-incomplete.dot", "", `state "s1" has no transition on input "b"; a plain Mealy model must be complete ` +
			`(only a closure model, one with a "wait" input, may omit transitions, which then answer "err")`},
		{"bad-syntax.dot", "", `line 4, column 1: DOT syntax error at "}", want an ID`},
		{"bad-undirected.dot", "", `line 1: not a digraph: the graph is undirected ("graph"); a model is a "digraph" with "->" edges`},
		{"bad-ambiguous.dot", "", `cannot tell the model's format: no edge label has mealy-dot's "input / output" form, ` +
			`and there are neither delta_ labels nor only numbered states as in DroidStar's diagrams; ` +
			`name the model's format: droidstar-dot, mealy-dot or json`},
		{"bad-ambiguous.dot", FormatMealyDOT, `line 2, column 26: label "start" of edge idle -> running has no '/'; mealy-dot labels read "input / output"`},
		{"bad-state-number.gv", "", `line 5: state "done" is not a number: DroidStar's diagrams number their states, 0 being the initial state (is this a mealy-dot model?)`},
		{"bad-unknown-field.json", "", `line 8, column 27: json: unknown field "acess"`},
		{"vending-mealy.dot", FormatDroidStarDOT, `line 2: state "s1" is not a number: DroidStar's diagrams number their states, 0 being the initial state (is this a mealy-dot model?)`},
		{"download-droidstar.gv", FormatMealyDOT, `line 2, column 16: label "enqueue" of edge 0 -> 1 has no '/'; mealy-dot labels read "input / output"`},
		{"download-droidstar.gv", FormatJSON, `line 1, column 1: invalid character 'd' looking for beginning of value`},
		{"player-closure.dot", "dot", `unknown model format "dot" (want droidstar-dot, mealy-dot, json or auto)`},
	}
	for _, tc := range files {
		_, err := LoadModel(fixture(tc.file), tc.format)
		if want := fixture(tc.file) + ": " + tc.want; err == nil || err.Error() != want {
			t.Errorf("%s as %q:\n got %v\nwant %s", tc.file, tc.format, err, want)
		}
	}
	if _, err := LoadModel(fixture("no-such-model.dot"), ""); !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}

	inline := []struct{ name, src, format, want string }{
		{"blank", " \n\t\n", "", "empty file"},
		{"comments-only", "// nothing\n/* at all */\n", "", "empty file"},
		{"prose", "hello world", "", `line 1: not a DOT digraph: it starts with "hello", want "digraph {" (or a JSON model starting with '{')`},
		{"no-edges", "digraph {}", "", "no edges: a model needs transitions"},
		{"no-edges-mealy", "digraph { s0 }", FormatMealyDOT, "no edges: a model needs transitions"},
		{"no-edges-droidstar", "digraph { 0 }", FormatDroidStarDOT, "no edges: a model needs transitions"},
		{"no-labels", "digraph { a -> b }", "", "cannot tell the model's format: no edge has a label; name the model's format: droidstar-dot, mealy-dot or json"},
		{"undirected-op", "digraph {\n s0 -- s1 [label=\"a/b\"]\n}", "", `line 2: undirected edge "--" in a digraph; use "->"`},
		{"unterminated", "digraph {\n a -> b [label=\"x / y]\n}\n", "", `line 2, column 16: DOT syntax error at an unterminated string, want an ID`},
		{"unclosed", "digraph {\n a -> b [label=\"x / y\"]\n", "", `line 3, column 1: DOT syntax error at end of file, want "graph" or "{" or "}" or ";" or "node" or "edge" or "[" or "subgraph" or an ID`},
		{"trailing", "digraph {\n a -> a [label=\"x / y\"]\n}\ndigraph {}\n", "", `line 4, column 1: DOT syntax error at "digraph", want end of file`},
		{"no-input", "digraph {\n a -> b [label=\" / y\"]\n}", "", `line 2, column 16: label " / y" of edge a -> b has no input before the '/'`},
		{"no-output", "digraph {\n a -> b [label=\"x /  \"]\n}", "", `line 2, column 16: label "x /  " of edge a -> b has no output after the '/'`},
		{"html-no-slash", "digraph {\n a -> a [label=<x / y<br />z>]\n}", "",
			`line 2, column 16: label <x / y<br />z> of edge a -> a: line 2 of it, "z", has no '/'; mealy-dot labels read "input / output"`},
		{"html-no-output", "digraph {\n a -> a\n  [color=red,\n   label=<x / y<br/>z /  >]\n}", "",
			`line 4, column 10: label <x / y<br/>z /  > of edge a -> a: line 2 of it, "z /  ", has no output after the '/'`},
		{"html-tag", "digraph {\n a -> a [label=<x / <b>y</b>>]\n}", FormatMealyDOT,
			`line 2, column 16: label <x / <b>y</b>> of edge a -> a has the HTML tag <b>; only <br/> line breaks are read in a label`},
		{"html-empty", "digraph {\n a -> a [label=<<br/> <br/>>]\n}", FormatMealyDOT,
			`line 2, column 16: label <<br/> <br/>> of edge a -> a has no "input / output" line`},
		{"empty-input", "digraph {\n a -> b -> a [label=\"x |  | y / z\"]\n}", "",
			`line 2, column 21: label "x |  | y / z" of edge a -> b has an empty input among the ones joined by " | "`},
		{"default-label", "digraph {\n edge [label=\"x\"]\n a -> a\n}", FormatMealyDOT,
			`line 3: label "x" of edge a -> a has no '/'; mealy-dot labels read "input / output"`},
		{"html-two-transitions", "digraph {\n a -> a [label=<x / y<br/>x / z>]\n}", "",
			`line 2: state "a" has two transitions on input "x": x / z -> a here and x / y -> a at line 2`},
		{"no-label-mealy", "digraph {\n a -> b [label=\"x / y\"]\n b -> a\n}", "", `line 3: edge b -> a has no label; mealy-dot labels read "input / output"`},
		{"two-initial", "digraph {\n __start0 -> a\n a -> b [label=\"x / y\"]\n b -> a [label=\"x / y\"]\n __start0 -> b\n}", "",
			`line 5: two initial states: "b" here and "a" at line 2`},
		{"into-start", "digraph {\n __start0 -> a\n a -> __start0 [label=\"x / y\"]\n}", "",
			`line 3: edge a -> __start0 leads into the start marker "__start0", which is not a state`},
		{"closure-callin", "digraph {\n a -> b [label=\"wait / quiet\"]\n b -> a [label=\"go / started\"]\n}", "",
			`line 3: callin "go" answers "started"; in a closure model (one with a "wait" input) a callin answers "ok" or "err"`},
		{"closure-wait-ok", "digraph {\n a -> b [label=\"go / ok\"]\n b -> a [label=\"wait / ok\"]\n}", "",
			`line 3: "wait" answers "ok"; in a closure model a wait answers a callback, "quiet" or "err"`},
		{"mealy-two-missing", "digraph {\n a -> b [label=\"x / y\"]\n b -> a [label=\"z / y\"]\n}", "",
			`state "a" has no transition on input "z" (and 1 more missing transitions); a plain Mealy model must be complete ` +
				`(only a closure model, one with a "wait" input, may omit transitions, which then answer "err")`},
		{"ds-no-label", "digraph {\n 0 -> 1\n 1 -> 0 [label=a]\n}", "", `line 2: edge 0 -> 1 has no label; DroidStar labels an edge with a callin or delta_<callback>`},
		{"ds-slash", "digraph {\n 0 -> 1 [label=a]\n 1 -> 0 [label=\"b/c\"]\n}", FormatDroidStarDOT,
			`line 3: label "b/c" has a '/', which DroidStar's dialect never has (is this a mealy-dot model?)`},
		{"ds-space", "digraph {\n 0 -> 1 [label=\"a b\"]\n}", "", `line 2: label "a b" has spaces; DroidStar's symbols are single words`},
		{"ds-delta", "digraph {\n 0 -> 1 [label=a]\n 1 -> 0 [label=delta_]\n}", "", `line 3: label "delta_" names no callback`},
		{"ds-delta-err", "digraph {\n 0 -> 1 [label=a]\n 1 -> 0 [label=delta_err]\n}", "",
			`line 3: label "delta_err": callback "err" clashes with the closure output of that name`},
		{"ds-wait", "digraph {\n 0 -> 1 [label=a]\n 1 -> 0 [label=wait]\n}", "",
			`line 3: label "wait": a callin cannot be called "wait", the closure's own input (a wait is labelled delta_<callback> or delta_beta)`},
		{"ds-no-0", "digraph {\n 1 -> 2 [label=a]\n}", "", "there is no state 0, DroidStar's initial state"},
		{"ds-dup", "digraph {\n 0 -> 1 [label=a]\n 1 -> 0 [label=delta_x]\n 1 -> 1 [label=delta_y]\n}", "",
			`line 4: state "1" has two transitions on input "wait": wait / y -> 1 here and wait / x -> 0 at line 3`},
		{"ds-callin-callback", "digraph {\n 0 -> 1 [label=done]\n 1 -> 0 [label=delta_done]\n}", "",
			""}, // a callin and a callback may share a name: different alphabets
		{"json-syntax", "{\"format\": \"droidstar-model\",\n \"version\": 1,\n \"inputs\": [\"a\"}", "",
			`line 3, column 16: invalid character '}' after array element`},
		{"json-type", "{\"format\": \"droidstar-model\",\n \"version\": 1,\n \"inputs\": [1]}", "",
			`line 3, column 13: json: cannot unmarshal number into Go struct field Document.inputs of type string`},
		{"json-format", `{"format": "aalpy", "version": 1}`, "", `format is "aalpy", want "droidstar-model"`},
		{"json-machine", `{"format": "droidstar-model", "version": 1, "semantics": "mealy", "inputs": ["a"], "outputs": ["x"], "initial": "s9", "states": [{"id": "s0"}], "complete": true}`,
			"", `initial state "s9" is not among the states`},
	}
	for _, tc := range inline {
		_, err := ParseModel(tc.name, []byte(tc.src), tc.format)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if want := tc.name + ": " + tc.want; err == nil || err.Error() != want {
			t.Errorf("%s:\n got %v\nwant %s", tc.name, err, want)
		}
		if _, ok := err.(*LoadError); err != nil && !ok {
			t.Errorf("%s: error of type %T, want *LoadError", tc.name, err)
		}
	}
}

func TestDetection(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"m.json", "  \n{\"format\": \"droidstar-model\", \"version\": 1, \"semantics\": \"mealy\", \"inputs\": [\"a\"], \"outputs\": [\"x\"], " +
			"\"initial\": \"s0\", \"states\": [{\"id\": \"s0\"}], \"transitions\": [{\"from\": \"s0\", \"input\": \"a\", \"output\": \"x\", \"to\": \"s0\"}], \"complete\": true}", FormatJSON},
		{"bom", "\uFEFF{\"format\": \"droidstar-model\", \"version\": 1, \"semantics\": \"mealy\", \"inputs\": [\"a\"], \"outputs\": [\"x\"], " +
			"\"initial\": \"s0\", \"states\": [{\"id\": \"s0\"}], \"transitions\": [{\"from\": \"s0\", \"input\": \"a\", \"output\": \"x\", \"to\": \"s0\"}], \"complete\": true}", FormatJSON},
		{"m", "digraph { 0 -> 0 [label=\"a / b\"] }", FormatMealyDOT},
		{"m", "digraph { 0 -> 0 [label=a] }", FormatDroidStarDOT},
		{"m", "digraph { a -> b [label=go]; b -> b [label=delta_went] }", ""},                // delta_ but names: droidstar-dot, which rejects "a"
		{"m", "digraph { __start0 -> s0; s0 -> s0 [label=\"wait/quiet\"] }", FormatMealyDOT}, // closure mealy-dot
		{"m", "digraph { __start0 -> 0; 0 -> 0 [label=go] }", ""},
	}
	for _, tc := range tests {
		m, err := ParseModel(tc.name, []byte(tc.src), "")
		switch {
		case tc.want == "" && err == nil:
			t.Errorf("%s: detected %s, want an error", tc.src, m.Format)
		case tc.want != "" && err != nil:
			t.Errorf("%s: %v", tc.src, err)
		case tc.want != "" && m.Format != tc.want:
			t.Errorf("%s: detected %s, want %s", tc.src, m.Format, tc.want)
		}
	}
}

// An added error sink never takes the name of a state of the file, and an
// explicit sink in a closure model is used as the error sink.
func TestSinkNames(t *testing.T) {
	m, err := ParseModel("m", []byte("digraph {\n sink -> b [label=\"go / ok\"]\n b -> sink [label=\"wait / done\"]\n}"), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(m.StateNames) != 3 || m.StateNames[2] == "sink" || slices.Contains(m.StateNames[:2], m.StateNames[2]) {
		t.Errorf("state names %v", m.StateNames)
	}
	m, err = ParseModel("m", []byte("digraph {\n a -> dead [label=\"go / err\"]\n a -> a [label=\"wait / quiet\"]\n a -> a [label=\"stop / ok\"]\n"+
		" dead -> dead [label=\"go / err\"]\n dead -> dead [label=\"wait / err\"]\n}"), "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.StateNames, []string{"a", "dead"}) {
		t.Errorf("state names %v", m.StateNames)
	}
	if got := run(t, m.Machine, "stop go stop"); got != "ok err err" {
		t.Errorf("stop go stop: %q", got)
	}
}

// Loading is safe from several goroutines (the race detector watches).
func TestConcurrentLoads(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for k := 0; k < 16; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			file := []string{"player-closure.dot", "player-closure-quirks.dot", "vending-mealy.dot", "download-droidstar.gv"}[k%4]
			if _, err := LoadModel(fixture(file), ""); err != nil {
				errs <- fmt.Errorf("%s: %w", file, err)
			}
		}(k)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// Graphviz reads U+FFFD like any other character; gographviz's lexer took
// it for a decoding failure and reported an unterminated string (found by
// FuzzDecodeExport: a document whose name had an invalid byte, which JSON
// decodes as U+FFFD, exported as DOT).
func TestDOTReplacementChar(t *testing.T) {
	src := "digraph {\n\"s\uFFFD\" -> \"t\" [label=\"a\uFFFD / x\"];\n\"t\" -> \"t\" [label=\"a\uFFFD / y\"];\n__start0 -> \"s\uFFFD\";\n}\n"
	m, err := ParseModel("fffd.dot", []byte(src), FormatAuto)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Machine.Inputs.Names(); !slices.Equal(got, []string{"a\uFFFD"}) {
		t.Fatalf("inputs %q", got)
	}
	if got := m.StateNames; !slices.Equal(got, []string{"s\uFFFD", "t"}) {
		t.Fatalf("states %q", got)
	}
	if got := run(t, m.Machine, "a\uFFFD a\uFFFD"); got != "x y" {
		t.Fatalf("outputs %q", got)
	}
	// A private-use character already in the file is not taken as the stand-in.
	src = strings.Replace(src, "\"t\"", "\"\uE000\"", -1)
	if m, err = ParseModel("fffd.dot", []byte(src), FormatAuto); err != nil {
		t.Fatal(err)
	}
	if got := m.StateNames; !slices.Equal(got, []string{"s\uFFFD", "\uE000"}) {
		t.Fatalf("states %q", got)
	}
}

// Without a start marker the first state the file names is initial,
// whether a node statement or an edge names it first.
func TestMealyDOTWithoutStartMarker(t *testing.T) {
	for _, c := range []struct{ src, initial string }{
		{"digraph g { b; a -> b [label=\"x / y\"]; b -> a [label=\"x / z\"]; }", "b"},
		{"digraph g { a -> b [label=\"x / y\"]; b -> a [label=\"x / z\"]; }", "a"},
	} {
		m, err := ParseModel("m.dot", []byte(c.src), FormatMealyDOT)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := m.Machine.Run(m.Machine.Inputs.MustWord("x"))
		want := map[string]string{"a": "y", "b": "z"}[c.initial]
		if got := m.Machine.Outputs.Name(out[0]); got != want {
			t.Errorf("%s: x answers %s, want %s (initial %s)", c.src, got, want, c.initial)
		}
	}
}
