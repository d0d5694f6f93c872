package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/render"
)

// The diff fixtures (testdata/diff/README.md) and the reports on them.
var (
	diffOld = repoPath("testdata", "diff", "mediaplayer.json")
	diffNew = repoPath("testdata", "diff", "mediaplayer-pause-error.json")
)

func readGolden(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(repoPath("testdata", "diff", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// The golden reports name the fixtures by their paths from the repository
// root; the tests run two directories down.
func fromRoot(s string) string {
	return strings.ReplaceAll(s, repoPath("testdata")+string(filepath.Separator), "testdata/")
}

func TestDiffSameModelsExitZero(t *testing.T) {
	code, stdout, stderr := droidstar(t, "diff", diffOld, diffOld)
	want := "old: " + diffOld + ": MediaPlayer (android.media.MediaPlayer), 11 states, 55 transitions\n" +
		"new: " + diffOld + ": MediaPlayer (android.media.MediaPlayer), 11 states, 55 transitions\n" +
		"same: the two models accept the same traces\n"
	if code != ExitOK || stdout != want || stderr != "" {
		t.Fatalf("exit %d\nstdout:\n%s\nwant:\n%s\nstderr: %q", code, stdout, want, stderr)
	}
}

func TestDiffDifferentModelsExitOne(t *testing.T) {
	for _, c := range []struct{ format, golden string }{
		{"text", "mediaplayer.diff.txt"},
		{"markdown", "mediaplayer.diff.md"},
		{"json", "mediaplayer.diff.json"},
	} {
		code, stdout, stderr := droidstar(t, "diff", diffOld, diffNew, "--format", c.format)
		if code != ExitFail || fromRoot(stdout) != readGolden(t, c.golden) || stderr != "droidstar: the models differ\n" {
			t.Errorf("--format %s: exit %d, stderr %q\nstdout:\n%s", c.format, code, stderr, stdout)
		}
	}
	dir := t.TempDir()
	out, dot := filepath.Join(dir, "report.txt"), filepath.Join(dir, "diff.dot")
	code, stdout, stderr := droidstar(t, "diff", diffOld, diffNew, "-o", out, "--dot", dot, "--max-traces", "1")
	if want := "wrote " + dot + "\nwrote " + out + "\ndroidstar: the models differ\n"; code != ExitFail || stdout != "" || stderr != want {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	report, _ := os.ReadFile(out)
	if !strings.Contains(string(report), "traces accepted by old, rejected by new: 1 shortest of 3\n") ||
		strings.Contains(string(report), "  2. ") {
		t.Fatalf("--max-traces 1:\n%s", report)
	}
	if data, _ := os.ReadFile(dot); fromRoot(string(data)) != readGolden(t, "mediaplayer.diff.dot") {
		t.Fatalf("--dot:\n%s", data)
	}
}

func TestDiffTroubleExitsTwo(t *testing.T) {
	dir := t.TempDir()
	corrupt := filepath.Join(dir, "bad.json")
	os.WriteFile(corrupt, []byte("{\"format\": \"droidstar-model\",\n \"version\": 1,\n \"states\": oops}\n"), 0o644)
	missing := filepath.Join(dir, "missing.json")
	mealyModel := repoPath("testdata", "models", "vending-mealy.json")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"diff", diffOld, corrupt}, "droidstar: " + corrupt + ": 3:12: invalid character 'o' looking for beginning of value\n"},
		{[]string{"diff", missing, diffOld}, "droidstar: open " + missing + ": no such file or directory\n"},
		{[]string{"diff", diffOld, mealyModel}, "droidstar: incompatible semantics: " + diffOld + " is a closure model (callback typestate), " +
			mealyModel + " is a plain Mealy model; both must be closure models or both plain Mealy models\n"},
		{[]string{"diff", diffOld}, "droidstar: droidstar diff takes two model files, got 1 arguments\nRun 'droidstar diff --help' for usage.\n"},
		{[]string{"diff", diffOld, diffNew, "--format", "html"}, "droidstar: --format: unknown format \"html\" (formats: text, markdown, json)\n"},
		{[]string{"diff", diffOld, diffNew, "--max-traces", "0"}, "droidstar: --max-traces must be at least 1, got 0\n"},
		{[]string{"diff", diffOld, diffNew, "--bogus"}, "droidstar: unknown flag: --bogus\nRun 'droidstar diff --help' for usage.\n"},
	}
	for _, c := range cases {
		code, stdout, stderr := droidstar(t, c.args...)
		if code != ExitUsage || stdout != "" || stderr != c.want {
			t.Errorf("%v: exit %d, stdout %q\nstderr %q\nwant   %q", c.args, code, stdout, stderr, c.want)
		}
	}
	// An incomplete model document (a state missing) is trouble too.
	doc, err := model.ReadFile(diffOld)
	if err != nil {
		t.Fatal(err)
	}
	doc.States = doc.States[1:]
	data, _ := doc.Marshal()
	broken := filepath.Join(dir, "broken.json")
	os.WriteFile(broken, data, 0o644)
	code, _, stderr := droidstar(t, "diff", diffOld, broken)
	if want := "droidstar: " + broken + ": initial state \"s0\" is not among the states\n"; code != ExitUsage || stderr != want {
		t.Fatalf("exit %d, stderr %q, want %q", code, stderr, want)
	}
}

// --svg renders with the droidstar-render helper; without it, diff says
// where it looked and fails before writing anything.
func TestDiffSVGWithoutHelper(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(render.EnvHelper, filepath.Join(dir, "no-such-helper"))
	svg := filepath.Join(dir, "diff.svg")
	code, stdout, stderr := droidstar(t, "diff", diffOld, diffNew, "--svg", svg)
	if code != ExitUsage || stdout != "" || !strings.HasPrefix(stderr, "droidstar: --svg: "+render.Helper+" not found: $"+render.EnvHelper+" is ") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if _, err := os.Stat(svg); !os.IsNotExist(err) {
		t.Fatalf("%s written anyway (%v)", svg, err)
	}
}

// The fixtures are what droidstar learns: learning the two purposes again
// gives the same models (diff says so) with the same transitions and err
// reasons.
func TestDiffFixturesAreLearned(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args    []string
		fixture string
	}{
		{[]string{"--example", "mediaplayer"}, diffOld},
		{[]string{repoPath("testdata", "diff", "mediaplayer-pause-error", "purpose.yaml")}, diffNew},
	} {
		out := filepath.Join(dir, filepath.Base(c.fixture))
		args := append(append([]string{"learn"}, c.args...), "-o", out, "-q", "--write", "json")
		if code, _, stderr := droidstar(t, args...); code != ExitOK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		learned := filepath.Join(out, "MediaPlayer.json")
		if code, stdout, stderr := droidstar(t, "diff", c.fixture, learned); code != ExitOK {
			t.Fatalf("%s differs from what droidstar learns: exit %d\n%s%s", c.fixture, code, stdout, stderr)
		}
		fixture, _ := model.ReadFile(c.fixture)
		doc, _ := model.ReadFile(learned)
		if !reflect.DeepEqual(fixture.States, doc.States) || !reflect.DeepEqual(fixture.Transitions, doc.Transitions) {
			t.Fatalf("%s: states or transitions differ from a fresh run", c.fixture)
		}
	}
}

