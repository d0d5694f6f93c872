package cli

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// learn and matrix run the same thing: every learning option, given to
// each on the same simulated target, has the same effect on the model
// they write (its recorded settings and counts). A learning option that
// matrix dropped or ignored fails here, and so does one missing from the
// table below.
func TestLearnAndMatrixTakeTheSameLearningOptions(t *testing.T) {
	dir := repoPath("testdata", "matrix")
	purposeFile, model := filepath.Join(dir, "purpose.yaml"), filepath.Join(dir, "api23.dot")
	store := t.TempDir()
	cases := []struct {
		flag, value string
		// effect says the option changes the model the default run
		// writes; the others change how a run reaches its target.
		effect bool
		// fails: the run stops part-way, keeping NAME.partial.json.
		fails bool
	}{
		{"backend", "sim", false, false},
		{"lanes", "2", true, false},
		{"realtime", "false", false, false},
		{"adb-host", "localhost", false, false},
		{"adb-port", "5037", false, false},
		{"harness-timeout", "5s", false, false},
		{"device-dir", "/data/local/tmp/elsewhere", false, false},
		{"keep-awake", "false", false, false},
		{"learner", "lsharp", true, false},
		{"oracle", "perfect", true, false},
		{"bound", "auto:3", true, false},
		{"bound-counts", "every", true, false},
		{"conformance", "random:20:3", true, false},
		{"pad", "2", true, false},
		{"pad-check", "0", true, false},
		{"timeout", "auto:100ms", true, false},
		{"max-queries", "10", true, true},
		{"max-states", "1", true, true},
		{"repeat", "1", true, false},
		{"verify", "0.5", true, false},
		{"verify-final", "all", true, false},
		{"seed", "7", true, false},
		{"sim-flaky", "0", false, false},
		{"store", "", false, false}, // a file of each command's own
		{"fresh", "true", false, false},
		{"grace", "3s", false, false},
		// On a copy of the purpose with a parameter (below): the value is
		// recorded in the model.
		{"set", "label=other", true, false},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.flag] = true
	}
	fs := pflag.NewFlagSet("learning", pflag.ContinueOnError)
	addLearningFlags(fs)
	fs.VisitAll(func(f *pflag.Flag) {
		if !covered[f.Name] {
			t.Errorf("learning option --%s has no case here: add one", f.Name)
		}
	})

	// written runs a command and reads the model it wrote.
	written := func(t *testing.T, fails bool, file string, args ...string) map[string]any {
		t.Helper()
		code, _, stderr := droidstar(t, args...)
		if want := map[bool]int{false: ExitOK, true: ExitFail}[fails]; code != want {
			t.Fatalf("%q: exit %d, want %d\n%s", args, code, want, stderr)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		// What no option sets: the clock, and the model file as each
		// command was given it (a matrix target replaces the purpose's,
		// and so has a purpose fingerprint of its own).
		delete(doc, "learned_at")
		delete(doc["stats"].(map[string]any), "wall_seconds")
		delete(doc["backend"].(map[string]any), "model")
		delete(doc["purpose"].(map[string]any), "fingerprint")
		return doc
	}
	// withParam is the purpose with a parameter that --set can set: the
	// sim backend does not read the target it is used in.
	data, err := os.ReadFile(purposeFile)
	if err != nil {
		t.Fatal(err)
	}
	withParam := filepath.Join(t.TempDir(), "purpose.yaml")
	absModel, err := filepath.Abs(model)
	if err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.Replace(string(data), "model: api23.dot", "model: "+absModel, 1))
	data = append(data, "parameters:\n  label: {doc: a label, default: plain}\ntarget:\n  new: [{param: label}]\n"...)
	if err := os.WriteFile(withParam, data, 0o644); err != nil {
		t.Fatal(err)
	}
	fileOf := func(extra []string) string {
		if len(extra) > 0 && strings.HasPrefix(extra[0], "--set=") {
			return withParam
		}
		return purposeFile
	}
	learnWith := func(t *testing.T, fails bool, extra ...string) map[string]any {
		out := t.TempDir()
		name := map[bool]string{false: "CountDownTimer.json", true: "CountDownTimer.partial.json"}[fails]
		args := append([]string{"learn", fileOf(extra), "-o", out, "-q", "--store", "off", "--seed", "1"}, extra...)
		return written(t, fails, filepath.Join(out, name), args...)
	}
	matrixWith := func(t *testing.T, fails bool, extra ...string) map[string]any {
		out := t.TempDir()
		name := map[bool]string{false: "api23.json", true: "api23.partial.json"}[fails]
		args := append([]string{"matrix", fileOf(extra), "--sim-model", "api23=" + model, "-o", out, "--store", "off", "--seed", "1"}, extra...)
		return written(t, fails, filepath.Join(out, name), args...)
	}
	plain := learnWith(t, false)
	if m := matrixWith(t, false); !reflect.DeepEqual(plain, m) {
		t.Fatalf("with no option, learn and matrix wrote different models:\nlearn  %v\nmatrix %v", plain, m)
	}
	for _, c := range cases {
		t.Run(c.flag, func(t *testing.T) {
			flag := "--" + c.flag + "=" + c.value
			learnArgs, matrixArgs := []string{flag}, []string{flag}
			if c.flag == "store" {
				learnArgs = []string{"--store", filepath.Join(store, "learn.db")}
				matrixArgs = []string{"--store", filepath.Join(store, "matrix.db")}
			}
			l, m := learnWith(t, c.fails, learnArgs...), matrixWith(t, c.fails, matrixArgs...)
			if !reflect.DeepEqual(l, m) {
				t.Errorf("%s: learn and matrix wrote different models:\nlearn  %v\nmatrix %v", flag, l, m)
			}
			if got := l["purpose"].(map[string]any)["parameters"]; c.flag == "set" && !reflect.DeepEqual(got, map[string]any{"label": "other"}) {
				// The copy's file differs from the plain run's anyway:
				// the effect is the value recorded.
				t.Errorf("%s: the model records parameters %v", flag, got)
			}
			if changed := !reflect.DeepEqual(l, plain); changed != c.effect {
				t.Errorf("%s changed the model: %v, want %v", flag, changed, c.effect)
			}
		})
	}
}

// matrix --help lists every learning option learn --help lists, with the
// same text and default.
func TestLearnAndMatrixHelpTheLearningOptionsAlike(t *testing.T) {
	e := &env{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
	learnFlags, matrixFlags := newLearnCmd(e, nil).Flags(), newMatrixCmd(e, nil).Flags()
	group := pflag.NewFlagSet("learning", pflag.ContinueOnError)
	addLearningFlags(group)
	group.VisitAll(func(f *pflag.Flag) {
		l, m := learnFlags.Lookup(f.Name), matrixFlags.Lookup(f.Name)
		switch {
		case l == nil || m == nil:
			t.Errorf("--%s: in learn %v, in matrix %v", f.Name, l != nil, m != nil)
		case l.Usage != m.Usage || l.DefValue != m.DefValue || l.Hidden != m.Hidden || l.Shorthand != m.Shorthand:
			t.Errorf("--%s: learn says %q (default %q), matrix %q (default %q)", f.Name, l.Usage, l.DefValue, m.Usage, m.DefValue)
		}
	})
}
