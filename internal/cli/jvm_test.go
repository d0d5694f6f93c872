package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/backend/jvm/jvmtest"
	"github.com/droidstar/droidstar/internal/model"
)

// needJava skips when there is no JVM (jvmtest.Java), under the name the
// CLI's tests call it by.
func needJava(t *testing.T) {
	t.Helper()
	jvmtest.Java(t)
}

// jvmExampleTypestates are the typestates of the examples/jvm purposes,
// each worked out by hand from the Java SE documentation: the states (with
// the error sink) and the typestate's edges as the summary prints them.
var jvmExampleTypestates = map[string]struct {
	states int
	edges  string
}{
	// Timer: schedule works once, on a fresh timer and task; after the
	// task ran, or either was cancelled, only the cancels are left.
	"timer": {3, timerEdges},
	// FutureTask: done() comes once, completed after start unless a
	// cancel came first; start again or late cancels change nothing.
	"futuretask": {4, `
s0 --start--> s1
s0 --cancel--> s2
s1 --start--> s1
s1 --cancel--> s2
s1 ==completed==> s3
s2 --start--> s2
s2 --cancel--> s2
s2 ==cancelled==> s3
s3 --start--> s3
s3 --cancel--> s3`},
	// CompletableFuture: the first completion wins and is delivered
	// once; a second timeout is excluded by the purpose (at most one),
	// which doubles the states that still may time out. (s7 is the error
	// sink, which the typestate leaves out.)
	"completablefuture": {8, `
s0 --complete--> s1
s0 --cancel--> s2
s0 --timeout--> s3
s1 --complete--> s1
s1 --cancel--> s1
s1 --timeout--> s4
s1 ==completed==> s5
s2 --complete--> s2
s2 --cancel--> s2
s2 --timeout--> s6
s2 ==cancelled==> s5
s3 --complete--> s4
s3 --cancel--> s6
s3 ==timedout==> s8
s4 --complete--> s4
s4 --cancel--> s4
s4 ==completed==> s8
s5 --complete--> s5
s5 --cancel--> s5
s5 --timeout--> s8
s6 --complete--> s6
s6 --cancel--> s6
s6 ==cancelled==> s8
s8 --complete--> s8
s8 --cancel--> s8`},
	// FailedFuture: as CompletableFuture, with an exception the purpose
	// makes ({new: ...}): the first of complete, fail and cancel wins,
	// its callback comes once, and later completions change nothing.
	"failedfuture": {5, `
s0 --complete--> s1
s0 --fail--> s2
s0 --cancel--> s3
s1 --complete--> s1
s1 --fail--> s1
s1 --cancel--> s1
s1 ==completed==> s4
s2 --complete--> s2
s2 --fail--> s2
s2 --cancel--> s2
s2 ==failed==> s4
s3 --complete--> s3
s3 --fail--> s3
s3 --cancel--> s3
s3 ==cancelled==> s4
s4 --complete--> s4
s4 --fail--> s4
s4 --cancel--> s4`},
	// SubmissionPublisher, one consumer and two submits at most: an
	// item reaches a consumer subscribed before it was submitted (s1,
	// s5, s8: one or two items to come), not one subscribed after (s2
	// --consume--> s7); close ends submitting but not the delivery of
	// items already submitted (s5 --close--> s9 ==accept==> s6). After
	// two submits, or a close, submit is no longer allowed (excluded,
	// or it throws), so those states merge (s3, s6, s8, s9).
	"submissionpublisher": {9, `
s0 --consume--> s1
s0 --submit--> s2
s0 --close--> s3
s1 --submit--> s5
s1 --close--> s6
s2 --consume--> s7
s2 --submit--> s3
s2 --close--> s3
s3 --consume--> s6
s3 --close--> s3
s5 --submit--> s8
s5 --close--> s9
s5 ==accept==> s7
s6 --close--> s6
s7 --submit--> s9
s7 --close--> s6
s8 --close--> s8
s8 ==accept==> s9
s9 --close--> s9
s9 ==accept==> s6`},
	// FlowSubscriber: a Flow.Subscriber gets its subscription from
	// onSubscribe, which request and cancel act on ({callback:
	// [onSubscribe, 0]}); worked out by hand from the Flow and
	// SubmissionPublisher docs (and JDK 17's BufferedSubscription, which
	// delivers onSubscribe first, an item only while demand is left, and
	// onComplete once closed with no item left, nothing after cancel).
	// Before a wait delivered onSubscribe (s0, s2, s3, each with
	// onSubscribe due), request and cancel answer err (no-callback, left
	// out); submit and close may come. Demand is one bit: with one submit
	// at most, a second request changes nothing one could see. request,
	// submit and close are followed by a wait (the restriction), so each
	// has a state of its own that only wait leaves: quiet when nothing
	// is due (s7, s8, s12, s15, s16, s19), else the callback (s9, s11,
	// s20). s4: subscribed, idle; s14: with demand, so a submit's item
	// comes at once (s11 ==onNext==> s17); s5: an item waits for demand,
	// and request brings it (s18 --request--> s20 ==onNext==> s6); close
	// completes only once no item is left (s12 ..quiet..> s18: the item
	// still waits, then onNext and onComplete). s6: closed and complete
	// is due; s13: completed, or cancelled with nothing to come, where
	// only the no-op request, close and cancel are left (submit throws
	// once closed, or is excluded after one submit); s10: cancelled
	// before anything was submitted, where a submit is taken but never
	// delivered. A second close and a second cancel change nothing.
	"flowsubscriber": {20, `
s0 --submit--> s2
s0 --close--> s3
s0 ==onSubscribe==> s4
s2 ==onSubscribe==> s5
s3 ==onSubscribe==> s6
s4 --request--> s7
s4 --submit--> s8
s4 --close--> s9
s4 --cancel--> s10
s5 --request--> s11
s5 --close--> s12
s5 --cancel--> s13
s6 --request--> s9
s6 --close--> s9
s6 --cancel--> s6
s6 ==onComplete==> s13
s7 ..quiet..> s14
s8 ..quiet..> s5
s9 ==onComplete==> s13
s10 --request--> s15
s10 --submit--> s16
s10 --close--> s16
s10 --cancel--> s10
s11 ==onNext==> s17
s12 ..quiet..> s18
s13 --request--> s16
s13 --close--> s16
s13 --cancel--> s13
s14 --request--> s7
s14 --submit--> s11
s14 --close--> s9
s14 --cancel--> s10
s15 ..quiet..> s10
s16 ..quiet..> s13
s17 --request--> s19
s17 --close--> s9
s17 --cancel--> s13
s18 --request--> s20
s18 --close--> s12
s18 --cancel--> s13
s19 ..quiet..> s17
s20 ==onNext==> s6`},
	// RejectedTask: before shutdown, an executed task runs on the pool
	// thread (s1 ==ran==> s0); after it, execute rejects the task at
	// once, through the handler (s4 ==rejected==> s5), and retry runs the
	// task rejectedExecution handed back ({callback:
	// [rejectedExecution, 0]}; s5 --retry--> s6 ==ran==> s5). retry
	// before a wait delivered a rejection answers err (no-callback, left
	// out, as the sink s3 is); a wait follows every execute and retry
	// (the restriction), so each callback is delivered in its step and
	// none is left over to count. A second shutdown changes nothing.
	"rejectedtask": {6, rejectedTaskEdges},
	// UncaughtThread: the thread starts once (a second start throws:
	// the error sink, left out); its task runs, throws the purpose's
	// exception, and the handler gets it.
	"uncaught": {4, `
s0 --start--> s1
s1 ==run==> s3
s3 ==uncaught==> s4`},
	// TwoActions: completing or cancelling runs both whenComplete
	// actions once, the one registered last (second, by init) first:
	// CompletableFuture keeps its dependents on a stack.
	"twoactions": {4, `
s0 --complete--> s1
s0 --cancel--> s1
s1 --complete--> s1
s1 --cancel--> s1
s1 ==secondDone==> s2
s2 --complete--> s2
s2 --cancel--> s2
s2 ==firstDone==> s3
s3 --complete--> s3
s3 --cancel--> s3`},
	// Logger, whose Handler listener is an abstract class with no
	// built-in shim: droidstar generates one (internal/shimgen). An
	// info message reaches the handler while it is added and the level
	// lets INFO through (s0): publish comes during info, and the wait
	// the purpose forces after it delivers it (s1). setLevel(WARNING)
	// mutes the handler (s2), setLevel(INFO) unmutes it; after
	// removeHandler nothing reaches it again (s3), whatever the level.
	// An info in s2 or s3 is answered quiet by its forced wait (s5, s6),
	// and any callin there instead is excluded (the error sink, s4).
	"logger": {6, `
s0 --info--> s1
s0 --mute--> s2
s0 --unmute--> s0
s0 --remove--> s3
s1 ==publish==> s0
s2 --info--> s5
s2 --mute--> s2
s2 --unmute--> s0
s2 --remove--> s3
s3 --info--> s6
s3 --mute--> s3
s3 --unmute--> s3
s3 --remove--> s3
s5 ..quiet..> s2
s6 ..quiet..> s3`},
	// AsyncFile: a read completes with the 9 bytes of the file while
	// the channel is open, fails with ClosedChannelException after
	// close; close is idempotent. (The error sink: a read not
	// followed by wait, which the purpose excludes.)
	"asyncfile": {4, `
s0 --read--> s1
s0 --close--> s2
s1 ==completed==> s0
s2 --read--> s4
s2 --close--> s2
s4 ==failed==> s2`},
}

