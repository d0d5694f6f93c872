package purpose

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

var (
	goodDir = filepath.Join("..", "..", "testdata", "purposes", "good")
	badDir  = filepath.Join("..", "..", "testdata", "purposes", "bad")
)

// WantErrors reads the expected error of a bad purpose file: its leading
// "# want: " comment lines, one per error, with FILE standing for the path
// the file is loaded by and DIR for that path's directory. It lives here,
// not in a helper package, because only tests use it; a CLI test can copy
// these few lines.
func wantErrors(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "# want: ")
		if !ok {
			break
		}
		line = strings.Replace(line, "FILE", path, 1)
		line = strings.ReplaceAll(line, "DIR", filepath.Dir(path))
		want = append(want, line)
	}
	if len(want) == 0 {
		t.Fatalf("%s: no leading \"# want: \" line", path)
	}
	return strings.Join(want, "\n")
}

func TestBadFiles(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(badDir, "*.yaml"))
	if err != nil || len(files) < 40 {
		t.Fatalf("bad purposes: %d files, %v", len(files), err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			want := wantErrors(t, path)
			p, err := Load(path)
			if err == nil {
				t.Fatalf("Load succeeded: %+v", p)
			}
			if p != nil {
				t.Errorf("Load returned a purpose with the error")
			}
			if got := err.Error(); got != want {
				t.Errorf("error\n got: %s\nwant: %s", got, want)
			}
			var list ErrorList
			if !errors.As(err, &list) || len(list) != strings.Count(want, "\n")+1 {
				t.Fatalf("errors.As(ErrorList) = %v, %d errors", list, len(list))
			}
			var first *Error
			if !errors.As(err, &first) || first != list[0] {
				t.Errorf("errors.As(*Error) does not give the first error")
			}
			for _, e := range list {
				if e.File != path || e.Line < 1 || e.Col < 1 || e.Msg == "" {
					t.Errorf("incomplete error %#v", e)
				}
			}
		})
	}
}

// Parse checks no files: the missing model is Load's to report.
func TestParseTouchesNoFiles(t *testing.T) {
	path := filepath.Join(badDir, "missing-model.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse(path, data)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(badDir, "models", "asynctask.dot"); p.Backend.Sim.ModelPath != want {
		t.Errorf("ModelPath = %q, want %q", p.Backend.Sim.ModelPath, want)
	}
}

func TestLoadUnreadable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none.yaml")
	_, err := Load(path)
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load(%s) = %v, want a not-exist error", path, err)
	}
	var list ErrorList
	if errors.As(err, &list) {
		t.Errorf("an unreadable file is not a purpose error: %v", err)
	}
}

func TestLoadModelIsDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "m"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "p.yaml")
	if err := os.WriteFile(path, []byte("name: x\ncallins: [a]\nbackend: {sim: {model: m}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	want := path + ":3:24: backend.sim.model: is a directory, not a model file: " + filepath.Join(dir, "m")
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

func TestGoodFiles(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		file string
		want Purpose
	}{
		{"asynctask.yaml", Purpose{
			Name:        "AsyncTask-NoGet",
			Class:       "android.os.AsyncTask",
			Description: "AsyncTask without get(): execute, cancel, and the callbacks\nthey cause.\n",
			Callins:     []Callin{{Symbol: "exec", Pos: Pos{8, 5}}, {Symbol: "cancel", Pos: Pos{9, 5}}},
			Callbacks: []Callback{
				{Symbol: "postexec", Pos: Pos{11, 5}},
				{Symbol: "cancelled", From: []string{"onCancelled", "onCancelledResult"}, Pos: Pos{12, 5}},
				{Symbol: "failed", Error: true, Pos: Pos{14, 5}},
			},
			Timeouts: Timeouts{Quiescence: 750 * ms, Settle: 0, PostReset: time.Second},
			Bound:    3,
			Restrictions: []Restriction{
				{Kind: AtMost, Count: 1, Symbols: []string{"exec"}, Pos: Pos{22, 5}},
				{Kind: First, Symbols: []string{"exec", "wait"}, Pos: Pos{24, 5}},
				{Kind: FollowedByWait, Symbols: []string{"cancel"}, Pos: Pos{25, 5}},
			},
			RestrictionsPos: Pos{21, 1}, BackendPos: Pos{26, 1},
			Backend: Backend{Kind: BackendSim, Kinds: []string{BackendSim}, Sim: &SimBackend{
				Model:          "asynctask.dot",
				ModelPath:      filepath.Join(goodDir, "asynctask.dot"),
				ModelPos:       Pos{28, 12},
				Format:         "droidstar-dot",
				Latency:        map[string]time.Duration{"postexec": 120 * ms, "onCancelledResult": 5 * ms},
				DefaultLatency: 20 * ms,
				Realtime:       true,
			}},
		}},
		{"minimal.yaml", Purpose{
			Name:       "Minimal",
			Callins:    []Callin{{Symbol: "start", Pos: Pos{3, 11}}},
			Timeouts:   Timeouts{Quiescence: DefaultQuiescence, Settle: DefaultSettle, PostReset: DefaultPostReset},
			Bound:      DefaultBound,
			BackendPos: Pos{4, 1},
			Backend: Backend{Kind: BackendSim, Kinds: []string{BackendSim}, Sim: &SimBackend{
				Model:          "asynctask.dot",
				ModelPath:      filepath.Join(goodDir, "asynctask.dot"),
				ModelPos:       Pos{6, 12},
				Format:         "auto",
				DefaultLatency: DefaultLatency,
			}},
		}},
		{"countdowntimer.yaml", Purpose{
			Name:            "CountDownTimer",
			Class:           "android.os.CountDownTimer",
			Callins:         []Callin{{Symbol: "start", Pos: Pos{5, 5}}, {Symbol: "cancel", Pos: Pos{6, 5}}},
			Callbacks:       []Callback{{Symbol: "finished", Pos: Pos{8, 5}}},
			Timeouts:        Timeouts{Quiescence: 2 * time.Second, Settle: DefaultSettle, PostReset: DefaultPostReset},
			Bound:           DefaultBound,
			Restrictions:    []Restriction{{Kind: AtMost, Count: 1, Symbols: []string{"start"}, Pos: Pos{12, 5}}},
			RestrictionsPos: Pos{11, 1}, BackendPos: Pos{14, 1},
			Backend: Backend{Kind: BackendSim, Kinds: []string{BackendSim}, Sim: &SimBackend{
				Model:          "models/countdowntimer.dot",
				ModelPath:      filepath.Join(goodDir, "models", "countdowntimer.dot"),
				ModelPos:       Pos{16, 12},
				Format:         "auto",
				DefaultLatency: DefaultLatency,
			}},
		}},
		{"flow-anchors.yaml", Purpose{
			Name: "2016",
			Callins: []Callin{
				{Symbol: "openNew", Pos: Pos{4, 13}},
				{Symbol: "openLV", Pos: Pos{4, 28}},
				{Symbol: "close", Pos: Pos{4, 36}},
			},
			Timeouts: Timeouts{Quiescence: time.Minute, Settle: 0, PostReset: DefaultPostReset},
			Bound:    DefaultBound,
			Restrictions: []Restriction{
				{Kind: First, Symbols: []string{"openNew", "openLV"}, Pos: Pos{6, 5}},
				{Kind: AtMost, Count: 1, Symbols: []string{"openNew", "openLV"}, Pos: Pos{7, 5}},
			},
			RestrictionsPos: Pos{5, 3}, BackendPos: Pos{10, 3},
			Backend: Backend{Kind: BackendSim, Kinds: []string{BackendSim}, Sim: &SimBackend{
				Model:          "asynctask.dot",
				ModelPath:      filepath.Join(goodDir, "asynctask.dot"),
				ModelPos:       Pos{10, 26},
				Format:         "auto",
				DefaultLatency: DefaultLatency,
			}},
		}},
	}
	files, _ := filepath.Glob(filepath.Join(goodDir, "*.yaml"))
	if len(files) != len(cases) {
		t.Errorf("%d good files, %d cases: add a case for each file", len(files), len(cases))
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			path := filepath.Join(goodDir, c.file)
			got, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			want := c.want
			want.File = path
			got.Where = nil // positions of harness fields: TestHarnessFields
			if !reflect.DeepEqual(*got, want) {
				t.Errorf("got  %s\nwant %s", dump(got), dump(&want))
			}
		})
	}
}

