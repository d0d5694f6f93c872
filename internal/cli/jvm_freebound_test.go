package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/model"
)

// TestLearnJVMServerSocketWithForcedWaits learns the real
// AsynchronousServerSocketChannel with every callin followed by a wait, with
// the default bound: right after bind (s1) and right after close (s3) differ
// only on "wait accept wait", whose one free symbol the bound counts.
func TestLearnJVMServerSocketWithForcedWaits(t *testing.T) {
	needJava(t)
	out := t.TempDir()
	code, stdout, stderr := droidstar(t, "learn", repoPath("testdata", "serversocket", "jvm.yaml"), "-o", out, "--lanes", "4", "--write", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := `
s0 --bind--> s1
s0 --close--> s3
s1 ..quiet..> s4
s3 ..quiet..> s5
s4 --accept--> s6
s4 --close--> s3
s5 --accept--> s7
s5 --close--> s3
s6 ..quiet..> s8
s7 ==failed==> s5
s8 --close--> s7`
	if got := typestateLines(stdout); got != strings.TrimSpace(want) || !strings.Contains(stdout, "\n  8 states (+ error sink)") ||
		!strings.Contains(stdout, "\nbound: 2 used, the learned model needs 1; exact if the target needs bound <= 2\n") {
		t.Errorf("summary:\n%s\nwant 8 states, bound 2 used, 1 needed:\n%s", stdout, strings.TrimSpace(want))
	}
	data, err := os.ReadFile(filepath.Join(out, "ServerSocketChannel.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := model.Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Bound == nil || doc.Bound.Used != 2 || doc.Bound.LearnedNeeds != 1 {
		t.Errorf("bound %+v, want used 2, needed 1", doc.Bound)
	}
	// The close that ends a query fails its pending accept after the
	// query (see the purpose): the only warning there may be, and it says
	// that no settle time helps with what dispose causes.
	const stragglers = "timing: callbacks of an earlier query's instance arrived during a later query and were dropped as stragglers: " +
		"if target.dispose (close) causes them, no timeouts.settle helps, since the settle time runs before dispose; " +
		"they change no answer; otherwise a longer timeouts.settle lets them arrive in their own query"
	for _, w := range doc.Warnings {
		if w != stragglers {
			t.Errorf("warning: %s", w)
		}
	}
}
