package export

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/refdata"
)

// sameAsDroidStar are the diagrams whose states DroidStar numbered
// breadth-first, as LegacyDOT does.
var sameAsDroidStar = map[string]bool{"AsyncTask-NoGet": true, "CountDownTimer": true, "SpeechRecognizer": true}

var legacyDiagrams = []string{
	"AsyncTask-NoGet", "CountDownTimer", "FileObserver",
	"SQLiteOpenHelper", "SpeechRecognizer", "SpellCheckerSession",
}

var legacyEdgeRE = regexp.MustCompile(`^\s*(\d+)\s*->\s*(\d+)\s*\[\s*label\s*=\s*"?([^"\]]+?)"?\s*\]\s*;?\s*$`)

type legacyEdge struct {
	from, to int
	label    string
}

// parseLegacy is a minimal reader of DroidStar's dialect, enough for the
// round trip: it completes the machine with an error sink (missing edge
// means err) and returns the file's state numbers by machine state (-1 for
// the added sink).
func parseLegacy(t *testing.T, text string) (*mealy.Machine, []int, []legacyEdge) {
	t.Helper()
	var edges []legacyEdge
	var callins, callbacks []string
	seen := map[string]bool{}
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line == "}" || strings.HasPrefix(line, "digraph") {
			continue
		}
		mt := legacyEdgeRE.FindStringSubmatch(line)
		if mt == nil {
			t.Fatalf("line %d: not an edge: %q", n+1, line)
		}
		from, _ := strconv.Atoi(mt[1])
		to, _ := strconv.Atoi(mt[2])
		edges = append(edges, legacyEdge{from, to, mt[3]})
		if seen[mt[3]] {
			continue
		}
		seen[mt[3]] = true
		switch cb, isWait := strings.CutPrefix(mt[3], "delta_"); {
		case !isWait:
			callins = append(callins, mt[3])
		case cb != "beta":
			callbacks = append(callbacks, cb)
		}
	}
	in, out, err := mealy.ClosureAlphabets(callins, callbacks)
	if err != nil {
		t.Fatal(err)
	}
	m := mealy.NewMachine(in, out, 0)
	index := map[int]int{}
	var numbers []int
	state := func(n int) int {
		if q, ok := index[n]; ok {
			return q
		}
		index[n] = m.AddState()
		numbers = append(numbers, n)
		return index[n]
	}
	m.Initial = state(0)
	wait, _ := in.Index(mealy.Wait)
	for _, e := range edges {
		q, to := state(e.from), state(e.to)
		i, o := wait, 0
		switch cb, isWait := strings.CutPrefix(e.label, "delta_"); {
		case !isWait:
			i, _ = in.Index(e.label)
			o, _ = out.Index(mealy.OK)
		case cb == "beta":
			o, _ = out.Index(mealy.Quiet)
		default:
			o, _ = out.Index(cb)
		}
		if m.Next[q][i] >= 0 {
			t.Fatalf("state %d has two edges on %s", e.from, in.Name(i))
		}
		m.SetTransition(q, i, o, to)
	}
	names := make([]string, m.NumStates())
	if names = model.CompleteWithSink(m, names); len(names) > len(numbers) {
		numbers = append(numbers, -1)
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	return m, numbers, edges
}

// TestLegacyDOTRoundTrip reads each of DroidStar's six diagrams, writes it
// back in the dialect from a model document, reads that again, and checks
// that the machines are equivalent and that the edges are DroidStar's own
// up to the numbering of the states.
func TestLegacyDOTRoundTrip(t *testing.T) {
	dir := refdata.Require(t, "models", "droidstar-2016")
	for _, name := range legacyDiagrams {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, name+"-diagram.gv"))
			if err != nil {
				t.Skip(err)
			}
			orig, origNums, origEdges := parseLegacy(t, string(data))
			d := model.FromMachine(name, model.SemanticsClosure, orig, nil)
			out, err := LegacyDOT(d)
			if err != nil {
				t.Fatal(err)
			}
			checkLegacyShape(t, out)
			parseDOT(t, out)
			// DroidStar's run found these states breadth-first, so the
			// numbering reproduces its file exactly.
			if sameAsDroidStar[name] && string(out) != string(data) {
				t.Errorf("want DroidStar's file byte for byte:\n%s\ngot:\n%s", data, out)
			}
			back, backNums, backEdges := parseLegacy(t, string(out))
			if eq, err := orig.Equivalent(back); err != nil || !eq {
				w, _, _ := orig.Counterexample(back)
				t.Fatalf("round trip changed the machine (err %v); they differ on %s\n%s", err, orig.Inputs.Format(w), out)
			}
			if len(backEdges) != len(origEdges) {
				t.Fatalf("%d edges written, DroidStar has %d", len(backEdges), len(origEdges))
			}
			// The same edges up to renumbering: pair the states of the
			// two machines (deterministic, so walking them together
			// gives the isomorphism) and map DroidStar's numbers.
			iso := pairStates(t, orig, back)
			renum := map[int]int{}
			for q, n := range origNums {
				if n >= 0 {
					renum[n] = backNums[iso[q]]
				}
			}
			mapped := make([]string, len(origEdges))
			for k, e := range origEdges {
				mapped[k] = legacyLine(legacyEdge{renum[e.from], renum[e.to], e.label})
			}
			written := make([]string, len(backEdges))
			for k, e := range backEdges {
				written[k] = legacyLine(e)
			}
			sort.Strings(mapped)
			sort.Strings(written)
			if strings.Join(mapped, "\n") != strings.Join(written, "\n") {
				t.Errorf("edges differ from DroidStar's after renumbering:\n%s\nvs\n%s", strings.Join(mapped, "\n"), strings.Join(written, "\n"))
			}
			if sum := Summary(d); strings.Count(sum, "\n") > 40 {
				t.Errorf("summary of %s has more than 40 lines:\n%s", name, sum)
			}
			// Written again from the re-read machine: a fixed point.
			again, err := LegacyDOT(model.FromMachine(name, model.SemanticsClosure, back, nil))
			if err != nil || string(again) != string(out) {
				t.Errorf("second round trip differs (err %v):\n%s", err, again)
			}
		})
	}
}