// TestLearnJVMExamples learns every examples/jvm purpose through the real
// Java harness (the jar embedded in the binary, on a real JVM, against the
// real java.util classes) and compares the typestate with the one worked
// out by hand from the Java SE documentation.
func TestLearnJVMExamples(t *testing.T) {
	needJava(t)
	cases := jvmExampleTypestates
	files, _ := filepath.Glob(repoPath("examples", "jvm", "*.yaml"))
	if len(files) != len(cases) {
		t.Errorf("%d jvm examples, %d cases: add a case for each", len(files), len(cases))
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		want, ok := cases[name]
		if !ok {
			continue
		}
		// One at a time: the purposes' timing margins (callbacks 200 ms
		// after a callin, quiet after 600 ms) hold on a loaded machine, but
		// need not with eight harness JVMs sharing two cores.
		t.Run(name, func(t *testing.T) {
			out := t.TempDir()
			code, stdout, stderr := droidstar(t, "learn", file, "-o", out, "--lanes", "4", "--write", "json")
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			files, _ := filepath.Glob(filepath.Join(out, "*.json"))
			if len(files) != 1 {
				t.Fatalf("wrote %v", files)
			}
			data, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			doc, err := model.Unmarshal(data)
			if err != nil {
				t.Fatal(err)
			}
			gotText := typestateLines(stdout)
			if strings.Contains(gotText, " more (see the JSON or DOT output)") {
				// The summary shows 40 edges; the model has them all.
				gotText = docTypestateLines(doc)
			}
			states := regexp.MustCompile(`\n  (\d+) states`).FindStringSubmatch(stdout)
			if states == nil || states[1] != strconv.Itoa(want.states) || gotText != strings.TrimSpace(want.edges) {
				t.Errorf("summary:\n%s\nwant %d states:\n%s", stdout, want.states, strings.TrimSpace(want.edges))
			}
			// A callin before the callback it takes an argument of: the
			// purpose's order of things, told apart from the class's errors.
			if want, ok := noCallbackErrs[name]; ok {
				var got []string
				for _, tr := range doc.Transitions {
					if tr.Err != nil && tr.Err.Kind == model.ErrNoCallback {
						got = append(got, tr.From+" "+tr.Input+": "+tr.Err.Detail)
					}
				}
				if strings.Join(got, "\n") != want {
					t.Errorf("no-callback errs:\n%s\nwant\n%s", strings.Join(got, "\n"), want)
				}
			}
			if doc.Backend.Kind != "jvm" || len(doc.Backend.Devices) != 4 {
				t.Fatalf("backend = %+v", doc.Backend)
			}
			for _, d := range doc.Backend.Devices {
				if d.Platform != "jvm" || d.Release == "" || d.Model == "" || !strings.HasPrefix(d.Serial, "jvm-") {
					t.Errorf("device = %+v", d)
				}
			}
			// A harness JVM stalled on a loaded machine is restarted and
			// its query run again (internal/backend/jvm): noted, not wrong.
			for _, w := range doc.Warnings {
				if restarted.MatchString(w) {
					t.Logf("warning: %s", w)
					continue
				}
				// SubmissionPublisher delivers on the common ForkJoinPool at
				// once, so on a loaded machine an accept may come while the
				// next callin (a submit or a close) is called rather than
				// after it; buffered either way, it answers the same, which
				// the typestate above checks.
				if name == "submissionpublisher" && asyncAccept.MatchString(w) {
					t.Logf("warning: %s", w)
					continue
				}
				t.Errorf("warning: %s", w)
			}
		})
	}
}

