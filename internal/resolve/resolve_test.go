package resolve

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/droidstar/droidstar/internal/purpose"
)

var (
	buildOnce sync.Once
	built     string
	buildErr  error
)

// resolver builds the resolver once (make fetches android.jar when it is
// missing) and returns the options to run it with.
func resolver(t *testing.T) Options {
	t.Helper()
	for _, tool := range []string{"make", "javac", "java"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s on PATH: the resolver is Java, built with make", tool)
		}
	}
	buildOnce.Do(func() {
		built, buildErr = Build(context.Background(), filepath.Join("..", "..", "harness-apk"))
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return Options{Classpath: built}
}

// wants reads the "# want: " lines at the top of a fixture, FILE standing
// for its path.
func wants(t *testing.T, file string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		w, ok := strings.CutPrefix(line, "# want: ")
		if !ok {
			continue
		}
		out = append(out, strings.ReplaceAll(w, "FILE", file))
	}
	if len(out) == 0 {
		t.Errorf("%s has no '# want: ' line", file)
	}
	return strings.Join(out, "\n")
}

// TestBadDevicePurposes: copies of example purposes with one mistake each
// that only a device (or android.jar) can see fail at the purpose's field
// with the message configure gives on a device.
func TestBadDevicePurposes(t *testing.T) {
	o := resolver(t)
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "purposes", "adb-bad", "*.yaml"))
	if len(files) < 5 {
		t.Fatalf("found %d adb-bad purposes", len(files))
	}
	var jobs []Job
	for _, f := range files {
		p, err := purpose.Load(f)
		if err != nil {
			t.Fatalf("%s does not load: %v", f, err)
		}
		jobs = append(jobs, Job{Purpose: p})
	}
	results, err := Run(context.Background(), jobs, o)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range results {
		want := wants(t, files[i])
		if r.Err == nil || r.Err.Error() != want {
			t.Errorf("%s:\n got %v\nwant %s", files[i], r.Err, want)
		}
	}
}

// writeTree writes files (slash paths relative to root) under root.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const timerPurpose = `name: T
class: android.os.CountDownTimer
target:
  new: [{long: 1000}, {long: 5000}]
callins:
  - start
  - %s
callbacks:
  - symbol: finished
    from: [onFinish]
timeouts:
  quiescence: 1s
backend:
  %s: {}