func legacyLine(e legacyEdge) string {
	return strconv.Itoa(e.from) + " -> " + strconv.Itoa(e.to) + " " + e.label
}

// pairStates maps the states of a to the states of b reached by the same
// words (inputs matched by name).
func pairStates(t *testing.T, a, b *mealy.Machine) map[int]int {
	t.Helper()
	iso := map[int]int{a.Initial: b.Initial}
	queue := []int{a.Initial}
	for len(queue) > 0 {
		q := queue[0]
		queue = queue[1:]
		for i := 0; i < a.Inputs.Size(); i++ {
			j, ok := b.Inputs.Index(a.Inputs.Name(i))
			if !ok {
				t.Fatalf("input %s missing after the round trip", a.Inputs.Name(i))
			}
			qa, qb := a.Next[q][i], b.Next[iso[q]][j]
			if prev, seen := iso[qa]; seen {
				if prev != qb {
					t.Fatalf("the machines are not isomorphic")
				}
				continue
			}
			iso[qa] = qb
			queue = append(queue, qa)
		}
	}
	return iso
}

var legacyLineRE = regexp.MustCompile(`^  \d+ -> \d+\[label=[A-Za-z_][A-Za-z0-9_]*\];$`)

// checkLegacyShape checks the exact layout DroidStar wrote.
func checkLegacyShape(t *testing.T, out []byte) {
	t.Helper()
	s := string(out)
	if !strings.HasPrefix(s, "digraph {\n") || !strings.HasSuffix(s, "\n}\n") {
		t.Fatalf("not DroidStar's frame:\n%s", s)
	}
	lines := strings.Split(strings.TrimSuffix(strings.TrimPrefix(s, "digraph {\n"), "}\n"), "\n")
	lines = lines[:len(lines)-1] // after the last edge's newline
	last := -1
	for _, l := range lines {
		if !legacyLineRE.MatchString(l) {
			t.Errorf("line %q is not in DroidStar's form", l)
			continue
		}
		from, _ := strconv.Atoi(strings.Fields(l)[0])
		if from < last {
			t.Errorf("edges not ordered by source state at %q", l)
		}
		last = from
	}
}

func TestLegacyDOTGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		doc  func(*testing.T) *model.Document
	}{{"asynctask", asyncTask}, {"recognizer", recognizer}} {
		t.Run(c.name, func(t *testing.T) {
			d := c.doc(t)
			out, err := LegacyDOT(d)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, c.name+".legacy.gv", out)
			checkLegacyShape(t, out)
			parseDOT(t, out)
			m, _, err := d.Machine()
			if err != nil {
				t.Fatal(err)
			}
			back, _, _ := parseLegacy(t, string(out))
			if eq, err := m.Equivalent(back); err != nil || !eq {
				t.Errorf("legacy DOT does not read back as the model (err %v)", err)
			}
		})
	}
}

func TestLegacyDOTRefuses(t *testing.T) {
	if _, err := LegacyDOT(plainMealy(t)); err == nil || !strings.Contains(err.Error(), "closure") {
		t.Errorf("plain Mealy model: %v", err)
	}
	in, out, err := mealy.ClosureAlphabets([]string{"delta_x"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := mealy.NewMachine(in, out, 1)
	m.SetTransition(0, 0, 0, 0)
	m.SetTransition(0, 1, 1, 0)
	if _, err := LegacyDOT(model.FromMachine("x", model.SemanticsClosure, m, nil)); err == nil {
		t.Errorf("a callin named delta_x was written")
	}
	in, out, err = mealy.ClosureAlphabets([]string{"go"}, []string{"beta"})
	if err != nil {
		t.Fatal(err)
	}
	m = mealy.NewMachine(in, out, 1)
	m.SetTransition(0, 0, 0, 0)
	m.SetTransition(0, 1, 3, 0)
	if _, err := LegacyDOT(model.FromMachine("x", model.SemanticsClosure, m, nil)); err == nil {
		t.Errorf("a callback named beta was written")
	}
}
