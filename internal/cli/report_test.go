package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/render"
	"github.com/droidstar/droidstar/internal/render/rendertest"
)

func TestReport(t *testing.T) {
	t.Setenv(render.EnvHelper, rendertest.Helper(t))
	dir := t.TempDir()
	file := learnAsyncTask(t, dir)
	out := filepath.Join(dir, "report.html")
	code, stdout, stderr := droidstar(t, "report", file, "-o", out)
	if code != ExitOK || stdout != "" || stderr != "wrote "+out+"\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	svg, _ := os.ReadFile(repoPath("testdata", "export", "examples", "asynctask.svg"))
	body := string(svg[strings.Index(string(svg), "<svg"):])
	if !strings.HasPrefix(string(page), "<!DOCTYPE html>") || !strings.Contains(string(page), strings.TrimSpace(body)) {
		t.Errorf("the report does not inline the typestate SVG")
	}
	// Without -o the page goes to stdout.
	code, stdout, _ = droidstar(t, "report", file)
	if code != ExitOK || stdout != string(page) {
		t.Errorf("exit %d; stdout differs from the file", code)
	}
}

// Without the helper the report is written all the same, says why the
// picture is missing, and droidstar warns.
func TestReportWithoutHelper(t *testing.T) {
	t.Setenv(render.EnvHelper, "")
	t.Setenv("PATH", t.TempDir())
	dir := t.TempDir()
	file := learnAsyncTask(t, dir)
	out := filepath.Join(dir, "report.html")
	code, _, stderr := droidstar(t, "report", file, "-o", out)
	if code != ExitOK || !strings.Contains(stderr, "warning: the report has no typestate picture: droidstar-render not found") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	page, _ := os.ReadFile(out)
	if !strings.Contains(string(page), "The typestate picture is missing: svg: droidstar-render not found") || strings.Contains(string(page), "<svg") {
		t.Errorf("the page does not say the picture is missing")
	}
}

func TestReportExitCodes(t *testing.T) {
	if code, _, stderr := droidstar(t, "report"); code != ExitUsage || !strings.Contains(stderr, "takes one model file") {
		t.Errorf("no argument: exit %d: %s", code, stderr)
	}
	if code, _, _ := droidstar(t, "report", "a.json", "--bogus"); code != ExitUsage {
		t.Errorf("unknown flag: exit %d", code)
	}
	if code, _, stderr := droidstar(t, "report", filepath.Join(t.TempDir(), "missing.json")); code != ExitFail || !strings.Contains(stderr, "missing.json") {
		t.Errorf("missing file: exit %d: %s", code, stderr)
	}
	code, stdout, _ := droidstar(t, "report", "--help")
	if code != ExitOK || !strings.Contains(stdout, "droidstar report out/MediaPlayer.json -o mediaplayer.html") {
		t.Errorf("help: exit %d:\n%s", code, stdout)
	}
}