`

// TestCheckExamples: a folder of examples, each kind of outcome once,
// built with the real adapter.mk (which compiles adapters with javac).
func TestCheckExamples(t *testing.T) {
	o := resolver(t)
	mk, err := filepath.Abs(filepath.Join("..", "..", "examples", "adapter.mk"))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	makefile := "ADAPTER_JAR := adapter/a.jar\nLIB_JARS := %s\nJVM_JARS := %s\ninclude " + mk + "\n%s"
	adapter := "package a;\n\npublic final class Timers {\n    public static final long SECOND = 1000;\n}\n"
	withJars := strings.Replace(timerPurpose, "new: [{long: 1000}, {long: 5000}]", "new: [{constant: a.Timers.SECOND}, {long: 5000}]", 1)
	parsed := func(param string) string {
		return "parameters:\n  " + param + ": the count-down, in ms\n" + strings.Replace(sprintf(timerPurpose, "cancel", "adb"),
			"new: [{long: 1000}, {long: 5000}]", "new: [{call: [java.lang.Long, parseLong, {param: "+param+"}]}, {long: 5000}]", 1)
	}
	writeTree(t, root, map[string]string{
		// resolves, its parameter's value given by the environment
		"examples/param/purpose.yaml": parsed("ms"),
		// the value missing
		"examples/unset/purpose.yaml": parsed("unset_ms"),
		// resolves: no jars
		"examples/good/purpose.yaml": sprintf(timerPurpose, "cancel", "adb"),
		// a misspelt method
		"examples/misspelt/purpose.yaml": sprintf(timerPurpose, "cancle", "adb"),
		// not a device purpose: left out
		"examples/jvmonly/purpose.yaml": sprintf(timerPurpose, "cancle", "jvm"),
		// resolves against its adapter's class files
		"examples/adapted/purpose.yaml":                  "jars: [adapter/a.jar]\n" + sprintf(withJars, "cancel", "adb"),
		"examples/adapted/Makefile":                      sprintf(makefile, "", "", ""),
		"examples/adapted/adapter/src/a/Timers.java":     adapter,
		"examples/unavailable/purpose.yaml":              "jars: [adapter/a.jar, libs/lib.jar]\n" + sprintf(withJars, "cancel", "adb"),
		"examples/unavailable/Makefile":                  sprintf(makefile, "libs/lib.jar", "libs/jvm/lib.jar", "libs/jvm/lib.jar:\n\t@echo \"missing $@: get it yourself\"; exit 1\n"),
		"examples/unavailable/adapter/src/a/Timers.java": adapter,
		"examples/unobtained/purpose.yaml":               "jars: [adapter/a.jar, libs/lib.jar]\n" + sprintf(withJars, "cancel", "adb"),
		"examples/unobtained/Makefile":                   sprintf(makefile, "libs/lib.jar", "libs/jvm/lib.jar", "libs/jvm/lib.jar:\n\t@echo \"missing $@: get it yourself\"; exit 1\n"),
		"examples/unobtained/adapter/src/a/Timers.java":  adapter,
		"examples/unbuilt/purpose.yaml":                  "jars: [adapter/a.jar, libs/other.jar]\n" + sprintf(withJars, "cancel", "adb"),
		"examples/unbuilt/Makefile":                      sprintf(makefile, "", "", ""),
		"examples/unbuilt/adapter/src/a/Timers.java":     adapter,
		"examples/broken/purpose.yaml":                   "jars: [adapter/a.jar]\n" + sprintf(withJars, "cancel", "adb"),
		"examples/broken/Makefile":                       sprintf(makefile, "", "", ""),
		"examples/broken/adapter/src/a/Timers.java":      "package a;\n\npublic final class Timers {\n    oops\n}\n",
	})
	outcomes, err := CheckExamples(context.Background(), root, CheckOptions{Options: o,
		Unavailable: map[string]string{"unavailable": "the library is not in Debian", "broken": "not this one"},
		Getenv:      func(k string) string { return map[string]string{"DROIDSTAR_SET_MS": "1000"}[k] }})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, oc := range outcomes {
		line := strings.TrimPrefix(oc.File, root+"/")
		switch {
		case oc.Err != nil:
			line += " error: " + strings.ReplaceAll(oc.Err.Error(), root+"/", "")
		case oc.Skipped != "":
			line += " skipped: " + oc.Skipped
		default:
			line += " shims: " + strings.Join(oc.Shims, ", ")
		}
		got = append(got, line)
	}
	want := []string{
		"examples/adapted/purpose.yaml shims: android.os.CountDownTimer",
		// an unavailable library is a reason to skip, a broken build is not
		"examples/broken/purpose.yaml error: examples/broken/purpose.yaml: make -C examples/broken resolve-classpath: exit status 2",
		"examples/good/purpose.yaml shims: android.os.CountDownTimer",
		"examples/misspelt/purpose.yaml error: examples/misspelt/purpose.yaml:7:5: callins[1].call: class android.os.CountDownTimer has no method that accepts cancle()",
		"examples/param/purpose.yaml shims: android.os.CountDownTimer",
		"examples/unavailable/purpose.yaml skipped: the library is not in Debian; make said: missing libs/jvm/lib.jar: get it yourself",
		"examples/unbuilt/purpose.yaml error: examples/unbuilt/purpose.yaml:1:23: jars[1]: examples/unbuilt/Makefile builds no libs/other.jar (it builds adapter/a.jar)",
		"examples/unobtained/purpose.yaml error: examples/unobtained/purpose.yaml: a host jar it needs is missing (libs/jvm/lib.jar); make said: missing libs/jvm/lib.jar: get it yourself",
		"examples/unset/purpose.yaml error: examples/unset/purpose.yaml:2:3: parameters.unset_ms: needs a value (the count-down, in ms): give it with --set unset_ms=VALUE, or in the environment as DROIDSTAR_SET_UNSET_MS",
	}
	if len(got) != len(want) {
		t.Fatalf("outcomes:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i := range want {
		// make's own report of the broken build follows the first line
		if first, _, _ := strings.Cut(got[i], "\n"); first != want[i] {
			t.Errorf("got  %s\nwant %s", got[i], want[i])
		}
	}
	if !strings.Contains(got[1], "adapter/src/a/Timers.java:4: error: <identifier> expected") {
		t.Errorf("the broken build's error lacks javac's complaint: %s", got[1])
	}
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// TestInitDraftResolves: droidstar init's draft of MediaPlayer
// (testdata/init, kept by internal/cli's golden test) resolves against
// android.jar as it is: every active callin, listener and callback is one
// a device would accept at configure.
func TestInitDraftResolves(t *testing.T) {
	o := resolver(t)
	p, err := purpose.Load(filepath.Join("..", "..", "testdata", "init", "mediaplayer.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	results, err := Run(context.Background(), []Job{{Purpose: p}}, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 1 || results[0].Err != nil {
		t.Fatalf("results %+v", results)
	}
}