// rejectedTaskEdges is examples/jvm/rejectedtask.yaml's typestate
// (TestLearnJVMExamples explains it), on any backend.
const rejectedTaskEdges = `s0 --execute--> s1
s0 --shutdown--> s2
s1 ==ran==> s0
s2 --execute--> s4
s2 --shutdown--> s2
s4 ==rejected==> s5
s5 --execute--> s4
s5 --shutdown--> s5
s5 --retry--> s6
s6 ==ran==> s5`

// noCallbackErrs are the err transitions of kind no-callback of the
// examples with {callback: ...} literals, as "STATE INPUT: DETAIL" lines.
var noCallbackErrs = map[string]string{
	"flowsubscriber": "s0 request: needs argument 0 of onSubscribe, which no wait of this query has delivered\n" +
		"s0 cancel: needs argument 0 of onSubscribe, which no wait of this query has delivered",
	"rejectedtask": "s0 retry: needs argument 0 of rejectedExecution, which no wait of this query has delivered\n" +
		"s2 retry: needs argument 0 of rejectedExecution, which no wait of this query has delivered",
}

var asyncAccept = regexp.MustCompile(`^timing: callback accept arrived between callins (submit|close) and (submit|close) with no wait between them `)

var restarted = regexp.MustCompile(`^the harness JVM jvm-\d+ wedged \(.*\) and was restarted; this query ran again there$`)

