package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/export"
	"github.com/droidstar/droidstar/internal/render"
	"github.com/droidstar/droidstar/internal/render/rendertest"
)

// learnAsyncTask learns the AsyncTask example into dir and returns the
// model file.
func learnAsyncTask(t *testing.T, dir string) string {
	t.Helper()
	if code, _, stderr := droidstar(t, "learn", "--example", "asynctask", "-o", dir, "-q", "--write", "json"); code != ExitOK {
		t.Fatal(stderr)
	}
	return filepath.Join(dir, "AsyncTask.json")
}

// export --format svg runs the droidstar-render helper; the picture is the
// one internal/export's golden file holds for the example.
func TestExportSVG(t *testing.T) {
	t.Setenv(render.EnvHelper, rendertest.Helper(t))
	dir := t.TempDir()
	file := learnAsyncTask(t, dir)
	code, stdout, stderr := droidstar(t, "export", file, "--format", "svg")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want, err := os.ReadFile(repoPath("testdata", "export", "examples", "asynctask.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if stdout != string(want) {
		t.Fatalf("SVG differs from testdata/export/examples/asynctask.svg:\n%s", stdout)
	}
	// -o picks the format from the extension.
	out := filepath.Join(dir, "pic.svg")
	if code, _, stderr := droidstar(t, "export", file, "-o", out); code != ExitOK || stderr != "wrote "+out+"\n" {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if data, _ := os.ReadFile(out); !bytes.Equal(data, want) {
		t.Fatalf("-o pic.svg did not write the SVG")
	}
}

func TestExportFormatFromExtension(t *testing.T) {
	dir := t.TempDir()
	file := learnAsyncTask(t, dir)
	for name, prefix := range map[string]string{
		"a.mmd":            "%% AsyncTask (android.os.AsyncTask) callback typestate",
		"a.lifestate.txt":  "# Lifestate rules of android.os.AsyncTask",
		"a.lifestate.json": "{\n  \"format\": \"droidstar-lifestate\"",
		"a.gv":             "digraph {\n  0 -> 1[label=exec];",
		"a.txt":            "AsyncTask: callback typestate",
		"a.json":           "{\n  \"format\": \"droidstar-model\"",
		"a.dot":            "digraph AsyncTask {",
		"a":                "digraph AsyncTask {", // no extension: the default format
	} {
		out := filepath.Join(dir, name)
		if code, _, stderr := droidstar(t, "export", file, "-o", out); code != ExitOK {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		if data, _ := os.ReadFile(out); !strings.HasPrefix(string(data), prefix) {
			t.Errorf("%s starts:\n%.80s\nwant %q", name, data, prefix)
		}
	}
	// An explicit --format wins over the extension.
	out := filepath.Join(dir, "b.txt")
	if code, _, _ := droidstar(t, "export", file, "-f", "lifestate", "-o", out); code != ExitOK {
		t.Fatal("exit")
	}
	if data, _ := os.ReadFile(out); !strings.HasPrefix(string(data), "# Lifestate rules") {
		t.Errorf("--format lifestate -o b.txt:\n%.80s", data)
	}
	code, stdout, _ := droidstar(t, "export", file, "-f", "mermaid")
	want, _ := os.ReadFile(repoPath("testdata", "export", "examples", "asynctask.mmd"))
	if code != ExitOK || stdout != string(want) {
		t.Errorf("mermaid differs from the golden file:\n%s", stdout)
	}
	code, stdout, _ = droidstar(t, "export", file, "-f", "lifestate")
	want, _ = os.ReadFile(repoPath("testdata", "export", "examples", "asynctask.lifestate.txt"))
	if code != ExitOK || stdout != string(want) {
		t.Errorf("lifestate differs from the golden file:\n%s", stdout)
	}
}

func TestLearnWritesSVG(t *testing.T) {
	t.Setenv(render.EnvHelper, rendertest.Helper(t))
	dir := t.TempDir()
	code, _, stderr := droidstar(t, "learn", "--example", "speechrecognizer", "-o", dir, "-q", "--svg", "--write", "json,mermaid,lifestate,lifestate-json")
	if code != ExitOK || stderr != "" {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, f := range []string{"json", "mermaid", "lifestate", "lifestate-json", "svg"} {
		file := filepath.Join(dir, "SpeechRecognizer"+export.Extension(f))
		if _, err := os.Stat(file); err != nil {
			t.Errorf("not written: %v", err)
		}
	}
	svg, _ := os.ReadFile(filepath.Join(dir, "SpeechRecognizer.svg"))
	want, _ := os.ReadFile(repoPath("testdata", "export", "examples", "speechrecognizer.svg"))
	if !bytes.Equal(svg, want) {
		t.Errorf("SpeechRecognizer.svg differs from the golden file")
	}
}

// Without the helper, SVG fails at once with what to do, and learn does
// not start.
func TestSVGWithoutHelper(t *testing.T) {
	t.Setenv(render.EnvHelper, "")
	t.Setenv("PATH", t.TempDir())
	dir := t.TempDir()
	code, _, stderr := droidstar(t, "learn", "--example", "asynctask", "-o", dir, "--svg")
	if code != ExitFail || !strings.Contains(stderr, "droidstar-render not found") || !strings.Contains(stderr, "make build") {
		t.Fatalf("learn --svg without the helper: exit %d: %s", code, stderr)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("learn ran anyway: %v", entries)
	}
	file := learnAsyncTask(t, dir)
	code, stdout, stderr := droidstar(t, "export", file, "-f", "svg")
	if code != ExitFail || stdout != "" || !strings.Contains(stderr, "droidstar-render not found") {
		t.Fatalf("export -f svg without the helper: exit %d: %s", code, stderr)
	}
}

func TestExportHelpListsFormats(t *testing.T) {
	code, stdout, _ := droidstar(t, "export", "--help")
	if code != ExitOK {
		t.Fatal(code)
	}
	for _, f := range export.Formats() {
		if !strings.Contains(stdout, "  "+f+" ") || !strings.Contains(stdout, export.Description(f)) {
			t.Errorf("export --help does not describe %s:\n%s", f, stdout)
		}
	}
}

// The formats of one run are written as a set: when the picture cannot be
// drawn, the files of the run before are left as they were; when they are
// replaced, they keep their mode.
func TestLearnWritesFormatsAsSet(t *testing.T) {
	dir := t.TempDir()
	json, dot := filepath.Join(dir, "AsyncTask.json"), filepath.Join(dir, "AsyncTask.dot")
	for _, f := range []string{json, dot} {
		if err := os.WriteFile(f, []byte("earlier run\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	broken := filepath.Join(t.TempDir(), "droidstar-render")
	if err := os.WriteFile(broken, []byte("#!/bin/sh\necho 'no fonts' >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(render.EnvHelper, broken)
	code, _, stderr := droidstar(t, "learn", "--example", "asynctask", "-o", dir, "-q", "--write", "json,dot,svg")
	if code != ExitFail || stderr != "droidstar: svg: droidstar-render: no fonts\n" {
		t.Fatalf("learn with a failing picture: exit %d: %s", code, stderr)
	}
	for _, f := range []string{json, dot} {
		if data, _ := os.ReadFile(f); string(data) != "earlier run\n" {
			t.Errorf("%s was replaced though the set failed: %.40q", f, data)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("the output folder holds %v, want the two earlier files only", entries)
	}
	code, _, stderr = droidstar(t, "learn", "--example", "asynctask", "-o", dir, "-q", "--write", "json,dot")
	if code != ExitOK || stderr != "" {
		t.Fatalf("learn -q: exit %d: %s", code, stderr)
	}
	for _, f := range []string{json, dot} {
		info, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if data, _ := os.ReadFile(f); string(data) == "earlier run\n" || info.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, content %.40q; want the new model, still 0600", f, info.Mode().Perm(), data)
		}
	}
}

// An extension no format has is refused, listing the formats, and nothing
// is written: x.png never holds DOT.
func TestExportRefusesAnExtensionItDoesNotWrite(t *testing.T) {
	dir := t.TempDir()
	file := learnAsyncTask(t, dir)
	out := filepath.Join(dir, "x.png")
	code, stdout, stderr := droidstar(t, "export", file, "-o", out)
	want := "droidstar: -o " + out + ": export writes no .png files; it writes .json (json), .dot (dot), .svg (svg), " +
		".mmd (mermaid), .gv (legacy-dot), .lifestate.txt (lifestate), .lifestate.json (lifestate-json), .txt (summary): " +
		"name the file with one of these extensions, or give --format\n"
	if code != ExitUsage || stdout != "" || stderr != want {
		t.Fatalf("exit %d\nstdout %q\nstderr %q\nwant   %q", code, stdout, stderr, want)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("%s was written (%v)", out, err)
	}
}

// Given the DOT that learn writes beside the model, export, report and
// diff say that they read the model JSON, and name it when it is there.
func TestModelCommandsGivenDOT(t *testing.T) {
	dir := t.TempDir()
	file := learnAsyncTask(t, dir)
	dot := filepath.Join(dir, "AsyncTask.dot")
	if code, _, stderr := droidstar(t, "export", file, "-o", dot); code != ExitOK {
		t.Fatal(stderr)
	}
	const reads = ": this is Graphviz DOT; droidstar reads the model JSON that 'droidstar learn' writes"
	alone := filepath.Join(t.TempDir(), "typestate.dot")
	if err := os.WriteFile(alone, []byte("// drawn by hand\nstrict digraph {\n  a -> b\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"export", dot}, ExitFail, dot + reads + ": give " + file + " instead"},
		{[]string{"report", dot, "-o", filepath.Join(dir, "r.html")}, ExitFail, dot + reads + ": give " + file + " instead"},
		{[]string{"diff", file, dot}, ExitUsage, dot + reads + ": give " + file + " instead"},
		{[]string{"export", alone}, ExitFail, alone + reads + " (NAME.json, beside NAME.dot): give that instead"},
	} {
		code, stdout, stderr := droidstar(t, c.args...)
		if want := "droidstar: " + c.want + "\n"; code != c.code || stdout != "" || stderr != want {
			t.Errorf("%v: exit %d\nstdout %q\nstderr %q\nwant   %q", c.args, code, stdout, stderr, want)
		}
	}
}

func TestLooksLikeDOT(t *testing.T) {
	for text, want := range map[string]bool{
		"digraph AsyncTask {\n":            true,
		"\ufeff  digraph{a->b}":            true,
		"strict digraph {}":                true,
		"Graph\n{\n}":                      true,
		"// a comment\n# another\ngraph G": true,
		"digraphs are drawn":               false,
		`{"format": "droidstar-model"}`:    false,
		"// only a comment":                false,
		"":                                 false,
	} {
		if got := looksLikeDOT([]byte(text)); got != want {
			t.Errorf("looksLikeDOT(%q) = %v", text, got)
		}
	}
}

// export --bundle writes the DOT the SVG is drawn from; without it DOT has
// one edge per transition; other formats refuse the flag.
func TestExportBundle(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := droidstar(t, "learn", "--example", "mediaplayer", "-o", dir, "-q", "--write", "json"); code != ExitOK {
		t.Fatal(stderr)
	}
	file := filepath.Join(dir, "MediaPlayer.json")
	code, stdout, stderr := droidstar(t, "export", file, "-f", "dot", "--bundle")
	want, err := os.ReadFile(repoPath("testdata", "export", "examples", "mediaplayer.bundled.dot"))
	if err != nil {
		t.Fatal(err)
	}
	if code != ExitOK || stdout != string(want) {
		t.Fatalf("export -f dot --bundle: exit %d: %s\n%s", code, stderr, stdout)
	}
	code, stdout, _ = droidstar(t, "export", file, "-f", "dot")
	want, _ = os.ReadFile(repoPath("testdata", "export", "examples", "mediaplayer.dot"))
	if code != ExitOK || stdout != string(want) {
		t.Fatalf("export -f dot: exit %d:\n%s", code, stdout)
	}
	code, stdout, stderr = droidstar(t, "export", file, "-f", "mermaid", "--bundle")
	if code != ExitUsage || stdout != "" || stderr != "droidstar: --bundle: only the dot format bundles on request (svg always does), not mermaid\n" {
		t.Fatalf("export -f mermaid --bundle: exit %d, stderr %q", code, stderr)
	}
}
