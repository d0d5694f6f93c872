package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

func TestMatrixAcrossModels(t *testing.T) {
	dir := repoPath("testdata", "matrix")
	out := t.TempDir()
	code, stdout, stderr := run(t, "matrix", filepath.Join(dir, "purpose.yaml"),
		"--model", "api23="+filepath.Join(dir, "api23.dot"),
		"--model", "same="+filepath.Join(dir, "api23.dot"),
		"--model", "api34="+filepath.Join(dir, "api34.dot"), "-o", out)
	wantTable := "target  states  transitions  vs api23\n" +
		"api23        3            5  baseline\n" +
		"same         3            5  same\n" +
		"api34        3            4  different: cancel\n"
	if code != ExitFail || stdout != wantTable {
		t.Fatalf("exit %d\nstdout:\n%s\nwant:\n%s\nstderr: %s", code, stdout, wantTable, stderr)
	}
	if !strings.HasSuffix(stderr, "droidstar: the targets differ from the baseline api23\n") {
		t.Errorf("stderr: %s", stderr)
	}
	entries, _ := os.ReadDir(out)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	if got := strings.Join(names, " "); got != "api23.dot api23.json api34.dot api34.json matrix.json matrix.md same.dot same.json" {
		t.Errorf("wrote %s", got)
	}
	data, err := os.ReadFile(filepath.Join(out, "matrix.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Format   string `json:"format"`
		Version  int    `json:"version"`
		Baseline string `json:"baseline"`
		Targets  []struct {
			Name    string `json:"name"`
			Learned bool   `json:"learned"`
			Same    *bool  `json:"same_as_baseline"`
			Diff    *struct {
				Same    bool `json:"same"`
				OldOnly struct {
					Total int `json:"total"`
				} `json:"old_only"`
			} `json:"diff"`
		} `json:"targets"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Format != "droidstar-matrix" || rep.Version != 1 || rep.Baseline != "api23" || len(rep.Targets) != 3 {
		t.Fatalf("matrix.json = %+v", rep)
	}
	api34 := rep.Targets[2]
	if !api34.Learned || api34.Same == nil || *api34.Same || api34.Diff == nil || api34.Diff.OldOnly.Total == 0 {
		t.Errorf("api34 = %+v", api34)
	}
	if s := rep.Targets[1]; s.Same == nil || !*s.Same || s.Diff == nil || !s.Diff.Same {
		t.Errorf("same = %+v", s)
	}
	md, _ := os.ReadFile(filepath.Join(out, "matrix.md"))
	if !strings.Contains(string(md), "| api34 | 3 | 4 | different: cancel |\n") || !strings.Contains(string(md), "\n## api34 against api23\n") {
		t.Errorf("matrix.md:\n%s", md)
	}
}

func TestMatrixAllSameExitsZero(t *testing.T) {
	dir := repoPath("testdata", "matrix")
	code, stdout, stderr := run(t, "matrix", filepath.Join(dir, "purpose.yaml"), "-o", t.TempDir(),
		"--model", "a="+filepath.Join(dir, "api23.dot"), "--model", "b="+filepath.Join(dir, "api23.dot"))
	if code != ExitOK || !strings.HasSuffix(stdout, "b            3            5  same\n") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
}

func TestMatrixUsageErrors(t *testing.T) {
	dir := repoPath("testdata", "matrix")
	purposeFile := filepath.Join(dir, "purpose.yaml")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--model", "api23"}, `droidstar: --model "api23": want NAME=FILE, e.g. api23=models/api23.dot`},
		{[]string{"--model", "a b=x.dot"}, `droidstar: --model "a b=x.dot": the name "a b" must use letters, digits, '_', '-' and '.'`},
		{[]string{"--model", "a=x.dot", "--model", "a=y.dot"}, `droidstar: --model "a=y.dot": target a is given twice`},
		{[]string{"--devices", "all"}, "droidstar: --devices: learning on devices needs the adb backend, which this droidstar cannot reach yet"},
	}
	for _, tc := range cases {
		code, _, stderr := run(t, append([]string{"matrix", purposeFile, "-o", t.TempDir()}, tc.args...)...)
		if code != ExitUsage || strings.TrimSpace(stderr) != tc.want {
			t.Errorf("%v: exit %d, stderr %s\nwant %s", tc.args, code, stderr, tc.want)
		}
	}
	code, _, stderr := run(t, "matrix", repoPath("examples", "jvm", "timer.yaml"), "--model", "a=x.dot")
	if code != ExitUsage || strings.TrimSpace(stderr) != "droidstar: --model replaces the sim model, but the purpose runs on backend jvm (use --backend sim if it lists one)" {
		t.Errorf("jvm purpose: exit %d, %s", code, stderr)
	}
}

// A target that cannot be learned is a failed row; the others still run.
func TestMatrixFailedTargetKeepsGoing(t *testing.T) {
	dir := repoPath("testdata", "matrix")
	missing := filepath.Join(dir, "nothere.dot")
	code, stdout, stderr := run(t, "matrix", filepath.Join(dir, "purpose.yaml"), "-o", t.TempDir(),
		"--model", "a="+filepath.Join(dir, "api23.dot"), "--model", "gone="+missing)
	want := "target  states  transitions  vs a\n" +
		"a            3            5  baseline\n" +
		"gone         -            -  failed: " + filepath.Join(dir, "purpose.yaml") + ": backend.sim.model: open " + missing + ": no such file or directory\n"
	if code != ExitFail || stdout != want || !strings.HasSuffix(stderr, "droidstar: not every target learned\n") {
		t.Errorf("exit %d\nstdout:\n%s\nwant:\n%s\nstderr: %s", code, stdout, want, stderr)
	}
}