// dump shows a purpose with the fields that %+v hides behind pointers.
func dump(p *Purpose) string {
	q := *p
	q.Backend.Sim = nil
	s := fmt.Sprintf("%+v", q)
	if p.Backend.Sim != nil {
		s += fmt.Sprintf(" sim=%+v", *p.Backend.Sim)
	}
	return s
}

func TestFingerprint(t *testing.T) {
	base := `name: T
callins: [start, cancel]
callbacks: [{symbol: finished, from: [a, b]}]
timeouts: {quiescence: 2s}
restrictions: [{at_most: 1, of: [start]}]
backend: {sim: {model: m.dot, latency: {finished: 10ms}}}
`
	same := []string{
		// Comments, block style, a map-form callin, another indentation,
		// defaults written out, keys in another order.
		`# a comment
name: T   # trailing
callins:
    -   start
    -   symbol: cancel
callbacks:
    -   symbol: finished
        from:
            - a
            - b
bound: 2
timeouts:
    quiescence: 2000ms
    settle: 100ms
restrictions:
    -   of: [start]
        at_most: 1
backend:
    sim:
        latency: {finished: 10ms, default: 50ms}
        format: auto
        model: m.dot
`,
	}
	changed := []string{
		strings.Replace(base, "name: T", "name: U", 1),
		strings.Replace(base, "[start, cancel]", "[cancel, start]", 1),
		strings.Replace(base, "from: [a, b]", "from: [b, a]", 1),
		strings.Replace(base, "{symbol: finished, from: [a, b]}", "{symbol: finished, from: [a, b], error: true}", 1),
		strings.Replace(base, "2s", "3s", 1),
		strings.Replace(base, "at_most: 1", "at_most: 2", 1),
		strings.Replace(base, "at_most: 1, of: [start]", "first: [start]", 1),
		strings.Replace(base, "model: m.dot", "model: n.dot", 1),
		strings.Replace(base, "10ms", "11ms", 1),
		strings.Replace(base, "restrictions:", "bound: 3\nrestrictions:", 1),
	}
	fp := func(src string) string {
		t.Helper()
		p, err := Parse("fp.yaml", []byte(src))
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		return p.Fingerprint()
	}
	want := fp(base)
	if !strings.HasPrefix(want, "sha256:") {
		t.Errorf("fingerprint %q", want)
	}
	for _, s := range same {
		if got := fp(s); got != want {
			t.Errorf("same content, different fingerprint:\n%s", s)
		}
	}
	// The file a purpose is read from is not part of the problem.
	if p, _ := Parse("elsewhere/fp.yaml", []byte(base)); p.Fingerprint() != want {
		t.Errorf("fingerprint depends on the file path")
	}
	seen := map[string]int{}
	for i, s := range changed {
		got := fp(s)
		if got == want {
			t.Errorf("changed content, same fingerprint:\n%s", s)
		}
		if j, dup := seen[got]; dup {
			t.Errorf("changes %d and %d give the same fingerprint", j, i)
		}
		seen[got] = i
	}
}