// TestJVMPurposeErrors: a target the harness cannot resolve fails once,
// at the purpose's line, before any query runs (so nothing is written).
func TestJVMPurposeErrors(t *testing.T) {
	needJava(t)
	files, _ := filepath.Glob(repoPath("testdata", "purposes", "jvm-bad", "*.yaml"))
	if len(files) < 6 {
		t.Fatalf("found %d jvm-bad purposes", len(files))
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(string(data), "\n")
			want, ok := strings.CutPrefix(first, "# want: ")
			if !ok {
				t.Fatal("no '# want:' first line")
			}
			want = strings.ReplaceAll(want, "FILE", file)
			out := t.TempDir()
			code, stdout, stderr := droidstar(t, "learn", file, "-o", out)
			if code != ExitFail || stdout != "" || stderr != "droidstar: "+want+"\n" {
				t.Errorf("exit %d, stdout %q\nstderr %s\nwant   droidstar: %s", code, stdout, stderr, want)
			}
			if entries, _ := os.ReadDir(out); len(entries) != 0 {
				t.Errorf("wrote %d files before failing", len(entries))
			}
			code, _, stderr = droidstar(t, "check", "--resolve", file)
			if code != ExitFail || !strings.HasPrefix(stderr, want+"\n") {
				t.Errorf("check: exit %d, stderr %s", code, stderr)
			}
		})
	}
}

