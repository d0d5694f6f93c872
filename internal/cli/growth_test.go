package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// copyFixture copies the named files of testdata/counting into a fresh
// folder, so that the messages name a path the test knows.
func copyFixture(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		data, err := os.ReadFile(repoPath("testdata", "counting", n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// adviceRE reads the restriction the diagnosis suggests and the line it
// names, as a user would.
var adviceRE = regexp.MustCompile(`bound it with the restriction (\{at_most: \d+, of: \[\w+\]\}), in a new top-level restrictions: list in \S+ \(before backend:, line (\d+)\)`)

// followAdvice writes the suggested restriction into the purpose file
// where the advice says, as a new restrictions list.
func followAdvice(t *testing.T, file, stderr string) {
	t.Helper()
	m := adviceRE.FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no advice in\n%s", stderr)
	}
	line, _ := strconv.Atoi(m[2])
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	if !strings.HasPrefix(lines[line-1], "backend:") {
		t.Fatalf("line %d of %s is %q, not backend:", line, file, lines[line-1])
	}
	edited := strings.Join(lines[:line-1], "") + "restrictions:\n  - " + m[1] + "\n" + strings.Join(lines[line-1:], "")
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A class that counts stops learning at the third round, saying so and
// naming the restriction that bounds it, with the partial model kept;
// with that restriction added the purpose learns the target exactly.
func TestCountingTargetStopsWithTheRestriction(t *testing.T) {
	dir := copyFixture(t, "counter.yaml", "counter.dot")
	file, out := filepath.Join(dir, "counter.yaml"), t.TempDir()
	code, stdout, stderr := droidstar(t, "learn", file, "--store", "off", "-o", out, "-q")
	partial := filepath.Join(out, "Counter.partial.json")
	want := "droidstar: stopped at equivalence round 3: the target seems to count, which no finite model describes: " +
		"the counterexamples of rounds 1, 2 and 3 each repeat more of submit, wait than the one before (submit^2 wait^2, ..., submit^4 wait^4), and the hypothesis grew from 2 to 4 states\n" +
		"  bound it with the restriction {at_most: 2, of: [submit]}, in a new top-level restrictions: list in " + file + " (before backend:, line 11)\n" +
		"  or let learning go on, up to N states, with --max-states N\n" +
		"the last hypothesis (4 states) is in " + partial + "\n"
	if code != ExitFail || stdout != "" || stderr != want {
		t.Fatalf("exit %d, stdout %q, stderr\n%s\nwant exit %d, stderr\n%s", code, stdout, stderr, ExitFail, want)
	}
	d := readModel(t, partial)
	if last := d.Warnings[len(d.Warnings)-1]; !strings.Contains(last, "the target seems to count") || !strings.Contains(last, "{at_most: 2, of: [submit]}") {
		t.Fatalf("the partial model's last warning is %q: want the diagnosis and the restriction", last)
	}

	followAdvice(t, file, stderr)
	code, _, stderr = droidstar(t, "learn", file, "--store", "off", "-o", out, "-q")
	if code != ExitOK || stderr != "" {
		t.Fatalf("restricted: exit %d, stderr\n%s", code, stderr)
	}
	if d := readModel(t, filepath.Join(out, "Counter.json")); d.Target == nil || !d.Target.Equal || d.Stats.States != 6 {
		t.Fatalf("restricted: target check %+v, %d states; want equal, 6 states (submits used, items queued: 0,0 1,1 1,0 2,2 2,1 2,0)", d.Target, d.Stats.States)
	}
}

// --max-states lets a counting target go on, the diagnosis a warning as
// it comes and in the model, and stops the run past its bound.
func TestMaxStates(t *testing.T) {
	dir := copyFixture(t, "counter.yaml", "counter.dot")
	file := filepath.Join(dir, "counter.yaml")
	warning := "equivalence round 3: the target seems to count, which no finite model describes: " +
		"the counterexamples of rounds 1, 2 and 3 each repeat more of submit, wait than the one before (submit^2 wait^2, ..., submit^4 wait^4), and the hypothesis grew from 2 to 4 states; " +
		"bound it with the restriction {at_most: 2, of: [submit]}, in a new top-level restrictions: list in " + file + " (before backend:, line 11)"

	t.Run("beyond the target", func(t *testing.T) {
		out := t.TempDir()
		code, _, stderr := droidstar(t, "learn", file, "--store", "off", "-o", out, "-q", "--max-states", "20")
		if code != ExitOK || stderr != "droidstar: "+warning+"\n" {
			t.Fatalf("exit %d, stderr\n%s\nwant exit 0, stderr\ndroidstar: %s", code, stderr, warning)
		}
		d := readModel(t, filepath.Join(out, "Counter.json"))
		if d.Target == nil || !d.Target.Equal || d.Stats.States != 13 {
			t.Fatalf("target check %+v, %d states; want equal, 13 states (0 to 12 items queued)", d.Target, d.Stats.States)
		}
		if fmt.Sprint(d.Warnings) != fmt.Sprint([]string{warning}) {
			t.Fatalf("warnings %q, want the diagnosis", d.Warnings)
		}
	})
	t.Run("within the target", func(t *testing.T) {
		out := t.TempDir()
		code, _, stderr := droidstar(t, "learn", file, "--store", "off", "-o", out, "-q", "--max-states", "8")
		partial := filepath.Join(out, "Counter.partial.json")
		want := "droidstar: " + warning + "\n" +
			"droidstar: stopped at equivalence round 8: the hypothesis has 9 states (--max-states 8)\n" +
			"the last hypothesis (9 states) is in " + partial + "\n"
		if code != ExitFail || stderr != want {
			t.Fatalf("exit %d, stderr\n%s\nwant exit %d, stderr\n%s", code, stderr, ExitFail, want)
		}
		if d := readModel(t, partial); len(d.States) != 9 {
			t.Fatalf("the partial model has %d states, want 9", len(d.States))
		}
	})
	t.Run("negative", func(t *testing.T) {
		code, _, stderr := droidstar(t, "learn", file, "--store", "off", "-o", t.TempDir(), "--max-states", "-1")
		if want := "droidstar: --max-states must not be negative, got -1\n"; code != ExitUsage || stderr != want {
			t.Fatalf("exit %d, stderr %q; want exit %d, %q", code, stderr, ExitUsage, want)
		}
	})
}

// countingTimer is what android.os.CountDownTimer does when a purpose lets
// start() come any number of times (AOSP's start() posts one more message
// each time, and cancel() removes them all): n starts give n onFinish
// calls. The bundled model leaves a second start out, as its purpose
// excludes it; this one counts up to max pending count-downs.
func countingTimer(max int) string {
	var b strings.Builder
	b.WriteString("digraph CountDownTimer {\n  __start0 [label=\"\" shape=none];\n  __start0 -> p0;\n  p0 -> p0 [label=\"wait / quiet\"];\n")
	for c := 0; c <= max; c++ {
		if c < max {
			fmt.Fprintf(&b, "  p%d -> p%d [label=\"start / ok\"];\n", c, c+1)
		}
		if c > 0 {
			fmt.Fprintf(&b, "  p%d -> p%d [label=\"wait / finished\"];\n", c, c-1)
		}
		fmt.Fprintf(&b, "  p%d -> p0 [label=\"cancel / ok\"];\n", c)
	}
	return b.String() + "}\n"
}

// examples/countdowntimer without its at_most restriction, on a model of
// what the class then does, is diagnosed within five rounds; the
// restriction suggested learns it exactly.
func TestCountingCountDownTimer(t *testing.T) {
	data, err := os.ReadFile(repoPath("examples", "countdowntimer", "purpose.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	const restriction = "restrictions:\n  - at_most: 1\n    of: [start]\n"
	p := string(data)
	if !strings.Contains(p, restriction) || !strings.Contains(p, "model: model.dot") {
		t.Fatalf("examples/countdowntimer/purpose.yaml no longer has\n%sor its model.dot: update this test", restriction)
	}
	p = strings.Replace(strings.Replace(p, restriction, "", 1), "model: model.dot", "model: counting.dot", 1)
	dir := t.TempDir()
	file := filepath.Join(dir, "purpose.yaml")
	if err := os.WriteFile(file, []byte(p), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "counting.dot"), []byte(countingTimer(12)), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	code, _, stderr := droidstar(t, "learn", file, "--backend", "sim", "--store", "off", "-o", out, "-q")
	first := regexp.MustCompile(`^droidstar: stopped at equivalence round (\d+): the target seems to count.*\(start\^\d+ .*\n`).FindStringSubmatch(stderr)
	if code != ExitFail || first == nil {
		t.Fatalf("exit %d, stderr\n%s\nwant exit 1 and the diagnosis", code, stderr)
	}
	if round, _ := strconv.Atoi(first[1]); round > 5 {
		t.Fatalf("diagnosed at round %d, want 5 at most", round)
	}
	if !strings.Contains(stderr, "{at_most: 2, of: [start]}") {
		t.Fatalf("stderr\n%s\nwant the restriction {at_most: 2, of: [start]}", stderr)
	}
	followAdvice(t, file, stderr)
	code, _, stderr = droidstar(t, "learn", file, "--backend", "sim", "--store", "off", "-o", out, "-q")
	if code != ExitOK || stderr != "" {
		t.Fatalf("restricted: exit %d, stderr\n%s", code, stderr)
	}
	if d := readModel(t, filepath.Join(out, "CountDownTimer.json")); d.Target == nil || !d.Target.Equal {
		t.Fatalf("restricted: target check %+v, want equal", d.Target)
	}
}
