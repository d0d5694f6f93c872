package export

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/awalterschulze/gographviz"

	goldenfile "github.com/droidstar/droidstar/internal/golden"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/model/modeltest"
)

// golden compares got with testdata/export/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, "export", name, got, "./internal/export")
}

// named builds a document from m and gives its states the names of m's
// states (FromMachine renumbers them breadth-first).
func named(name, semantics string, m *mealy.Machine, names []string, errInfo func(q, i int) *model.ErrInfo) *model.Document {
	d := model.FromMachine(name, semantics, m, errInfo)
	_, renum := m.Canonical()
	for q, n := range names {
		if renum[q] >= 0 && n != "" {
			d.States[renum[q]].Name = n
		}
	}
	return d
}

// asyncTask is an AsyncTask-like closure model: execute once, cancel any
// time; postexec or cancelled is delivered by a later wait. exec after the
// task ran throws; exec after cancel is excluded by a restriction.
func asyncTask(t *testing.T) *model.Document {
	t.Helper()
	callins, callbacks := []string{"exec", "cancel"}, []string{"postexec", "cancelled"}
	in, out, err := mealy.ClosureAlphabets(callins, callbacks)
	if err != nil {
		t.Fatal(err)
	}
	const exec, cancel, wait = 0, 1, 2
	const ok, quiet, errO, postexec, cancelled = 0, 1, 2, 3, 4
	const created, running, cancelling, done, sink = 0, 1, 2, 3, 4
	m := mealy.NewMachine(in, out, 5)
	m.SetTransition(created, exec, ok, running)
	m.SetTransition(created, cancel, ok, cancelling)
	m.SetTransition(created, wait, quiet, created)
	m.SetTransition(running, exec, errO, sink)
	m.SetTransition(running, cancel, ok, cancelling)
	m.SetTransition(running, wait, postexec, done)
	m.SetTransition(cancelling, exec, errO, sink)
	m.SetTransition(cancelling, cancel, ok, cancelling)
	m.SetTransition(cancelling, wait, cancelled, done)
	m.SetTransition(done, exec, errO, sink)
	m.SetTransition(done, cancel, ok, done)
	m.SetTransition(done, wait, quiet, done)
	for i := 0; i < 3; i++ {
		m.SetTransition(sink, i, errO, sink)
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	d := named("AsyncTask", model.SemanticsClosure, m, []string{"created", "running", "cancelling", "done", ""},
		func(q, i int) *model.ErrInfo {
			switch {
			case q == cancelling:
				return &model.ErrInfo{Kind: model.ErrExcluded, Detail: "restriction: exec must not follow cancel"}
			case q == running || q == done:
				return &model.ErrInfo{Kind: model.ErrThrown, Detail: "java.lang.IllegalStateException: Cannot execute task"}
			}
			return nil
		})
	d.Callins, d.Callbacks = callins, callbacks
	d.Bound = &model.Bound{Used: 2, LearnedNeeds: 1}
	d.Purpose = &model.PurposeInfo{Name: "asynctask", Class: "android.os.AsyncTask", File: "examples/asynctask/purpose.yaml", Fingerprint: "sha256:0123abcd"}
	d.Backend = &model.BackendInfo{Kind: "sim", Model: "examples/asynctask/model.json", Devices: []model.DeviceInfo{
		{Serial: "sim-0", Model: "simulated", SDK: 23}, {Serial: "sim-1", Model: "simulated", SDK: 23},
	}}
	d.Stats = &model.Stats{
		States: 4, EQs: 1,
		Learning:          model.PhaseStats{Asked: 48, CacheHits: 21, Excluded: 3, Executed: 24, Symbols: 71, DeviceSecs: 14.5},
		Equivalence:       model.PhaseStats{Asked: 324, CacheHits: 290, Excluded: 18, Executed: 16, Symbols: 58, DeviceSecs: 10.25},
		WallSecs:          0.0123,
		DeviceSecs:        24.75,
		EstimatedWallSecs: 13.5,
		VirtualClock:      true,
	}
	d.Warnings = []string{"sim-1: query exec cancel wait answered after 480 ms, close to the 500 ms quiescence timeout"}
	d.Tool = &model.ToolInfo{Name: "droidstar", Version: "0.1.0"}
	learned := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	d.Learned = &learned
	return d
}

// recognizer is a SpeechRecognizer-like closure model with two callins
// between the same states (merged edges) and a wait that times out but
// changes state (a quiet edge).
func recognizer(t *testing.T) *model.Document {
	t.Helper()
	callins, callbacks := []string{"start", "stop", "cancel"}, []string{"ready", "finished"}
	in, out, err := mealy.ClosureAlphabets(callins, callbacks)
	if err != nil {
		t.Fatal(err)
	}
	const start, stop, cancel, wait = 0, 1, 2, 3
	const ok, quiet, errO, ready, finished = 0, 1, 2, 3, 4
	const idle, starting, listening, stopping, sink = 0, 1, 2, 3, 4
	m := mealy.NewMachine(in, out, 5)
	set := func(q int, row [4][2]int) {
		for i, r := range row {
			m.SetTransition(q, i, r[0], r[1])
		}
	}
	set(idle, [4][2]int{{ok, starting}, {errO, sink}, {ok, idle}, {quiet, idle}})
	set(starting, [4][2]int{{errO, sink}, {ok, stopping}, {ok, stopping}, {ready, listening}})
	set(listening, [4][2]int{{errO, sink}, {ok, stopping}, {ok, idle}, {finished, idle}})
	set(stopping, [4][2]int{{errO, sink}, {ok, stopping}, {ok, stopping}, {quiet, idle}})
	set(sink, [4][2]int{{errO, sink}, {errO, sink}, {errO, sink}, {errO, sink}})
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	d := named("SpeechRecognizer-like", model.SemanticsClosure, m, []string{"idle", "starting", "listening", "stopping", ""},
		func(q, i int) *model.ErrInfo {
			if q == stopping {
				return &model.ErrInfo{Kind: model.ErrExcluded, Detail: "restriction: start at most twice"}
			}
			return &model.ErrInfo{Kind: model.ErrThrown}
		})
	d.Callins, d.Callbacks = callins, callbacks
	return d
}

// plainMealy is a three-state Mealy machine (no closure semantics) with two
// transitions between the same states.
func plainMealy(t *testing.T) *model.Document {
	t.Helper()
	m := mealy.NewMachine(mealy.MustAlphabet("a", "b"), mealy.MustAlphabet("x", "y"), 3)
	m.SetTransition(0, 0, 0, 1)
	m.SetTransition(0, 1, 1, 0)
	m.SetTransition(1, 0, 0, 2)
	m.SetTransition(1, 1, 1, 0)
	m.SetTransition(2, 0, 1, 0)
	m.SetTransition(2, 1, 1, 0)
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	d := model.FromMachine("counter", model.SemanticsMealy, m, nil)
	d.Backend = &model.BackendInfo{Kind: "sim", Model: "counter.dot"}
	d.Stats = &model.Stats{
		States: 3, EQs: 2,
		Learning:    model.PhaseStats{Asked: 18, Executed: 12, Symbols: 40},
		Equivalence: model.PhaseStats{Asked: 7, Executed: 7, Symbols: 21},
		WallSecs:    0.004,
	}
	return d
}

type dotCase struct {
	name        string
	doc         func(*testing.T) *model.Document
	opts        PictureOptions
	nodes, edge int // including the start node and its edge
}

var dotCases = []dotCase{
	{"asynctask", asyncTask, PictureOptions{}, 5, 8},
	{"asynctask-errors", asyncTask, PictureOptions{ShowErrors: true}, 6, 11},
	{"recognizer", recognizer, PictureOptions{}, 5, 10},
	{"recognizer-errors", recognizer, PictureOptions{ShowErrors: true}, 6, 14},
	{"mealy", plainMealy, PictureOptions{}, 4, 6},
	{"mealy-errors", plainMealy, PictureOptions{ShowErrors: true}, 4, 6}, // nothing to hide in a plain machine
}

func TestTypestateDOTGolden(t *testing.T) {
	for _, c := range dotCases {
		t.Run(c.name, func(t *testing.T) {
			d := c.doc(t)
			got, err := TypestateDOT(d, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			again, err := TypestateDOT(d, c.opts)
			if err != nil || !bytes.Equal(got, again) {
				t.Fatalf("output is not deterministic (err %v)", err)
			}
			golden(t, c.name+".dot", got)
			g := parseDOT(t, got)
			if n := len(g.Nodes.Nodes); n != c.nodes {
				t.Errorf("%d nodes, want %d", n, c.nodes)
			}
			if n := len(g.Edges.Edges); n != c.edge {
				t.Errorf("%d edges, want %d", n, c.edge)
			}
		})
	}
}

func parseDOT(t *testing.T, data []byte) *gographviz.Graph {
	t.Helper()
	ast, err := gographviz.ParseString(string(data))
	if err != nil {
		t.Fatalf("output does not parse as DOT: %v\n%s", err, data)
	}
	g := gographviz.NewGraph()
	if err := gographviz.Analyse(ast, g); err != nil {
		t.Fatalf("output does not analyse as DOT: %v", err)
	}
	if _, err := gographviz.Read(data); err != nil {
		t.Fatalf("gographviz.Read: %v", err)
	}
	return g
}

// edgesFrom returns the attributes of the edges src -> dst.
func edgesBetween(g *gographviz.Graph, src, dst string) []map[string]string {
	var out []map[string]string
	for _, e := range g.Edges.SrcToDsts[src][dst] {
		m := map[string]string{}
		for k, v := range e.Attrs {
			m[string(k)] = v
		}
		out = append(out, m)
	}
	return out
}

func TestTypestateDOTContent(t *testing.T) {
	d := asyncTask(t)
	data, err := TypestateDOT(d, PictureOptions{})
	if err != nil {
		t.Fatal(err)
	}
	g := parseDOT(t, data)
	// FromMachine numbers breadth-first: created s0, running s1,
	// cancelling s2, sink s3, done s4.
	if got := g.Nodes.Lookup["s0"].Attrs["label"]; got != `"created"` {
		t.Errorf("s0 is labelled %s, want created", got)
	}
	if got := g.Nodes.Lookup["s0"].Attrs["penwidth"]; got != "2" {
		t.Errorf("the initial state's outline is not bold: penwidth %q", got)
	}
	if got := g.Nodes.Lookup["s1"].Attrs["penwidth"]; got != "" {
		t.Errorf("a state other than the initial one has penwidth %q", got)
	}
	if g.Nodes.Lookup["s3"] != nil {
		t.Errorf("the error sink is drawn without ShowErrors")
	}
	if g.Nodes.Lookup[startNode].Attrs["shape"] != "point" || len(g.Edges.SrcToDsts[startNode]["s0"]) != 1 {
		t.Errorf("the initial state has no start arrow")
	}
	cb := edgesBetween(g, "s1", "s4")
	if len(cb) != 1 || cb[0]["label"] != `"postexec"` || cb[0]["arrowhead"] != "normalnormal" || cb[0]["color"] != `"blue:invis:blue"` {
		t.Errorf("callback edge running -> done: %v", cb)
	}
	if ci := edgesBetween(g, "s0", "s1"); len(ci) != 1 || ci[0]["label"] != `"exec"` || ci[0]["style"] != "" || ci[0]["color"] != "" || ci[0]["arrowhead"] != "" {
		t.Errorf("callin edge created -> running: %v", ci)
	}
	if self := edgesBetween(g, "s0", "s0"); len(self) != 0 {
		t.Errorf("wait/quiet self-loop drawn: %v", self)
	}
	if g.Attrs["rankdir"] != "LR" || !strings.Contains(g.Attrs["label"], "AsyncTask") || !strings.Contains(g.Attrs["label"], "callback (blue)") {
		t.Errorf("graph attributes %v", g.Attrs)
	}

	data, err = TypestateDOT(d, PictureOptions{ShowErrors: true})
	if err != nil {
		t.Fatal(err)
	}
	g = parseDOT(t, data)
	if s := g.Nodes.Lookup["s3"]; s == nil || s.Attrs["shape"] != "doublecircle" || s.Attrs["label"] != `"err"` {
		t.Fatalf("sink with ShowErrors: %v", s)
	}
	if e := edgesBetween(g, "s2", "s3"); len(e) != 1 || e[0]["label"] != `"exec (excluded)"` || e[0]["style"] != "dotted" {
		t.Errorf("excluded err edge cancelling -> sink: %v", e)
	}
	if e := edgesBetween(g, "s1", "s3"); len(e) != 1 || e[0]["label"] != `"exec"` || e[0]["color"] != "red" {
		t.Errorf("thrown err edge running -> sink: %v", e)
	}

	// Merged edges and the quiet edge of the recognizer.
	data, err = TypestateDOT(recognizer(t), PictureOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for _, want := range []string{`label="stop\ncancel"`, `label="quiet"`, "style=dashed"} {
		if !strings.Contains(s, want) {
			t.Errorf("recognizer DOT lacks %s:\n%s", want, s)
		}
	}
}

func TestDOTQuotesAwkwardNames(t *testing.T) {
	d := plainMealy(t)
	d.Name = `odd "graph"`
	d.States[0].Name = `a\b "c"`
	data, err := TypestateDOT(d, PictureOptions{})
	if err != nil {
		t.Fatal(err)
	}
	g := parseDOT(t, data)
	if got := g.Nodes.Lookup["s0"].Attrs["label"]; got != `"a\\b \"c\""` {
		t.Errorf("label %s", got)
	}
	for _, id := range []string{"graph", "1x", "a-b", "__start"} {
		if got := DOTID(id); got == id && id != "__start" {
			t.Errorf("DOTID(%q) left bare", id)
		}
	}
}

func TestSummaryGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		doc  func(*testing.T) *model.Document
	}{{"asynctask", asyncTask}, {"recognizer", recognizer}, {"mealy", plainMealy}} {
		t.Run(c.name, func(t *testing.T) {
			s := Summary(c.doc(t))
			golden(t, c.name+".summary.txt", []byte(s))
			if n := strings.Count(s, "\n"); n > 40 {
				t.Errorf("summary has %d lines", n)
			}
		})
	}
}

func TestSummaryContent(t *testing.T) {
	s := Summary(asyncTask(t))
	for _, want := range []string{
		"class android.os.AsyncTask",
		"4 states (+ error sink), 7 transitions",
		"created    --exec-->      running",
		"running    ==postexec==>  done",
		"372 (40)", // MQ asked (executed), both phases
		"324 (16)", // MQ per EQ
		"2 (1)",    // bound used (learned needs)
		"virtual device time 25 s (estimated wall time 14 s),", // device time on the virtual clock, and on its 2 lanes
		"129 symbols executed",
		"21 queries excluded",
		"311 cache hits",
		"3 err transitions left out: excluded 1, thrown 2",
		"bound: 2 used, the learned model needs 1; exact if the target needs bound <= 2\n",
		"warnings:",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
	if s := Summary(plainMealy(t)); !strings.Contains(s, "s2 --a / y--> s0") || !strings.Contains(s, "4 (4)") {
		t.Errorf("mealy summary:\n%s", s)
	}
	bad := asyncTask(t)
	bad.Initial = "nowhere"
	if s := Summary(bad); !strings.Contains(s, "invalid model") {
		t.Errorf("summary of a broken model:\n%s", s)
	}
}

func TestSeconds(t *testing.T) {
	for in, want := range map[float64]string{0: "0", 0.0123: "0.012", 0.0001: "<0.001", 0.5: "0.5", 4.56: "4.6", 48.8: "49", 3460.6: "3461"} {
		if got := seconds(in); got != want {
			t.Errorf("seconds(%v) = %q, want %q", in, got, want)
		}
	}
	if got := longSeconds(3460.6); got != "57m41s" {
		t.Errorf("longSeconds: %q", got)
	}
}

func TestJSONAndWrite(t *testing.T) {
	for _, c := range []struct {
		name string
		doc  func(*testing.T) *model.Document
	}{{"asynctask", asyncTask}, {"recognizer", recognizer}, {"mealy", plainMealy}} {
		t.Run(c.name, func(t *testing.T) {
			d := c.doc(t)
			data, err := JSON(d)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, c.name+".json", data)
			back, err := model.Unmarshal(data)
			if err != nil {
				t.Fatal(err)
			}
			again, _ := back.Marshal()
			if !bytes.Equal(again, data) {
				t.Errorf("JSON does not round-trip")
			}
			for _, f := range Formats() {
				if !IsFormat(f) || !strings.HasPrefix(Extension(f), ".") {
					t.Errorf("format %q: IsFormat %v, extension %q", f, IsFormat(f), Extension(f))
				}
				if Description(f) == "" {
					t.Errorf("format %q has no description", f)
				}
				out, err := Write(d, f, PictureOptions{Render: renderSVG})
				if (f == FormatLegacyDOT || f == FormatLifestate || f == FormatLifestateJSON) && d.Semantics != model.SemanticsClosure {
					if err == nil {
						t.Errorf("%s of a plain Mealy model: no error", f)
					}
					continue
				}
				if err != nil || len(out) == 0 {
					t.Errorf("Write %s: %v", f, err)
				}
			}
		})
	}
	_, err := Write(asyncTask(t), "png", PictureOptions{})
	if err == nil || !strings.Contains(err.Error(), "json, dot, svg, mermaid, legacy-dot, lifestate, lifestate-json, summary") {
		t.Errorf("unknown format: %v", err)
	}
	if IsFormat("png") || Extension("png") != "" {
		t.Errorf("png is not a format of this package")
	}
	if _, err := Write(asyncTask(t), FormatSVG, PictureOptions{}); err == nil || !strings.Contains(err.Error(), "no renderer") {
		t.Errorf("svg without a renderer: %v", err)
	}
	if _, err := TypestateDOT(nil, PictureOptions{}); err == nil {
		t.Errorf("nil document: no error")
	}
}

// TestIncompleteDocument draws a document whose err transitions and sink
// are omitted (Complete false): Document.Machine adds the sink back.
func TestIncompleteDocument(t *testing.T) {
	d := asyncTask(t)
	d.Complete = false
	var keep []model.Transition
	for _, tr := range d.Transitions {
		if tr.Output != mealy.Err {
			keep = append(keep, tr)
		}
	}
	d.Transitions = keep
	d.States = append(d.States[:3], d.States[4:]...) // s3 was the sink
	plain, err := TypestateDOT(d, PictureOptions{})
	if err != nil {
		t.Fatal(err)
	}
	full, err := TypestateDOT(asyncTask(t), PictureOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(plain, full) {
		t.Errorf("incomplete document draws differently:\n%s", plain)
	}
	withErr, err := TypestateDOT(d, PictureOptions{ShowErrors: true})
	if err != nil {
		t.Fatal(err)
	}
	g := parseDOT(t, withErr)
	if s := g.Nodes.Lookup["sink"]; s == nil || s.Attrs["shape"] != "doublecircle" || len(g.Edges.Edges) != 11 {
		t.Errorf("added sink not drawn:\n%s", withErr)
	}
	legacy, err := LegacyDOT(d)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := LegacyDOT(asyncTask(t))
	if !bytes.Equal(legacy, want) {
		t.Errorf("legacy DOT of the incomplete document:\n%s", legacy)
	}
}

// A run shared among devices says which devices and how many queries
// each ran; one device needs no count.
func TestSummaryDevices(t *testing.T) {
	d := asyncTask(t)
	owner, work := 0, 10
	d.Backend = &model.BackendInfo{Kind: "adb", Devices: []model.DeviceInfo{
		{Serial: "emulator-5554", Platform: "android", Model: "Google sdk_gphone64", Release: "14", SDK: 34, User: &owner, Queries: 21},
		{Serial: "R58M", Platform: "android", Model: "samsung SM-G991B", Release: "13", SDK: 33, User: &work, Queries: 19},
	}}
	want := "  backend adb, 2 devices: emulator-5554 (Google sdk_gphone64, Android 14, API 34) 21 queries, R58M (samsung SM-G991B, Android 13, API 33, user 10) 19 queries\n"
	if s := Summary(d); !strings.Contains(s, want) {
		t.Errorf("summary lacks %q:\n%s", want, s)
	}
	d.Backend.Devices = d.Backend.Devices[:1]
	if s := Summary(d); !strings.Contains(s, "  backend adb, 1 device: emulator-5554 (Google sdk_gphone64, Android 14, API 34)\n") {
		t.Errorf("one device:\n%s", s)
	}
}

// SVG refuses a picture too large to lay out, saying how large, without
// calling the renderer; a report leaves the picture out with the same words.
func TestSVGRefusesLargePictures(t *testing.T) {
	d, err := modeltest.Random(40, 10, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	// The SVG counts the arrows it would draw: bundles as one each,
	// self-loops (lines of their states) as none.
	dot, err := TypestateDOT(d, PictureOptions{Bundle: true})
	if err != nil {
		t.Fatal(err)
	}
	edges := strings.Count(string(dot), "->") - 1 // the start arrow is no edge of the graph
	rendered := false
	_, err = SVG(d, PictureOptions{Render: func([]byte) ([]byte, error) { rendered = true; return nil, nil }})
	want := fmt.Sprintf("svg: the picture would have 40 states and %d edges, more than the 200 edges droidstar lays out (Graphviz takes minutes on graphs this size); "+
		"draw it with 'droidstar export --format dot' and Graphviz's sfdp, or use --format mermaid", edges)
	if err == nil || err.Error() != want || rendered {
		t.Fatalf("error %v (rendered %v), want %s", err, rendered, want)
	}
	if edges <= MaxDrawnEdges {
		t.Fatalf("the model has only %d edges", edges)
	}
}

// A deep state's label shows the ends of its path around a count, so the
// picture of a long chain stays linear in its size.
func TestLongPathsAreElided(t *testing.T) {
	const n = 20
	m := mealy.NewMachine(mealy.MustAlphabet("a", "b"), mealy.MustAlphabet("x", "y"), n)
	for q := 0; q < n; q++ {
		m.SetTransition(q, 0, 0, (q+1)%n)
		m.SetTransition(q, 1, 1, 0)
	}
	d := model.FromMachine("chain", model.SemanticsMealy, m, nil)
	var b strings.Builder
	if err := WriteTo(&b, d, "mermaid", PictureOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"    s13: a · a · a · a · a · a · a · a · a · a · a · a · a\n",
		"    s14: a · a · a · a · a · a · … 2 more · a · a · a · a · a · a\n",
		"    s19: a · a · a · a · a · a · … 7 more · a · a · a · a · a · a\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("mermaid lacks %q:\n%s", want, b.String())
		}
	}
}

// The final check's re-runs are a line of their own, and in the totals.
func TestSummaryFinalCheck(t *testing.T) {
	d := asyncTask(t)
	if s := Summary(d); strings.Contains(s, "final check:") {
		t.Fatalf("a run without a final check shows one:\n%s", s)
	}
	d.Stats.Verification = model.PhaseStats{Asked: 9, Executed: 11, DeviceSecs: 4.5}
	s := Summary(d)
	for _, want := range []string{"final check: 9 asked again, 11 executed, device time 4.5 s", "381 (51)"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
}

// The bound line claims only what a check established: the bound check's
// guarantee, what a learned model needing more than the bound implies, and
// a comparison with a known target.
func TestBoundAndTargetText(t *testing.T) {
	differ := &model.TargetCheck{NeededBound: 3, Counterexample: &model.TargetCounterexample{Input: []string{"a"}}}
	tests := []struct {
		bound        *model.Bound
		target       *model.TargetCheck
		want, wantTC string
	}{
		{&model.Bound{Used: 2, LearnedNeeds: 1}, nil, "2 used, the learned model needs 1; exact if the target needs bound <= 2", ""},
		{&model.Bound{Used: 2, LearnedNeeds: 2}, nil, "2 used, the learned model needs 2; exact if the target needs bound <= 2", ""},
		{&model.Bound{Used: 2, LearnedNeeds: 3}, nil,
			"2 used, the learned model needs 3, more than the bound: the target needs more than 2 too, so the model may be wrong (try --bound 3)", ""},
		{&model.Bound{Used: 2, LearnedNeeds: 1}, &model.TargetCheck{Equal: true, NeededBound: 1},
			"2 used, the learned model needs 1", "the learned model equals the target, which needs bound 1"},
		{&model.Bound{Used: 2, LearnedNeeds: 0}, differ,
			"2 used, the learned model needs 0", "the learned model differs from the target, which needs bound 3 (see the warnings)"},
		{nil, &model.TargetCheck{Equal: true, NeededBound: 4, Perfect: true},
			"", "the learned model equals the target (perfect oracle), which needs bound 4"},
	}
	for _, tc := range tests {
		d := &model.Document{Bound: tc.bound, Target: tc.target}
		if got := BoundText(d); got != tc.want {
			t.Errorf("BoundText(%+v, %+v) = %q\nwant %q", tc.bound, tc.target, got, tc.want)
		}
		if tc.target != nil {
			if got := TargetText(tc.target); got != tc.wantTC {
				t.Errorf("TargetText(%+v) = %q\nwant %q", tc.target, got, tc.wantTC)
			}
		}
	}
}