// TestGeneratedShimNeedsAJDK: examples/jvm/logger.yaml run with a java
// that has no compiler (a JRE: here a JDK's java without its jdk.compiler
// module) fails at check --resolve, at the listener's line, naming what to
// install, and so does learn, before any query.
func TestGeneratedShimNeedsAJDK(t *testing.T) {
	java := jvmtest.Java(t)
	dir := t.TempDir()
	jre := filepath.Join(dir, "java")
	script := "#!/bin/sh\nexec " + strconv.Quote(java) + " --limit-modules java.se \"$@\"\n"
	if err := os.WriteFile(jre, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(repoPath("examples", "jvm", "logger.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(data), "  jvm: {}\n", "  jvm: {java: "+strconv.Quote(jre)+"}\n", 1)
	file := filepath.Join(dir, "logger.yaml")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	home, err := filepath.EvalSymlinks(java)
	if err != nil {
		t.Fatal(err)
	}
	home = filepath.Dir(filepath.Dir(home)) // JAVA_HOME/bin/java
	before, _, _ := strings.Cut(src, "- type: java.util.logging.Handler")
	line := strings.Count(before, "\n") + 1
	want := file + ":" + strconv.Itoa(line) + ":13: target.listeners[0].type: java.util.logging.Handler is an abstract class, and droidstar" +
		" generates a shim for it with the JDK's compiler, which this java (" + home + ", a JRE) does not have:" +
		" install a JDK (on Debian or Ubuntu: apt-get install default-jdk-headless) and point JAVA_HOME or" +
		" backend.jvm.java at it\n"
	code, stdout, stderr := droidstar(t, "check", "--resolve", file)
	if code != ExitFail || stdout != "" || !strings.HasPrefix(stderr, want) {
		t.Errorf("check: exit %d, stdout %q\nstderr %s\nwant   %s", code, stdout, stderr, want)
	}
	out := t.TempDir()
	code, _, stderr = droidstar(t, "learn", file, "-o", out)
	if code != ExitFail || stderr != "droidstar: "+want {
		t.Errorf("learn: exit %d\nstderr %s\nwant   droidstar: %s", code, stderr, want)
	}
}

// typestateLines is the typestate part of the summary, one edge per line
// with single spaces.
// docTypestateLines writes the typestate of a model document as the
// summary does (callins, callbacks, quiet waits that change state; no
// err), for models whose summary shows only its first edges.
func docTypestateLines(doc *model.Document) string {
	var lines []string
	for _, t := range doc.Transitions {
		switch {
		case t.Output == "err", t.Input == "wait" && t.Output == "quiet" && t.From == t.To:
		case t.Input == "wait" && t.Output == "quiet":
			lines = append(lines, t.From+" ..quiet..> "+t.To)
		case t.Input == "wait":
			lines = append(lines, t.From+" =="+t.Output+"==> "+t.To)
		default:
			lines = append(lines, t.From+" --"+t.Input+"--> "+t.To)
		}
	}
	return strings.Join(lines, "\n")
}

func typestateLines(summary string) string {
	_, rest, _ := strings.Cut(summary, "typestate from s0")
	_, rest, _ = strings.Cut(rest, "\n")
	rest, _, _ = strings.Cut(rest, "statistics")
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(rest), "\n") {
		lines = append(lines, strings.Join(strings.Fields(l), " "))
	}
	return strings.Join(lines, "\n")
}

// TestSubmissionPublisherCounts: examples/jvm/submissionpublisher.yaml
// without its restrictions counts, and learning it stops with the
// diagnosis and the restrictions to add, exactly as examples/jvm/README.md
// shows.
func TestSubmissionPublisherCounts(t *testing.T) {
	needJava(t)
	data, err := os.ReadFile(repoPath("examples", "jvm", "submissionpublisher.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	const restrictions = "restrictions:\n  - {at_most: 1, of: [consume]}\n  - {at_most: 2, of: [submit]}\n"
	if !strings.Contains(string(data), restrictions) {
		t.Fatalf("submissionpublisher.yaml no longer has\n%s: update this test and the README", restrictions)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "submissionpublisher.yaml")
	if err := os.WriteFile(file, []byte(strings.Replace(string(data), restrictions, "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := droidstar(t, "learn", file, "-q", "-o", dir, "--store", "off")
	readme, err := os.ReadFile(repoPath("examples", "jvm", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, _ := strings.Cut(string(readme), "```text\n$ droidstar learn submissionpublisher.yaml -q\n")
	want, _, _ := strings.Cut(block, "```")
	got := strings.ReplaceAll(stdout+stderr, dir+string(filepath.Separator), "")
	if code != ExitFail || want == "" || got != want {
		t.Errorf("exit %d, printed\n%s\nexamples/jvm/README.md shows\n%s", code, got, want)
	}
}
