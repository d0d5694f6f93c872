package cli

import (
	"archive/zip"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/golden"
	"github.com/droidstar/droidstar/internal/model"
)

// androidJar is Debian's android.jar (API 23), fetched as the resolver's
// tests fetch it (make -C harness-apk android-tools). Without it the test
// is skipped, unless DROIDSTAR_REQUIRE_ANDROID_JAR=1 (CI) makes that a
// failure.
func androidJar(t *testing.T) string {
	t.Helper()
	jar, _ := filepath.Abs(repoPath("harness-apk", "build", "android", "android.jar"))
	if _, err := os.Stat(jar); err == nil {
		return jar
	}
	out, err := exec.Command("make", "-s", "-C", repoPath("harness-apk"), "android-tools").CombinedOutput()
	if err == nil {
		if _, err = os.Stat(jar); err == nil {
			return jar
		}
	}
	msg := "no android.jar (make -C harness-apk android-tools: " + strings.TrimSpace(string(out)) + "): the Android draft needs it"
	if os.Getenv("DROIDSTAR_REQUIRE_ANDROID_JAR") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// javaLine is the draft header's "(read by reflection on Java N" part: the
// JDK's classes differ between versions, so a golden holds for one.
var javaLine = regexp.MustCompile(`reflection on Java [0-9.]+`)

// TestInitDraftsGolden drafts the classes of the issues and compares
// each with its golden file (go test ./internal/cli -update rewrites
// them); each draft passes check as it is, and the JVM ones resolve on the
// harness.
func TestInitDraftsGolden(t *testing.T) {
	needJava(t)
	cases := []struct {
		name, class string
		android     bool
	}{
		{"timer", "java.util.Timer", false},
		{"completablefuture", "java.util.concurrent.CompletableFuture", false},
		{"mediaplayer", "android.media.MediaPlayer", true},
		{"submissionpublisher", "java.util.concurrent.SubmissionPublisher", false},
		{"scheduledthreadpoolexecutor", "java.util.concurrent.ScheduledThreadPoolExecutor", false},
		// abstract callback classes (CameraDevice.StateCallback), passed
		// to openCamera and register*Callback with a Handler
		{"cameramanager", "android.hardware.camera2.CameraManager", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := []string{"init", c.class}
			if c.android {
				args = append(args, "--android-jar", androidJar(t))
			}
			code, stdout, stderr := droidstar(t, args...)
			if code != ExitOK || stderr != "" {
				t.Fatalf("exit %d, stderr %s", code, stderr)
			}
			file := repoPath("testdata", "init", c.name+".yaml")
			if !golden.Updating() {
				want, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				if g, w := javaLine.FindString(stdout), javaLine.FindString(string(want)); g != w {
					t.Skipf("%s was drafted by %s, this JVM gives %s: the JDK's classes differ between versions", file, w, g)
				}
			}
			golden.Check(t, "init", c.name+".yaml", []byte(stdout), "./internal/cli")
			check := []string{"check", file}
			if !c.android {
				check = []string{"check", "--resolve", file}
			}
			if code, stdout, stderr := droidstar(t, check...); code != ExitOK || !strings.Contains(stdout, ": ok: ") {
				t.Errorf("%v: exit %d\n%s%s", check, code, stdout, stderr)
			}
		})
	}
}

// timerWalkthrough is examples/jvm/README.md's edit of the Timer draft,
// step by step as that README lists it.
var timerWalkthrough = []draftEdit{
	// 1. A daemon timer: the boolean constructor, with true.
	{op: "delete", line: "  new: []"},
	{op: "delete", line: `  # new: ["text"]`},
	{op: "replace", line: "  # new: [false]", with: "  new: [true]"},
	{op: "delete", line: `  # new: ["text", false]`},
	// 2. Stop the timer thread after each query.
	{op: "replace", line: "  # dispose: release", with: "  dispose: cancel"},
	// 3. Three callins: schedule(task, 200 ms), Timer.cancel(), TimerTask.cancel().
	{op: "delete-callin", line: "purge"},
	{op: "delete-callin", line: "schedule_TimerTask_Date"},
	{op: "replace", line: "  - symbol: schedule_TimerTask_long", with: "  - symbol: schedule"},
	{op: "replace", line: "    args: [{listener: java.util.TimerTask}, {long: 0}]", with: "    args: [{listener: java.util.TimerTask}, {long: 200}]"},
	{op: "delete-callin", line: "schedule_TimerTask_Date_long"},
	{op: "delete-callin", line: "schedule_TimerTask_long_long"},
	{op: "delete-callin", line: "scheduleAtFixedRate_TimerTask_Date_long"},
	{op: "delete-callin", line: "scheduleAtFixedRate_TimerTask_long_long"},
	{op: "replace", line: "  - symbol: TimerTask_cancel", with: "  - symbol: taskcancel"},
	{op: "delete-callin", line: "TimerTask_scheduledExecutionTime"},
	// 4. No restrictions: a TimerTask is scheduled once (a second schedule
	// of it throws), so the schedules cannot pile up.
	{op: "delete", line: "# restrictions:"},
	{op: "delete", line: "#   - {at_most: 2, of: [schedule_TimerTask_Date, schedule_TimerTask_long, schedule_TimerTask_Date_long, schedule_TimerTask_long_long, scheduleAtFixedRate_TimerTask_Date_long, scheduleAtFixedRate_TimerTask_long_long]}"},
}

// draftEdit is one edit of a draft: delete a line, replace it (a trailing
// comment is kept), insert a line after it, delete the callin of a symbol
// with its lines (also one commented out), or delete every commented-out
// callin.
type draftEdit struct{ op, line, with string }

