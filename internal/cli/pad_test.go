package cli

import (
	"path/filepath"
	"testing"
)

func TestPadMustNotBeNegative(t *testing.T) {
	dir := repoPath("testdata", "matrix")
	for _, args := range [][]string{
		{"learn", "--example", "asynctask", "--store", "off", "-o", t.TempDir(), "--pad", "-1"},
		{"matrix", filepath.Join(dir, "purpose.yaml"), "-o", t.TempDir(), "--sim-model", "api23=" + filepath.Join(dir, "api23.dot"), "--pad", "-1"},
	} {
		code, stdout, stderr := droidstar(t, args...)
		if want := "droidstar: --pad must not be negative, got -1\n"; code != ExitUsage || stdout != "" || stderr != want {
			t.Errorf("%s --pad -1: exit %d, stdout %q, stderr %q; want exit %d, %q", args[0], code, stdout, stderr, ExitUsage, want)
		}
	}
}

// --pad 0 runs the queries as asked; the default pads them, learning the
// same model from fewer executed queries and saying so in the statistics.
func TestPadFlag(t *testing.T) {
	learn := func(pad string) (executed, padded, states int) {
		t.Helper()
		out := t.TempDir()
		code, _, stderr := droidstar(t, "learn", "--example", "asynctask", "--store", "off", "-q", "-o", out, "--write", "json", "--pad", pad)
		if code != ExitOK {
			t.Fatalf("--pad %s: exit %d: %s", pad, code, stderr)
		}
		doc := readModel(t, filepath.Join(out, "AsyncTask.json"))
		return doc.Stats.Total().Executed, doc.Stats.Learning.Padded, len(doc.States)
	}
	e0, p0, s0 := learn("0")
	e3, p3, s3 := learn("3")
	if p0 != 0 || p3 == 0 || e3 >= e0 || s3 != s0 {
		t.Errorf("--pad 0: %d executed, %d padded, %d states; --pad 3: %d executed, %d padded, %d states", e0, p0, s0, e3, p3, s3)
	}
}