func TestDiffHelp(t *testing.T) {
	code, stdout, _ := droidstar(t, "diff", "--help")
	for _, s := range []string{"Examples:\n", "Exit status: 0 when", "then say \"... and N more\"", "counts read \"at least N\"", "--max-traces int", "--svg string"} {
		if code != ExitOK || !strings.Contains(stdout, s) {
			t.Errorf("diff --help lacks %q (exit %d):\n%s", s, code, stdout)
		}
	}
}

// Models of unrelated classes share no callin, so they cannot be compared:
// exit 2, as for models that cannot be read, and no verdict.
func TestDiffOfUnrelatedClassesExitsTwo(t *testing.T) {
	dir := t.TempDir()
	for _, ex := range []string{"countdowntimer", "sqliteopenhelper"} {
		if code, _, stderr := droidstar(t, "learn", "--example", ex, "-o", dir, "-q", "--write", "json", "--store", "off"); code != ExitOK {
			t.Fatalf("learn %s: exit %d: %s", ex, code, stderr)
		}
	}
	timer, helper := filepath.Join(dir, "CountDownTimer.json"), filepath.Join(dir, "SQLiteOpenHelper.json")
	code, stdout, stderr := droidstar(t, "diff", timer, helper)
	want := "droidstar: cannot compare " + timer + " with " + helper + ": they share no callins (old: start, cancel; " +
		"new: openNew, openLV, openSV, openHV, close), so no trace of one can be played on the other; are they models of the same class?\n"
	if code != ExitUsage || stdout != "" || stderr != want {
		t.Fatalf("exit %d, stdout %q\nstderr %q\nwant   %q", code, stdout, stderr, want)
	}
}