func applyEdits(t *testing.T, draft string, edits []draftEdit) string {
	t.Helper()
	lines := strings.Split(draft, "\n")
	lookup := func(prefix string) int {
		for i, l := range lines {
			code, _, _ := strings.Cut(l, "  #")
			if strings.HasPrefix(l, "  #") {
				code = l
				if j := strings.Index(l[3:], "  #"); j >= 0 {
					code = l[:3+j]
				}
			}
			if strings.TrimRight(code, " ") == prefix {
				return i
			}
		}
		return -1
	}
	find := func(prefix string) int {
		i := lookup(prefix)
		if i < 0 {
			t.Fatalf("the draft has no line %q", prefix)
		}
		return i
	}
	for _, e := range edits {
		switch e.op {
		case "delete":
			i := find(e.line)
			lines = append(lines[:i], lines[i+1:]...)
		case "replace":
			i := find(e.line)
			rest := lines[i][len(e.line):]
			if c := strings.Index(rest, "# "); c >= 0 {
				// the comment stays in its column
				col := len(e.line) + c
				lines[i] = e.with + strings.Repeat(" ", max(2, col-len(e.with))) + rest[c:]
			} else {
				lines[i] = e.with
			}
		case "insert":
			// new lines after the line
			i := find(e.line)
			lines = append(lines[:i+1], append(strings.Split(e.with, "\n"), lines[i+1:]...)...)
		case "keep-callins":
			// delete every callin, commented out or not, but those of the
			// symbols listed in with
			keep := map[string]bool{}
			for _, sym := range strings.Split(e.with, ", ") {
				keep[sym] = true
			}
			var kept []string
			inCallins := false
			for i := 0; i < len(lines); i++ {
				if l := lines[i]; l != "" && l[0] != ' ' && l[0] != '#' {
					inCallins = strings.HasPrefix(l, "callins:")
				}
				code, _, _ := strings.Cut(strings.TrimPrefix(lines[i], "  # "), "  #")
				code = strings.TrimPrefix(code, "  ")
				if sym, ok := strings.CutPrefix(code, "- symbol: "); ok && inCallins && strings.HasPrefix(lines[i], "  ") && !keep[strings.TrimSpace(sym)] {
					more := "    "
					if strings.HasPrefix(lines[i], "  # ") {
						more = "  #   "
					}
					for i+1 < len(lines) && strings.HasPrefix(lines[i+1], more) {
						i++
					}
					continue
				}
				kept = append(kept, lines[i])
			}
			lines = kept
		case "delete-commented-callins":
			// every callin commented out: "  # - symbol:" and the
			// "  #   " lines under it
			var kept []string
			for i := 0; i < len(lines); i++ {
				if strings.HasPrefix(lines[i], "  # - symbol: ") {
					for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "  #   ") {
						i++
					}
					continue
				}
				kept = append(kept, lines[i])
			}
			lines = kept
		case "delete-callin":
			// a callin, or one commented out
			i, more := lookup("  - symbol: "+e.line), "    "
			if i < 0 {
				i, more = find("  # - symbol: "+e.line), "  #   "
			}
			j := i + 1
			for j < len(lines) && strings.HasPrefix(lines[j], more) {
				j++
			}
			lines = append(lines[:i], lines[j:]...)
		}
	}
	return strings.Join(lines, "\n")
}

// TestInitTimerWalkthrough: the Timer draft, edited as the walkthrough in
// examples/jvm/README.md says (timerWalkthrough), is the purpose that README
// shows (testdata/init/timer-edited.yaml), and learns on the JVM the
// typestate examples/jvm/timer.yaml does.
func TestInitTimerWalkthrough(t *testing.T) {
	needJava(t)
	code, draft, stderr := droidstar(t, "init", "java.util.Timer")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	edited := applyEdits(t, draft, timerWalkthrough)
	goldenFile := repoPath("testdata", "init", "timer-edited.yaml")
	if !golden.Check(t, "init", "timer-edited.yaml", []byte(edited), "./internal/cli") {
		t.FailNow()
	}
	readmePath := repoPath("examples", "jvm", "README.md")
	readme, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```yaml\n"+edited+"```\n") {
		t.Errorf("%s does not show %s as its walkthrough's result", readmePath, goldenFile)
	}
	file := filepath.Join(t.TempDir(), "timer.yaml")
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := droidstar(t, "learn", file, "--lanes", "4", "-o", t.TempDir())
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// examples/jvm/timer.yaml's typestate (timerEdges) with s1 and s2
	// named the other way round: the draft lists cancel before schedule.
	const wantEdges = `s0 --cancel--> s1
s0 --schedule--> s2
s0 --taskcancel--> s1
s1 --cancel--> s1
s1 --taskcancel--> s1
s2 --cancel--> s1
s2 --taskcancel--> s1
s2 ==run==> s1`
	if got := typestateLines(stdout); got != wantEdges || !strings.Contains(stdout, "\n  3 states") {
		t.Errorf("summary:\n%s\nwant 3 states:\n%s", stdout, wantEdges)
	}
	if swapped := sortedLines(strings.NewReplacer("s1", "s2", "s2", "s1").Replace(wantEdges)); swapped != sortedLines(timerEdges) {
		t.Errorf("the walkthrough's typestate is not the example's:\n%s\nwant\n%s", swapped, sortedLines(timerEdges))
	}
}

