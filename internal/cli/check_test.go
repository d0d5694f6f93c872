package cli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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

	code, stdout, stderr := run(t, "check", file)
	want := file + ": ok: Marked, 1 callin, 0 callbacks, bound 2, backends jvm (not resolved: check --resolve runs the harness)\n"
	if code != ExitOK || stdout != want || stderr != "" {
		t.Fatalf("check: exit %d\nstdout %q\nwant   %q\nstderr %s", code, stdout, want, stderr)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("check ran the jar's static initialiser (marker: %v)", err)
	}

	code, stdout, stderr = run(t, "check", "--resolve", file)
	if code != ExitOK || stderr != "" || !strings.HasPrefix(stdout, file+": ok: Marked, 1 callin, 0 callbacks, bound 2, backends jvm (ran the harness on ") ||
		!strings.HasSuffix(stdout, ": target resolved)\n") {
		t.Fatalf("check --resolve: exit %d\nstdout %q\nstderr %s", code, stdout, stderr)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("check --resolve did not load the target: %v", err)
	}
}
