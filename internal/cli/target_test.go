package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// tailFrom is summary from the first line starting with prefix on.
func tailFrom(t *testing.T, summary, prefix string) string {
	t.Helper()
	k := strings.Index(summary, "\n"+prefix)
	if k < 0 {
		t.Fatalf("summary has no line starting %q:\n%s", prefix, summary)
	}
	return summary[k+1:]
}

// targetJSON is the target object of a written model, as JSON.
func targetJSON(t *testing.T, file string) string {
	t.Helper()
	doc := readModel(t, file)
	data, err := json.Marshal(doc.Target)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// deep-mealy.dot's states s0 and s1 differ first on a a a: the default
// bound 2 learns one state, and learn says so, with the shortest word on
// which the result is wrong and the bound the target needs. The perfect
// oracle learns it exactly.
func TestLearnModelComparesWithTheTarget(t *testing.T) {
	file := repoPath("testdata", "models", "deep-mealy.dot")
	tests := []struct {
		name       string
		args       []string
		states     string
		tail, json string
	}{
		{
			name:   "bound 2",
			states: "  1 state, 2 transitions\n",
			tail: "bound: 2 used, the learned model needs 0\n" +
				"target: the learned model differs from the target, which needs bound 3 (see the warnings)\n" +
				"warnings:\n" +
				"  - the learned model is wrong: on a a a a the target answers x x x y, the learned model x x x x; the target needs bound 3, this run used 2 (learn again with --bound 3 or --oracle perfect)\n",
			json: `{"equal":false,"needed_bound":3,"counterexample":{"input":["a","a","a","a"],"expected":["x","x","x","y"],"learned":["x","x","x","x"]}}`,
		},
		{
			name:   "bound 3",
			args:   []string{"--bound", "3"},
			states: "  4 states, 8 transitions\n",
			tail: "bound: 3 used, the learned model needs 3\n" +
				"target: the learned model equals the target, which needs bound 3\n",
			json: `{"equal":true,"needed_bound":3}`,
		},
		{
			name:   "perfect",
			args:   []string{"--oracle", "perfect"},
			states: "  4 states, 8 transitions\n",
			tail:   "target: the learned model equals the target (perfect oracle), which needs bound 3\n",
			json:   `{"equal":true,"needed_bound":3,"perfect_oracle":true}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"learn", "--model", file, "-o", dir, "--write", "json"}, tc.args...)
			code, stdout, stderr := run(t, args...)
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if !strings.Contains(stdout, "\n"+tc.states) {
				t.Errorf("summary lacks %q:\n%s", tc.states, stdout)
			}
			// Under the perfect oracle there is no bound line: the tail
			// starts at the target line.
			prefix := "bound:"
			if strings.HasPrefix(tc.tail, "target:") {
				prefix = "target:"
				if strings.Contains(stdout, "\nbound:") {
					t.Errorf("a bound line under the perfect oracle:\n%s", stdout)
				}
			}
			if got := tailFrom(t, stdout, prefix); got != tc.tail {
				t.Errorf("summary ends\n%s\nwant\n%s", got, tc.tail)
			}
			if got := targetJSON(t, filepath.Join(dir, "deep-mealy.json")); got != tc.json {
				t.Errorf("target %s\nwant   %s", got, tc.json)
			}
		})
	}
}

// --oracle perfect needs the target's model, which only the simulation
// backend has; it is refused before anything runs.
func TestOraclePerfectNeedsAModel(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{repoPath("examples", "jvm", "timer.yaml")},
			"droidstar: --oracle perfect compares hypotheses with the target's model, which only backend sim has; this run uses backend jvm\n"},
		{[]string{repoPath("examples", "mediaplayer", "purpose.yaml"), "--backend", "adb"},
			"droidstar: --oracle perfect compares hypotheses with the target's model, which only backend sim has; this run uses backend adb\n"},
	}
	for _, tc := range tests {
		dir := t.TempDir()
		args := append([]string{"learn", "--oracle", "perfect", "-o", dir}, tc.args...)
		code, stdout, stderr := run(t, args...)
		if code != ExitUsage || stdout != "" || stderr != tc.want {
			t.Errorf("%v: exit %d, stdout %q\nstderr %s\nwant   %s", tc.args, code, stdout, stderr, tc.want)
		}
	}
	code, _, stderr := run(t, "learn", "--example", "asynctask", "--oracle", "best", "-o", t.TempDir())
	if want := "droidstar: --oracle must be bound or perfect, got \"best\"\n"; code != ExitUsage || stderr != want {
		t.Errorf("exit %d, stderr %s\nwant %s", code, stderr, want)
	}
}

// A purpose on the simulation backend is compared with its model as the
// purpose sees it (restrictions, callback mapping), and the perfect oracle
// learns it exactly too.
func TestLearnPurposeComparesWithTheTarget(t *testing.T) {
	for _, oracle := range []string{"bound", "perfect"} {
		dir := t.TempDir()
		code, stdout, stderr := run(t, "learn", "--example", "mediaplayer", "--oracle", oracle, "-o", dir, "--write", "json")
		if code != ExitOK {
			t.Fatalf("%s: exit %d: %s", oracle, code, stderr)
		}
		want := "target: the learned model equals the target, which needs bound 2\n"
		if oracle == "perfect" {
			want = "target: the learned model equals the target (perfect oracle), which needs bound 2\n"
		}
		if !strings.Contains(stdout, "\n"+want) || strings.Contains(stdout, "warnings:") {
			t.Errorf("%s: summary lacks %q (or warns):\n%s", oracle, want, stdout)
		}
	}
}
