package cli

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/resolve"
)

// markerJava is a target whose static initialiser leaves a file behind: the
// trace of code run on the user's behalf.
const markerJava = `package marker;

public class Marked {
    static {
        try {
            java.nio.file.Files.write(java.nio.file.Paths.get(System.getProperty("droidstar.marker")), new byte[0]);
        } catch (java.io.IOException e) {
            throw new RuntimeException(e);
        }
    }

    public static int ONE = 1;

    public void poke(int n) {}
}
`

// TestCheckRunsNothing: check without --resolve starts no JVM and so runs
// no static initialiser of the purpose's jars; --resolve does (reading the
// constant initialises the class), and says so.
func TestCheckRunsNothing(t *testing.T) {
	needJava(t)
	javac, err := exec.LookPath("javac")
	if err != nil {
		t.Skip("javac is not on PATH: this test builds its own jar")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "src", "marker", "Marked.java")
	if err := os.MkdirAll(filepath.Dir(src), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, []byte(markerJava), 0o644); err != nil {
		t.Fatal(err)
	}
	classes := filepath.Join(dir, "classes")
	if out, err := exec.Command(javac, "--release", "8", "-d", classes, src).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	jarTool := filepath.Join(filepath.Dir(javac), "jar")
	if out, err := exec.Command(jarTool, "cf", filepath.Join(dir, "marked.jar"), "-C", classes, ".").CombinedOutput(); err != nil {
		t.Fatalf("jar: %v\n%s", err, out)
	}
	marker := filepath.Join(dir, "marker")
	file := filepath.Join(dir, "marked.yaml")
	purposeText := `name: Marked
class: marker.Marked
jars: [marked.jar]
callins:
  - symbol: poke
    args: [{constant: marker.Marked.ONE}]
timeouts: {quiescence: 50ms, settle: 0ms, post_reset: 0ms}
backend:
  jvm: {options: ["-Ddroidstar.marker=` + marker + `"]}
`
	if err := os.WriteFile(file, []byte(purposeText), 0o644); err != nil {
		t.Fatal(err)
	}

	code, stdout, stderr := droidstar(t, "check", file)
	want := file + ": ok: Marked, 1 callin, 0 callbacks, bound 2, backends jvm (not resolved: check --resolve runs the harness)\n"
	if code != ExitOK || stdout != want || stderr != "" {
		t.Fatalf("check: exit %d\nstdout %q\nwant   %q\nstderr %s", code, stdout, want, stderr)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("check ran the jar's static initialiser (marker: %v)", err)
	}

	code, stdout, stderr = droidstar(t, "check", "--resolve", file)
	if code != ExitOK || stderr != "" || !strings.HasPrefix(stdout, file+": ok: Marked, 1 callin, 0 callbacks, bound 2, backends jvm (ran the harness on ") ||
		!strings.HasSuffix(stdout, ": target resolved)\n") {
		t.Fatalf("check --resolve: exit %d\nstdout %q\nstderr %s", code, stdout, stderr)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("check --resolve did not load the target: %v", err)
	}
}

// A misspelt callback name passes plain check (only the harness knows the
// listeners' methods) and learning on sim (which never reads it); check
// --resolve --resolver finds it on this host, at its line, with the names
// the listeners and shims have.
func TestCheckResolvesAdbPurposesOnTheHost(t *testing.T) {
	for _, tool := range []string{"make", "javac", "java"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s on PATH: the resolver is Java, built with make", tool)
		}
	}
	cp, err := resolve.Build(context.Background(), repoPath("harness-apk"))
	if err != nil {
		t.Fatal(err)
	}
	bad := repoPath("testdata", "purposes", "adb-bad", "misspelt-from.yaml")
	good := repoPath("examples", "countdowntimer", "purpose.yaml")
	code, stdout, _ := droidstar(t, "check", bad)
	if code != ExitOK || !strings.HasPrefix(stdout, bad+": ok: CountDownTimer, 2 callins, 1 callback, bound 2, backends adb (resolved on the device when learning starts), sim") {
		t.Fatalf("plain check: exit %d, %s", code, stdout)
	}
	code, stdout, stderr := droidstar(t, "check", "--resolve", "--resolver", cp, bad, good)
	wantOut := good + ": ok: CountDownTimer, 2 callins, 1 callback, bound 2, backends adb (resolved on this host against android.jar, API 23), sim (mealy-dot model, 4 states)\n"
	wantErr := bad + ":25:12: callbacks[0].from[0]: onFinsh is no method of any listener or shim of the purpose (they have onFinish, onTick, cancel, start)\n" +
		"droidstar: 1 of 2 purpose files have errors\n"
	if code != ExitFail || stdout != wantOut || stderr != wantErr {
		t.Fatalf("exit %d\nstdout:\n%s\nwant:\n%s\nstderr:\n%s\nwant:\n%s", code, stdout, wantOut, stderr, wantErr)
	}
	code, _, stderr = droidstar(t, "check", "--resolver", cp, good)
	if want := "droidstar: --resolver applies with --resolve, which resolves the purposes' classes\n"; code != ExitUsage || stderr != want {
		t.Fatalf("--resolver alone: exit %d, %q", code, stderr)
	}
}