func TestErrorFormat(t *testing.T) {
	e := &Error{File: "bad.yaml", Line: 7, Col: 5, Field: "callins[1].symbol", Msg: `duplicate symbol "cancel" (first defined at 4:5)`}
	if got, want := e.Error(), `bad.yaml:7:5: callins[1].symbol: duplicate symbol "cancel" (first defined at 4:5)`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	noField := &Error{File: "bad.yaml", Line: 1, Col: 1, Msg: "empty"}
	if got, want := noField.Error(), "bad.yaml:1:1: empty"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	var err error = ErrorList{noField, e}
	if got, want := err.Error(), noField.Error()+"\n"+e.Error(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if !errors.Is(err, e) {
		t.Errorf("errors.Is does not see into the list")
	}
}

// Cases that need no file of their own: YAML corners and follow-on errors.
func TestParseErrors(t *testing.T) {
	const head = "name: T\ncallins: [a, b]\nbackend: {sim: {model: m}}\n"
	cases := []parseErrorCase{
		{"merge key", head + "timeouts:\n  <<: {settle: 1s}\n",
			"t.yaml:5:3: timeouts: merge keys (<<) are not supported: write the fields out"},
		{"integer key", head + "1: x\n",
			`t.yaml:4:1: unknown field "1" (allowed: name, class, description, parameters, target, setup, files, permissions, jars, adapters, callins, callbacks, ignore, details, timeouts, bound, bound_counts, restrictions, backend)`},
		{"float bound", head + "bound: 2.0\n",
			"t.yaml:4:8: bound: want an integer or auto, got float 2.0"},
		{"huge bound", head + "bound: 99999999999999999999\n",
			`t.yaml:4:8: bound: want an integer or auto, got string "99999999999999999999"`},
		{"string with number", head + "timeouts: {settle: \"500\"}\n",
			"t.yaml:4:20: timeouts.settle: 500 has no unit: add a unit, e.g. 500ms"},
		{"float duration", head + "timeouts: {settle: 1.5}\n",
			"t.yaml:4:20: timeouts.settle: 1.5 has no unit: add a unit, e.g. 1.5ms"},
		{"negative latency", head[:len(head)-3] + ", latency: {default: -1s}}}\n",
			"t.yaml:3:46: backend.sim.latency.default: must not be negative, got -1s"},
		{"latency range without units", head[:len(head)-3] + ", latency: {default: 80..400}}}\n",
			`t.yaml:3:46: backend.sim.latency.default: bad latency range "80..400": want MIN..MAX with units, e.g. 80ms..400ms`},
		{"latency range backwards", head[:len(head)-3] + ", latency: {default: 400ms..80ms}}}\n",
			`t.yaml:3:46: backend.sim.latency.default: the range "400ms..80ms" ends below its start`},
		{"negative latency range", head[:len(head)-3] + ", latency: {default: -1s..1s}}}\n",
			"t.yaml:3:46: backend.sim.latency.default: must not be negative, got -1s"},
		{"from is a string", head + "callbacks: [{symbol: c, from: x}]\n",
			`t.yaml:4:31: callbacks[0].from: want a list of callback names, got string "x"`},
		{"empty from", head + "callbacks: [{symbol: c, from: []}]\n",
			"t.yaml:4:31: callbacks[0].from: empty list: leave from out to use the symbol itself"},
		{"from with a space", head + "callbacks: [{symbol: c, from: [on done]}]\n",
			`t.yaml:4:32: callbacks[0].from[0]: invalid callback name "on done": must be non-empty, without spaces`},
		{"from names another symbol", head + "callbacks: [c, {symbol: d, from: [c]}]\n",
			`t.yaml:4:35: callbacks[1].from[0]: callback name "c" already maps to "c" (at 4:13)`},
		{"symbol named by an earlier from", head + "callbacks: [{symbol: d, from: [c]}, c]\n",
			`t.yaml:4:37: callbacks[1]: callback name "c" already maps to "d" (at 4:32)`},
		{"duplicate key", head + "backend: x\n",
			`t.yaml:4:1: duplicate key "backend" (first defined at 3:1)`},
		{"callback named twice", head + "callbacks: [c, c]\n",
			`t.yaml:4:16: callbacks[1]: duplicate symbol "c" (first defined at 4:13)`},
		{"callback before callins", "callbacks: [a]\n" + head,
			`t.yaml:3:11: callins[0]: duplicate symbol "a" (first defined at 1:13)`},
		{"repeated restriction symbol", head + "restrictions: [{first: [a, a]}]\n",
			`t.yaml:4:28: restrictions[0].first[1]: duplicate symbol "a" (first defined at 4:25)`},
		{"restriction item not a map", head + "restrictions: [[a]]\n",
			"t.yaml:4:16: restrictions[0]: want a map such as {at_most: 1, of: [start]}, got a list"},
		{"broken callins hide unknown symbols", "name: T\ncallins: a\nbackend: {sim: {model: m}}\nrestrictions: [{first: [x]}]\n",
			`t.yaml:2:10: callins: want a list of callins, got string "a"`},
		{"latency with no callbacks", head[:len(head)-3] + ", latency: {done: 1s}}}\n",
			`t.yaml:3:37: backend.sim.latency.done: unknown symbol "done" (callbacks: none declared)`},
		{"realtime not a bool", head[:len(head)-3] + ", realtime: 1}}\n",
			"t.yaml:3:37: backend.sim.realtime: want true or false, got integer 1"},
		{"empty model", "name: T\ncallins: [a]\nbackend: {sim: {model: ''}}\n",
			"t.yaml:3:24: backend.sim.model: must not be empty"},
		{"null sim", "name: T\ncallins: [a]\nbackend:\n  sim:\n",
			"t.yaml:4:3: backend.sim.model: required field is missing"},
		{"null item", "name: T\ncallins:\n  - a\n  -\nbackend: {sim: {model: m}}\n",
			"t.yaml:4:4: callins[1]: want a callin symbol or a map with symbol, got null"},
		{"block scalar symbol", "name: T\ncallins:\n  - |\n    a\nbackend: {sim: {model: m}}\n",
			`t.yaml:3:5: callins[0]: invalid symbol "a\n": use letters, digits, '_', '-' and '.', starting with a letter, digit or '_'`},
		{"name starts with a dot", "name: .x\ncallins: [a]\nbackend: {sim: {model: m}}\n",
			`t.yaml:1:7: name: invalid name ".x": use letters, digits, '_', '-' and '.', starting with a letter, digit or '_'`},
		{"empty symbol", "name: T\ncallins: ['']\nbackend: {sim: {model: m}}\n",
			`t.yaml:2:11: callins[0]: invalid symbol "": must not be empty`},
		{"alias loop", "name: T\ncallins: &x [*x]\nbackend: {sim: {model: m}}\n",
			"t.yaml:2:14: callins[0]: want a callin symbol or a map with symbol, got a list"},
		{"only a scalar", "hello\n",
			`t.yaml:1:1: want a map at the top level (name, callins, backend, ...), got string "hello"`},
		{"long string is cut", head + "bound: " + strings.Repeat("x", 50) + "\n",
			`t.yaml:4:8: bound: want an integer or auto, got string "` + strings.Repeat("x", 40) + `..."`},
		{"several problems, sorted", "backend: {}\nname: 'a b'\ncallins: []\n",
			"t.yaml:1:10: backend: no backend given (available: sim, jvm, adb)\n" +
				`t.yaml:2:7: name: invalid name "a b": use letters, digits, '_', '-' and '.', starting with a letter, digit or '_'` + "\n" +
				"t.yaml:3:10: callins: want at least one callin"},
	}
	wantParseErrors(t, cases)
}

// Corners that must parse.
func TestParseAccepts(t *testing.T) {
	cases := []struct {
		name, src string
		check     func(*Purpose) bool
	}{
		{"own symbol in from", "name: T\ncallins: [a]\ncallbacks: [{symbol: d, from: [d, e]}]\nbackend: {sim: {model: m}}\n",
			func(p *Purpose) bool { return reflect.DeepEqual(p.Callbacks[0].From, []string{"d", "e"}) }},
		{"empty optional values", "name: T\nclass:\ncallins: [a]\ncallbacks:\ntimeouts:\nrestrictions:\nbackend: {sim: {model: m, latency: }}\n",
			func(p *Purpose) bool {
				return p.Class == "" && p.Callbacks == nil && p.Timeouts.Quiescence == DefaultQuiescence
			}},
		{"unit-less zero", "name: T\ncallins: [a]\ntimeouts: {settle: 0, post_reset: 0.0}\nbackend: {sim: {model: m}}\n",
			func(p *Purpose) bool { return p.Timeouts.Settle == 0 && p.Timeouts.PostReset == 0 }},
		{"wait in restrictions", "name: T\ncallins: [a]\nrestrictions: [{first: [wait]}, {at_most: 0, of: [wait]}, {followed_by_wait: [wait]}]\nbackend: {sim: {model: m}}\n",
			func(p *Purpose) bool { return len(p.Restrictions) == 3 && p.Restrictions[1].Count == 0 }},
		{"latency by from name", "name: T\ncallins: [a]\ncallbacks: [{symbol: f, from: [onA]}]\nbackend: {sim: {model: m, latency: {onA: 1s, f: 2s}}}\n",
			func(p *Purpose) bool {
				return p.Backend.Sim.Latency["onA"] == time.Second && p.Backend.Sim.Latency["f"] == 2*time.Second
			}},
		{"latency ranges", "name: T\ncallins: [a]\ncallbacks: [f, g]\nbackend: {sim: {model: m, latency: {default: 10ms..20ms, f: 80ms .. 400ms, g: 5ms..5ms}}}\n",
			func(p *Purpose) bool {
				s := p.Backend.Sim
				return s.DefaultLatency == 10*time.Millisecond && s.DefaultLatencyMax == 20*time.Millisecond &&
					s.Latency["f"] == 80*time.Millisecond && s.Latency["g"] == 5*time.Millisecond &&
					reflect.DeepEqual(s.LatencyMax, map[string]time.Duration{"f": 400 * time.Millisecond})
			}},
		{"absolute model", "name: T\ncallins: [a]\nbackend: {sim: {model: /models/m.dot}}\n",
			func(p *Purpose) bool { return p.Backend.Sim.ModelPath == filepath.FromSlash("/models/m.dot") }},
		{"byte-order mark", "\ufeffname: T\ncallins: [a]\nbackend: {sim: {model: m}}\n",
			func(p *Purpose) bool { return p.Name == "T" }},
		{"CRLF line ends", "name: T\r\ncallins:\r\n  - a\r\n  - b\r\nbackend: {sim: {model: m}}\r\n",
			func(p *Purpose) bool { return len(p.Callins) == 2 && p.Callins[1].Pos == Pos{4, 5} }},
		{"document marker", "---\nname: T\ncallins: [a]\nbackend: {sim: {model: m}}\n...\n",
			func(p *Purpose) bool { return p.Name == "T" }},
		{"bound auto", "name: T\ncallins: [a]\nbound: auto\nbackend: {sim: {model: m}}\n",
			func(p *Purpose) bool { return p.BoundAuto && p.Bound == DefaultBound }},
		{"bound 3", "name: T\ncallins: [a]\nbound: 3\nbackend: {sim: {model: m}}\n",
			func(p *Purpose) bool { return !p.BoundAuto && p.Bound == 3 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Parse("dir/t.yaml", []byte(c.src))
			if err != nil {
				t.Fatal(err)
			}
			if !c.check(p) {
				t.Errorf("unexpected purpose %s", dump(p))
			}
		})
	}
}

// A file that repeats one mistake many times (here through an alias) gets
// a bounded list.
func TestErrorCap(t *testing.T) {
	src := "name: T\ncallins: &c [" + strings.Repeat("'a b', ", 300) + "]\nrestrictions: [{first: *c}]\nbackend: {sim: {model: m}}\n"
	_, err := Parse("t.yaml", []byte(src))
	var list ErrorList
	if !errors.As(err, &list) || len(list) != maxErrors {
		t.Fatalf("got %d errors, want %d", len(list), maxErrors)
	}
}

// parseErrorCase is a purpose source and the exact error Parse gives it.
type parseErrorCase struct{ name, src, want string }

// wantParseErrors parses each case's source as t.yaml and wants its error.
func wantParseErrors(t *testing.T, cases []parseErrorCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Parse("t.yaml", []byte(c.src))
			if err == nil {
				t.Fatalf("no error; got %+v", p)
			}
			if got := err.Error(); got != c.want {
				t.Errorf("source:\n%s\n got: %s\nwant: %s", c.src, got, c.want)
			}
		})
	}
}