func sortedLines(s string) string {
	lines := strings.Split(s, "\n")
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// TestInitErrors: each way init can fail says what and why, with the exit
// code of the other commands (1 for a failure, 2 for a wrong command line).
func TestInitErrors(t *testing.T) {
	needJava(t)
	existing := filepath.Join(t.TempDir(), "timer.yaml")
	if err := os.WriteFile(existing, []byte("my edits\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		args   []string
		env    map[string]string
		code   int
		stderr string
	}{
		{"unknown class", []string{"init", "java.util.concurrent.CompletableFutur"}, nil, ExitFail,
			"droidstar: no class java.util.concurrent.CompletableFutur on the class path; did you mean java.util.concurrent.CompletableFuture?\n"},
		{"nested class in source form", []string{"init", "java.util.ArrayList.Itr"}, nil, ExitFail,
			"droidstar: java.util.ArrayList$Itr is not public: the harness calls public API only\n"},
		{"no public instance methods", []string{"init", "java.lang.Math"}, nil, ExitFail,
			"droidstar: java.lang.Math has no public instance methods: a purpose's callins are methods called on an instance, and there are none to draft\n"},
		{"android class without android.jar", []string{"init", "android.media.MediaPlayer"},
			map[string]string{"ANDROID_HOME": "", "ANDROID_SDK_ROOT": ""}, ExitFail,
			"droidstar: android.media.MediaPlayer is an Android class, and droidstar init reads those from android.jar (API 23), which it did not find: " +
				"pass --android-jar PATH or set ANDROID_HOME to an SDK with platforms/android-23 " +
				"(in a clone of droidstar, make -C harness-apk android-tools fetches it into harness-apk/build/android/android.jar)\n"},
		{"no java", []string{"init", "java.util.Timer"}, map[string]string{"PATH": t.TempDir(), "JAVA_HOME": ""}, ExitFail,
			"droidstar: droidstar init reads the class by reflection on a JVM, but there is no java on PATH and JAVA_HOME is not set (install a JDK or JRE, e.g. apt-get install default-jre-headless)\n"},
		{"missing jar", []string{"init", "org.example.Gadget", "--jar", "no-such.jar"}, nil, ExitFail,
			"droidstar: --jar no-such.jar: stat no-such.jar: no such file or directory\n"},
		{"over an existing file", []string{"init", "java.util.Timer", "-o", existing}, nil, ExitFail,
			"droidstar: " + existing + " exists, and init does not write over a purpose: remove it or give another -o\n"},
		{"no class", []string{"init"}, nil, ExitUsage,
			"droidstar: droidstar init takes one class name, got 0 arguments\nRun 'droidstar init --help' for usage.\n"},
		{"two classes", []string{"init", "java.util.Timer", "java.util.TimerTask"}, nil, ExitUsage,
			"droidstar: droidstar init takes one class name, got 2 arguments\nRun 'droidstar init --help' for usage.\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			code, stdout, stderr := droidstar(t, c.args...)
			if code != c.code || stdout != "" || stderr != c.stderr {
				t.Errorf("exit %d, stdout %q\nstderr %q\nwant   %q (exit %d)", code, stdout, stderr, c.stderr, c.code)
			}
		})
	}
	if data, _ := os.ReadFile(existing); string(data) != "my edits\n" {
		t.Errorf("init wrote over %s: %q", existing, data)
	}
}

// TestInitLibraryJar drafts a class of a library given with --jar: its
// listener, registered through setOnChangeListener, becomes a registered
// proxy whose method is a callback; -o writes the draft, which passes
// check --resolve with the jar.
func TestInitLibraryJar(t *testing.T) {
	needJava(t)
	if _, err := exec.LookPath("javac"); err != nil {
		t.Skip("no javac on PATH: the library is compiled for the test")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "src", "org", "example")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	gadget := `package org.example;
public class Gadget {
    public interface ChangeListener { void onChange(int level); }
    public Gadget(String name) {}
    public void setOnChangeListener(ChangeListener l) {}
    public void turn(int level) {}
    public boolean isOn() { return false; }
}
`
	sources := map[string]string{
		"Gadget.java": gadget,
		"Part.java":   "package org.example;\npublic class Part {}\n",
		"Widget.java": "package org.example;\npublic class Widget {\n    public void attach(Part p) {}\n}\n",
	}
	args := []string{"--release", "8", "-d", filepath.Join(dir, "classes")}
	for name, text := range sources {
		if err := os.WriteFile(filepath.Join(src, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, filepath.Join(src, name))
	}
	classes := filepath.Join(dir, "classes")
	if out, err := exec.Command("javac", args...).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	jar := filepath.Join(dir, "libs", "gadget.jar")
	zipFolder(t, classes, jar)
	file := filepath.Join(dir, "gadget.yaml")
	code, stdout, stderr := droidstar(t, "init", "org.example.Gadget", "--jar", jar, "-o", file)
	if code != ExitOK || stdout != "" || stderr != "wrote "+file+"\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	body := string(data)[strings.Index(string(data), "name: "):]
	want := `name: Gadget
class: org.example.Gadget
jars:                                   # the --jar libraries, relative to this file's folder
  - libs/gadget.jar
target:
  new: ["text"]                         # new org.example.Gadget(String)
  listeners:
    - type: org.example.Gadget$ChangeListener  # a proxy: callbacks onChange
      register: setOnChangeListener     # void setOnChangeListener(org.example.Gadget.ChangeListener)
  # dispose: release                    # a method called after each query: release, close, cancel, shutdown
callins:
  # - symbol: isOn                      # boolean isOn(): a query, no side effect
  - symbol: turn                        # void turn(int)
    args: [{int: 0}]
callbacks:
  - symbol: onChange                    # ChangeListener: void onChange(int)
timeouts:
  quiescence: 500ms                     # how long a wait waits for a callback
  settle: 100ms                         # after a query ending in a quiet answer, for late callbacks
  post_reset: 50ms                      # after a fresh instance is made
bound: 2                                # distinguisher bound in free symbols
backend:
  jvm: {}                               # the harness on this machine's JVM
`
	if body != want {
		t.Errorf("draft:\n%s\nwant\n%s", body, want)
	}
	if code, stdout, stderr := droidstar(t, "check", "--resolve", file); code != ExitOK || !strings.Contains(stdout, "target resolved") {
		t.Errorf("check --resolve: exit %d\n%s%s", code, stdout, stderr)
	}
	// A class whose API names a class the class path lacks.
	if err := os.Remove(filepath.Join(classes, "org", "example", "Part.class")); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = droidstar(t, "init", "org.example.Widget", "--jar", classes)
	if want := "droidstar: cannot read the methods of org.example.Widget: java.lang.NoClassDefFoundError: org/example/Part" +
		" (a class its API uses is missing: add the jar that holds it with --jar)\n"; code != ExitFail || stderr != want {
		t.Errorf("missing dependency: exit %d, stderr %q\nwant %q", code, stderr, want)
	}
	// A class folder is searched too, for the class and for suggestions.
	code, _, stderr = droidstar(t, "init", "org.example.Gadgt", "--jar", classes)
	if code != ExitFail || stderr != "droidstar: no class org.example.Gadgt on the class path; did you mean org.example.Gadget?\n" {
		t.Errorf("misspelt: exit %d, stderr %q", code, stderr)
	}
}

// zipFolder writes the files under dir into the jar (a zip) file.
func zipFolder(t *testing.T, dir, file string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	z := zip.NewWriter(f)
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		w, err := z.Create(filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	})
	if err == nil {
		err = z.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestInitSubmissionPublisher is issue 30's acceptance for init, on any
// JDK (the golden holds for one): subscribe registers a Flow.Subscriber
// proxy, closeExceptionally gets a {new: ...} Throwable, TimeUnit a
// constant, the queries are commented out, restrictions are advised, and
// the draft passes check and check --resolve as it is.
func TestInitSubmissionPublisher(t *testing.T) {
	needJava(t)
	file := filepath.Join(t.TempDir(), "publisher.yaml")
	if code, _, stderr := droidstar(t, "init", "java.util.concurrent.SubmissionPublisher", "-o", file); code != ExitOK {
		t.Fatalf("init: exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	draft := string(data)
	for _, want := range []string{
		"    - type: java.util.concurrent.Flow$Subscriber  # a proxy: callbacks onComplete, onError, onNext, onSubscribe\n" +
			"      register: subscribe               # void subscribe(java.util.concurrent.Flow.Subscriber)\n",
		"  - symbol: closeExceptionally          # void closeExceptionally(Throwable)\n" +
			"    args: [{new: [java.lang.IllegalStateException, boom]}]  # any java.lang.Throwable will do\n",
		"    args: [\"text\", {long: 0}, {constant: java.util.concurrent.TimeUnit.MILLISECONDS}, {listener: java.util.function.BiPredicate}]",
		"  # - symbol: estimateMaximumLag        # int estimateMaximumLag(): a query, no side effect\n",
		"  # - symbol: getExecutor               # java.util.concurrent.Executor getExecutor(): a query, no side effect\n",
		"  # - symbol: isClosed                  # boolean isClosed(): a query, no side effect\n",
		"  - symbol: submit                      # int submit(Object)\n",
		"  - symbol: onSubscribe                 # Subscriber: void onSubscribe(java.util.concurrent.Flow.Subscription)\n",
		"# onSubscribe hands out java.util.concurrent.Flow.Subscription (cancel, request): a callin on it\n" +
			"#   takes on: {callback: [onSubscribe, 0]} and call: METHOD (err no-callback until a wait delivered onSubscribe)\n",
		"# restrictions:                         # offer, submit may be called without end: at_most keeps the model finite\n" +
			"#   - {at_most: 2, of: [offer_Object_BiPredicate, offer_Object_long_TimeUnit_BiPredicate, submit]}\n",
	} {
		if !strings.Contains(draft, want) {
			t.Errorf("the draft lacks\n%s\nin\n%s", want, draft)
		}
	}
	for _, args := range [][]string{{"check", file}, {"check", "--resolve", file}} {
		code, stdout, stderr := droidstar(t, args...)
		ok := strings.Contains(stdout, "publisher.yaml: ok: SubmissionPublisher, 5 callins, 5 callbacks, bound 2, backends jvm")
		if args[1] == "--resolve" {
			ok = ok && strings.Contains(stdout, ": target resolved)")
		}
		if code != ExitOK || !ok {
			t.Errorf("%v: exit %d\n%s%s", args[:len(args)-1], code, stdout, stderr)
		}
	}
}

// firstHour are the edits each examples/jvm README walkthrough lists, from
// init's draft of the class to a purpose that learns the example's
// typestate (TestInitFirstHour); the README shows each list as
// editsMarkdown writes it. timer.yaml's is timerWalkthrough.
var firstHour = []struct {
	example, class string
	edits          []draftEdit
}{
	{"submissionpublisher", "java.util.concurrent.SubmissionPublisher", []draftEdit{
		// A Consumer subscribed by the consume callin, not a Subscriber
		// subscribed at the reset.
		{op: "replace", line: "    - type: java.util.concurrent.Flow$Subscriber", with: "    - type: java.util.function.Consumer"},
		{op: "delete", line: "      register: subscribe"},
		{op: "delete", line: "    - type: java.util.function.BiPredicate"},
		{op: "replace", line: "  # dispose: release", with: "  dispose: close"},
		{op: "delete-callin", line: "closeExceptionally"},
		{op: "replace", line: "  # - symbol: consume", with: "  - symbol: consume"},
		{op: "replace", line: "  #   args: [{listener: java.util.function.Consumer}]", with: "    args: [{listener: java.util.function.Consumer}]"},
		{op: "delete-commented-callins"},
		{op: "delete-callin", line: "offer_Object_BiPredicate"},
		{op: "delete-callin", line: "offer_Object_long_TimeUnit_BiPredicate"},
		{op: "replace", line: "  - symbol: onComplete", with: "  - symbol: accept"},
		{op: "delete", line: "  - symbol: onError"},
		{op: "delete", line: "  - symbol: onNext"},
		{op: "delete", line: "  - symbol: onSubscribe"},
		{op: "delete", line: "  - symbol: test"},
		{op: "delete", line: "# onSubscribe hands out java.util.concurrent.Flow.Subscription (cancel, request): a callin on it"},
		{op: "delete", line: "#   takes on: {callback: [onSubscribe, 0]} and call: METHOD (err no-callback until a wait delivered onSubscribe)"},
		// Quicker: the items come within milliseconds.
		{op: "replace", line: "  quiescence: 500ms", with: "  quiescence: 250ms"},
		{op: "replace", line: "  settle: 100ms", with: "  settle: 20ms"},
		{op: "replace", line: "  post_reset: 50ms", with: "  post_reset: 0ms"},
		// The advice taken: one consumer, two items.
		{op: "replace", line: "# restrictions:", with: "restrictions:"},
		{op: "replace", line: "#   - {at_most: 2, of: [offer_Object_BiPredicate, offer_Object_long_TimeUnit_BiPredicate, submit]}", with: "  - {at_most: 2, of: [submit]}"},
		{op: "insert", line: "restrictions:", with: "  - {at_most: 1, of: [consume]}"},
	}},
	{"failedfuture", "java.util.concurrent.CompletableFuture", []draftEdit{
		// A BiConsumer action, registered by whenComplete at the reset.
		{op: "insert", line: "  new: []", with: "  listeners:\n    - type: java.util.function.BiConsumer\n      register: whenComplete"},
		{op: "keep-callins", with: "cancel, complete, completeExceptionally"},
		{op: "replace", line: "    args: [false]", with: "    args: [true]"},
		{op: "replace", line: `    args: ["text"]`, with: `    args: ["v"]`},
		{op: "replace", line: "  - symbol: completeExceptionally", with: "  - symbol: fail"},
		{op: "insert", line: "  - symbol: fail", with: "    call: completeExceptionally"},
		// No message: the detail of an exception is its toString.
		{op: "replace", line: "    args: [{new: [java.lang.IllegalStateException, boom]}]", with: "    args: [{new: [java.lang.IllegalStateException]}]"},
		// accept(value, exception): its detail is the one that is not null.
		{op: "replace", line: "callbacks: []", with: "callbacks:"},
		{op: "insert", line: "callbacks:", with: "  - symbol: completed\n    from: [accept/v]\n  - symbol: failed\n    from: [accept/java.lang.IllegalStateException]\n" +
			"  - symbol: cancelled\n    from: [accept/java.util.concurrent.CancellationException]\ndetails:\n  accept: [{arg: 0}, {arg: 1}]"},
		{op: "replace", line: "  quiescence: 500ms", with: "  quiescence: 300ms"},
		{op: "replace", line: "  settle: 100ms", with: "  settle: 20ms"},
		{op: "replace", line: "  post_reset: 50ms", with: "  post_reset: 0ms"},
	}},
	{"completablefuture", "java.util.concurrent.CompletableFuture", []draftEdit{
		{op: "insert", line: "  new: []", with: "  listeners:\n    - type: java.util.function.BiConsumer\n      register: whenComplete"},
		// No timeout left to fire into the next query.
		{op: "replace", line: "  # dispose: release", with: "  dispose: {call: cancel, args: [true]}"},
		{op: "keep-callins", with: "cancel, complete, completeOnTimeout"},
		{op: "replace", line: "    args: [false]", with: "    args: [true]"},
		{op: "replace", line: `    args: ["text"]`, with: `    args: ["v"]`},
		{op: "replace", line: "  - symbol: completeOnTimeout", with: "  - symbol: timeout"},
		{op: "insert", line: "  - symbol: timeout", with: "    call: completeOnTimeout"},
		{op: "replace", line: `    args: ["text", {long: 0}, {constant: java.util.concurrent.TimeUnit.MILLISECONDS}]`,
			with: `    args: ["t", {long: 200}, {constant: java.util.concurrent.TimeUnit.MILLISECONDS}]`},
		// accept(value, exception): its detail is the value (null when cancelled).
		{op: "replace", line: "callbacks: []", with: "callbacks:"},
		{op: "insert", line: "callbacks:", with: "  - symbol: completed\n    from: [accept/v]\n  - symbol: timedout\n    from: [accept/t]\n" +
			"  - symbol: cancelled\n    from: [accept/null]"},
		{op: "replace", line: "  quiescence: 500ms", with: "  quiescence: 600ms"},
		{op: "replace", line: "  settle: 100ms", with: "  settle: 20ms"},
		{op: "replace", line: "  post_reset: 50ms", with: "  post_reset: 0ms"},
		// One timeout: a second would only double the states.
		{op: "insert", line: "bound: 2", with: "restrictions:\n  - at_most: 1\n    of: [timeout]"},
	}},
	{"twoactions", "java.util.concurrent.CompletableFuture", []draftEdit{
		// Two actions told apart by name: the first registered at the
		// reset, the second by init, after it.
		{op: "insert", line: "  new: []", with: "  listeners:\n    - type: java.util.function.BiConsumer\n      name: first\n      register: whenComplete\n" +
			"    - type: java.util.function.BiConsumer\n      name: second\n  init:\n    - call: whenComplete\n      args: [{listener: second}]"},
		{op: "keep-callins", with: "cancel, complete"},
		{op: "replace", line: "    args: [false]", with: "    args: [true]"},
		{op: "replace", line: `    args: ["text"]`, with: `    args: ["v"]`},
		{op: "replace", line: "callbacks: []", with: "callbacks:"},
		{op: "insert", line: "callbacks:", with: "  - symbol: firstDone\n    from: [first.accept]\n  - symbol: secondDone\n    from: [second.accept]"},
		{op: "replace", line: "  quiescence: 500ms", with: "  quiescence: 300ms"},
		{op: "replace", line: "  settle: 100ms", with: "  settle: 20ms"},
		{op: "replace", line: "  post_reset: 50ms", with: "  post_reset: 0ms"},
	}},
	{"uncaught", "java.lang.Thread", []draftEdit{
		// A thread of a Runnable proxy that sleeps, then throws, and the
		// handler the exception reaches.
		{op: "delete", line: "  new: []"},
		{op: "replace", line: "  # new: [null]", with: "  new: [{listener: java.lang.Runnable}]"},
		{op: "insert", line: "  # factory: {class: java.lang.Thread, method: currentThread, args: []}", with: "  listeners:\n    - type: java.lang.Runnable\n" +
			"    - type: java.lang.Thread$UncaughtExceptionHandler\n      register: setUncaughtExceptionHandler"},
		{op: "keep-callins", with: "start"},
		{op: "replace", line: "callbacks: []", with: "callbacks:"},
		{op: "insert", line: "callbacks:", with: "  - symbol: run\n    sleep_ms: 50\n    throws: {new: [java.lang.IllegalStateException, boom]}\n" +
			"  - symbol: uncaught\n    from: [uncaughtException/boom]\ndetails:\n  uncaughtException: [{arg: 1, call: getMessage}]"},
		{op: "replace", line: "  quiescence: 500ms", with: "  quiescence: 300ms"},
		// outlasts the task, so that its handler call is not the next query's
		{op: "replace", line: "  settle: 100ms", with: "  settle: 300ms"},
		{op: "replace", line: "  post_reset: 50ms", with: "  post_reset: 0ms"},
		// run and the handler come from the new thread at once
		{op: "insert", line: "bound: 2", with: "restrictions:\n  - followed_by_wait: [start]"},
	}},
	{"asyncfile", "java.nio.channels.AsynchronousFileChannel", []draftEdit{
		// A file of nine bytes to read, opened for reading.
		{op: "insert", line: "class: java.nio.channels.AsynchronousFileChannel", with: "setup:\n  - write: {file: data.txt, content: droidstar}"},
		{op: "replace", line: "  factory: {class: java.nio.channels.AsynchronousFileChannel, method: open, args: [{path: data.txt}, null]}",
			with: "  factory: {class: java.nio.channels.AsynchronousFileChannel, method: open, args: [{path: data.txt}, {constant: java.nio.file.StandardOpenOption.READ}]}"},
		{op: "insert", line: "  factory: {class: java.nio.channels.AsynchronousFileChannel, method: open, args: [{path: data.txt}, {constant: java.nio.file.StandardOpenOption.READ}]}",
			with: "  listeners:\n    - type: java.nio.channels.CompletionHandler"},
		{op: "replace", line: "  # dispose: release", with: "  dispose: close"},
		// read into a buffer of 64 bytes, telling a CompletionHandler
		{op: "keep-callins", with: "close, read_ByteBuffer_long_Object_CompletionHandler"},
		{op: "replace", line: "  # - symbol: read_ByteBuffer_long_Object_CompletionHandler", with: "  - symbol: read"},
		{op: "replace", line: "  #   call: read", with: "    call: read"},
		{op: "replace", line: `  #   args: [{call: [java.nio.ByteBuffer, allocate, {int: 0}]}, {long: 0}, "text", {listener: java.nio.channels.CompletionHandler}]`,
			with: `    args: [{call: [java.nio.ByteBuffer, allocate, {int: 64}]}, {long: 0}, "text", {listener: java.nio.channels.CompletionHandler}]`},
		{op: "replace", line: "callbacks: []", with: "callbacks:"},
		{op: "insert", line: "callbacks:", with: "  - symbol: completed\n    from: [completed/9]\n  - symbol: failed\n    from: [failed/java.nio.channels.ClosedChannelException]"},
		{op: "replace", line: "  quiescence: 500ms", with: "  quiescence: 300ms"},
		{op: "replace", line: "  settle: 100ms", with: "  settle: 20ms"},
		{op: "replace", line: "  post_reset: 50ms", with: "  post_reset: 0ms"},
		// the handler runs on the channel's thread pool at once
		{op: "insert", line: "bound: 2", with: "restrictions:\n  - followed_by_wait: [read]"},
	}},
	{"futuretask", "java.util.concurrent.FutureTask", []draftEdit{
		// The shim's callable takes 200 ms; the harness's thread pool
		// starts the task (a callin on another object, taking the target).
		{op: "insert", line: "  new: []", with: "  shim: {sleep_ms: 200}"},
		{op: "replace", line: "  # dispose: release", with: "  dispose: {call: cancel, args: [true]}"},
		{op: "keep-callins", with: "cancel"},
		{op: "insert", line: "callins:", with: "  - symbol: start\n    call: execute\n    on: {constant: org.droidstar.harness.jvm.JvmExecutors.NEW_THREAD}\n    args: [{target: true}]"},
		{op: "replace", line: "    args: [false]", with: "    args: [true]"},
		// done, told apart by its detail
		{op: "replace", line: "  - symbol: done", with: "  - symbol: completed"},
		{op: "insert", line: "  - symbol: completed", with: "    from: [done/completed]\n  - symbol: cancelled\n    from: [done/cancelled]"},
		{op: "replace", line: "  quiescence: 500ms", with: "  quiescence: 600ms"},
		{op: "replace", line: "  settle: 100ms", with: "  settle: 20ms"},
		{op: "replace", line: "  post_reset: 50ms", with: "  post_reset: 0ms"},
	}},
	{"logger", "java.util.logging.Logger", []draftEdit{
		// The drafted Handler listener (a generated shim) is the example's;
		// no copy of every message on the console.
		{op: "insert", line: "      register: addHandler", with: "  init:\n    - {call: setUseParentHandlers, args: [false]}"},
		{op: "keep-callins", with: "info_String, removeHandler, setLevel"},
		{op: "replace", line: "  - symbol: info_String", with: "  - symbol: info"},
		{op: "replace", line: "  - symbol: removeHandler", with: "  - symbol: remove"},
		{op: "insert", line: "  - symbol: remove", with: "    call: removeHandler"},
		{op: "replace", line: "  - symbol: setLevel", with: "  - symbol: mute"},
		{op: "insert", line: "  - symbol: mute", with: "    call: setLevel"},
		{op: "replace", line: "    args: [{constant: java.util.logging.Level.OFF}]", with: "    args: [{constant: java.util.logging.Level.WARNING}]"},
		{op: "insert", line: "    args: [{constant: java.util.logging.Level.WARNING}]", with: "  - symbol: unmute\n    call: setLevel\n    args: [{constant: java.util.logging.Level.INFO}]"},
		{op: "delete", line: "  - symbol: close"},
		{op: "delete", line: "  - symbol: flush"},
		{op: "replace", line: "  quiescence: 500ms", with: "  quiescence: 100ms"},
		{op: "replace", line: "  settle: 100ms", with: "  settle: 0ms"},
		{op: "replace", line: "  post_reset: 50ms", with: "  post_reset: 0ms"},
		// publish comes during info: one message at a time.
		{op: "insert", line: "bound: 2", with: "restrictions:\n  - followed_by_wait: [info]"},
	}},
	{"rejectedtask", "java.util.concurrent.ThreadPoolExecutor", []draftEdit{
		// One thread taking tasks from an unbounded queue, and the
		// constructor that takes a RejectedExecutionHandler, declared a
		// listener too.
		{op: "replace", line: "  new: [{int: 0}, {int: 0}, {long: 0}, {constant: java.util.concurrent.TimeUnit.MILLISECONDS}, null]",
			with: "  new: [1, 1, 0, {constant: java.util.concurrent.TimeUnit.SECONDS}, {new: [java.util.concurrent.LinkedBlockingQueue]}, {listener: java.util.concurrent.RejectedExecutionHandler}]"},
		{op: "replace", line: "    - type: java.util.concurrent.Callable", with: "    - type: java.util.concurrent.RejectedExecutionHandler"},
		{op: "replace", line: "  # dispose: release", with: "  dispose: shutdown"},
		{op: "keep-callins", with: "execute, shutdown"},
		// The task the handler hands back, run again.
		{op: "insert", line: "  - symbol: shutdown", with: "  - symbol: retry\n    on: {callback: [rejectedExecution, 0]}\n    call: run"},
		{op: "replace", line: "  - symbol: run", with: "  - symbol: ran"},
		{op: "insert", line: "  - symbol: ran", with: "    from: [run]"},
		{op: "replace", line: "  - symbol: call", with: "  - symbol: rejected"},
		{op: "insert", line: "  - symbol: rejected", with: "    from: [rejectedExecution]"},
		{op: "replace", line: "  quiescence: 500ms", with: "  quiescence: 250ms"},
		{op: "replace", line: "  settle: 100ms", with: "  settle: 20ms"},
		{op: "replace", line: "  post_reset: 50ms", with: "  post_reset: 0ms"},
		{op: "insert", line: "bound: 2", with: "restrictions:\n  - {followed_by_wait: [execute, retry]}"},
	}},
	{"flowsubscriber", "java.util.concurrent.SubmissionPublisher", []draftEdit{
		// The drafted Flow.Subscriber, registered by subscribe, is the
		// example's; its subscription is what onSubscribe hands out.
		{op: "delete", line: "    - type: java.util.function.BiPredicate"},
		{op: "keep-callins", with: "close, submit"},
		{op: "insert", line: `    args: ["text"]`, with: "  - symbol: request\n    on: {callback: [onSubscribe, 0]}\n    call: request\n    args: [{long: 1}]\n" +
			"  - symbol: cancel\n    do: [{sleep: 100ms}]\n    on: {callback: [onSubscribe, 0]}\n    call: cancel"},
		{op: "delete", line: "  - symbol: test"},
		{op: "replace", line: "  quiescence: 500ms", with: "  quiescence: 250ms"},
		{op: "replace", line: "  settle: 100ms", with: "  settle: 20ms"},
		{op: "replace", line: "  post_reset: 50ms", with: "  post_reset: 0ms"},
		// One item, and no signal of the pool between two callins.
		{op: "replace", line: "# restrictions:", with: "restrictions:"},
		{op: "replace", line: "#   - {at_most: 2, of: [offer_Object_BiPredicate, offer_Object_long_TimeUnit_BiPredicate, submit]}", with: "  - {at_most: 1, of: [submit]}"},
		{op: "insert", line: "restrictions:", with: "  - {followed_by_wait: [request, submit, close]}"},
	}},
}

// editsMarkdown is a list of edits as a README lists them.
func editsMarkdown(edits []draftEdit) string {
	var b strings.Builder
	for _, e := range edits {
		switch e.op {
		case "delete":
			fmt.Fprintf(&b, "- delete `%s`\n", strings.TrimSpace(e.line))
		case "replace":
			fmt.Fprintf(&b, "- `%s` becomes `%s`\n", strings.TrimSpace(e.line), strings.TrimSpace(e.with))
		case "insert":
			if !strings.Contains(e.with, "\n") {
				fmt.Fprintf(&b, "- after `%s` add `%s`\n", strings.TrimSpace(e.line), strings.TrimSpace(e.with))
				break
			}
			fmt.Fprintf(&b, "- after `%s` add\n\n  ```yaml\n", strings.TrimSpace(e.line))
			for _, l := range strings.Split(e.with, "\n") {
				b.WriteString("  " + l + "\n")
			}
			b.WriteString("  ```\n\n")
		case "keep-callins":
			syms := strings.Split(e.with, ", ")
			fmt.Fprintf(&b, "- delete every callin but `%s`, the commented-out ones too\n", strings.Join(syms, "`, `"))
		case "delete-callin":
			fmt.Fprintf(&b, "- delete the callin `%s` (its `- symbol:` line and the lines under it)\n", e.line)
		case "delete-commented-callins":
			b.WriteString("- delete the callins that are commented out (the queries among them)\n")
		}
	}
	return b.String()
}

// canonicalTypestate renames the states of a typestate's edges in the
// order a walk from s0 meets them, taking each state's edges in the order
// of their labels, so that two typestates that differ only in their state
// names (as the order of the callins names them) read the same.
func canonicalTypestate(edges string) string {
	type edge struct{ from, label, to string }
	out := map[string][]edge{}
	re := regexp.MustCompile(`^(s\d+) (--\S+-->|==\S+==>|\.\.\S+\.\.>) (s\d+)$`)
	var bad []string
	for _, l := range strings.Split(strings.TrimSpace(edges), "\n") {
		m := re.FindStringSubmatch(l)
		if m == nil {
			bad = append(bad, l)
			continue
		}
		out[m[1]] = append(out[m[1]], edge{m[1], m[2], m[3]})
	}
	names := map[string]string{"s0": "s0"}
	queue := []string{"s0"}
	var lines []string
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		es := out[s]
		sort.Slice(es, func(i, j int) bool { return es[i].label < es[j].label })
		for _, e := range es {
			if _, ok := names[e.to]; !ok {
				names[e.to] = fmt.Sprintf("s%d", len(names))
				queue = append(queue, e.to)
			}
			lines = append(lines, names[s]+" "+e.label+" "+names[e.to])
		}
	}
	sort.Strings(lines)
	return strings.Join(append(lines, bad...), "\n")
}

func TestCanonicalTypestate(t *testing.T) {
	a := "s0 --b--> s2\ns0 --a--> s1\ns2 ==x==> s1"
	b := "s0 --a--> s2\ns0 --b--> s1\ns1 ==x==> s2"
	if ca, cb := canonicalTypestate(a), canonicalTypestate(b); ca != cb {
		t.Errorf("renamed typestates differ:\n%s\n%s", ca, cb)
	}
	if c := canonicalTypestate("s0 --b--> s2\ns0 --a--> s1\ns1 ==x==> s1"); c == canonicalTypestate(a) {
		t.Errorf("different typestates read the same: %s", c)
	}
	// Quiet edges are renamed too.
	q1, q2 := "s0 --a--> s3\ns3 ..quiet..> s0", "s0 --a--> s1\ns1 ..quiet..> s0"
	if c1, c2 := canonicalTypestate(q1), canonicalTypestate(q2); c1 != c2 || strings.Contains(c1, "s3") {
		t.Errorf("renamed typestates with quiet edges differ:\n%s\n%s", c1, c2)
	}
}

// TestInitFirstHour is issue 30's first-hour test: for each examples/jvm
// purpose with a walkthrough, init's draft of its class, edited as the
// README lists (firstHour), learns the example's typestate (up to the
// names of the states); the README shows the list as the test applies it.
func TestInitFirstHour(t *testing.T) {
	needJava(t)
	readme, err := os.ReadFile(repoPath("examples", "jvm", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{"timer": true} // TestInitTimerWalkthrough
	for _, c := range firstHour {
		covered[c.example] = true
	}
	for name := range jvmExampleTypestates {
		if !covered[name] {
			t.Errorf("examples/jvm/%s.yaml has no first hour: add its edits to firstHour and its README", name)
		}
	}
	for _, c := range firstHour {
		t.Run(c.example, func(t *testing.T) {
			if list := editsMarkdown(c.edits); !strings.Contains(string(readme), "\n"+list+"\n") {
				t.Errorf("examples/jvm/README.md does not list the edits of %s.yaml as\n%s", c.example, list)
			}
			code, draft, stderr := droidstar(t, "init", c.class)
			if code != ExitOK {
				t.Fatalf("init: exit %d: %s", code, stderr)
			}
			file := filepath.Join(t.TempDir(), c.example+".yaml")
			if err := os.WriteFile(file, []byte(applyEdits(t, draft, c.edits)), 0o644); err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			code, stdout, stderr := droidstar(t, "learn", file, "--lanes", "4", "-o", out, "--write", "json")
			if code != ExitOK {
				t.Fatalf("learn: exit %d: %s", code, stderr)
			}
			// The model, not the summary, which lists only the first edges
			// of a large typestate.
			models, _ := filepath.Glob(filepath.Join(out, "*.json"))
			if len(models) != 1 {
				t.Fatalf("learn wrote %d models: %v", len(models), models)
			}
			data, err := os.ReadFile(models[0])
			if err != nil {
				t.Fatal(err)
			}
			doc, err := model.Unmarshal(data)
			if err != nil {
				t.Fatal(err)
			}
			want := jvmExampleTypestates[c.example]
			states := regexp.MustCompile(`\n  (\d+) states`).FindStringSubmatch(stdout)
			if got := canonicalTypestate(docTypestateLines(doc)); states == nil || states[1] != fmt.Sprint(want.states) || got != canonicalTypestate(want.edges) {
				t.Errorf("summary:\n%s\nwant %d states, the typestate of examples/jvm/%s.yaml:\n%s", stdout, want.states, c.example, strings.TrimSpace(want.edges))
			}
		})
	}
}
