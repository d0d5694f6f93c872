package jvm_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	harnessapk "github.com/droidstar/droidstar/harness-apk"
	"github.com/droidstar/droidstar/internal/backend/jvm"
	"github.com/droidstar/droidstar/internal/backend/jvm/jvmtest"
	"github.com/droidstar/droidstar/internal/compose"
	"github.com/droidstar/droidstar/internal/engine"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/purpose"
)

// fuse loads testdata/fuse/fuse.yaml beside the jar of its class, compiled
// from testdata/fuse.
func fuse(t *testing.T) *purpose.Purpose {
	t.Helper()
	dir := jvmtest.Jar(t, filepath.Join("testdata", "fuse"), "fuse.jar")
	data, err := os.ReadFile(filepath.Join("testdata", "fuse", "fuse.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "fuse.yaml")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := purpose.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// learnFuse learns the Fuse purpose on one harness JVM; kill, when set,
// says before which run request to kill the JVM (once).
func learnFuse(t *testing.T, p *purpose.Purpose, kill func(queries [][]string) bool) *engine.Result {
	t.Helper()
	plan, err := compose.Build(context.Background(), compose.Source{Purpose: p}, compose.Options{
		Backend:  compose.BackendOptions{JVM: jvm.Options{Jar: harnessapk.JVMJar, CacheDir: t.TempDir(), Host: "droidstar test"}},
		Pipeline: compose.Pipeline{Repeat: compose.DefaultRepeat},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer plan.Close()
	if kill != nil {
		jvm.KillWhen(plan.Executors[0].(*jvm.Executor), kill)
	}
	res, err := engine.Run(context.Background(), plan.Job, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// errs lists a model's err transitions out of its non-sink states as
// "from input kind: detail".
func errs(d *model.Document) []string {
	sink := map[string]bool{}
	for _, s := range d.States {
		sink[s.ID] = s.Sink
	}
	var out []string
	for _, tr := range d.Transitions {
		if tr.Err != nil && !sink[tr.From] {
			out = append(out, tr.From+" "+tr.Input+" "+string(tr.Err.Kind)+": "+tr.Err.Detail)
		}
	}
	return out
}

// A class whose callin halts the JVM in one state is learned: blow after
// light answers err of kind crash with the JVM's last words, and the rest
// of the typestate is the class's.
func TestLearnAClassThatHaltsTheJVM(t *testing.T) {
	res := learnFuse(t, fuse(t), nil)
	d := res.Document
	want := []string{"s1 blow crash: the process died (exit status 7): Fuse: blown while lit"}
	if got := errs(d); !slices.Equal(got, want) {
		t.Errorf("err transitions %q\nwant %q", got, want)
	}
	var lines []string
	for _, tr := range d.Transitions {
		lines = append(lines, tr.From+" "+tr.Input+"/"+tr.Output+" "+tr.To)
	}
	wantLines := "s0 light/ok s1|s0 snuff/ok s0|s0 blow/ok s0|s0 wait/quiet s0|" +
		"s1 light/ok s1|s1 snuff/ok s0|s1 blow/err s2|s1 wait/quiet s1|" +
		"s2 light/err s2|s2 snuff/err s2|s2 blow/err s2|s2 wait/err s2"
	if got := strings.Join(lines, "|"); got != wantLines {
		t.Errorf("transitions\n%s\nwant\n%s", got, wantLines)
	}
	if len(d.Warnings) != 0 {
		t.Errorf("warnings %q: a crash the class causes is its behaviour", d.Warnings)
	}
}

// blowsLit says whether q blows the fuse while it is lit.
func blowsLit(q []string) bool {
	lit := false
	for _, sym := range q {
		switch sym {
		case "light":
			lit = true
		case "snuff":
			lit = false
		case "blow":
			if lit {
				return true
			}
		}
	}
	return false
}

// A harness JVM killed once in mid-run by something else costs a restart
// and a warning, and the model is the one an undisturbed run learns, from
// the same queries.
func TestJVMKilledOnceInMidRun(t *testing.T) {
	p := fuse(t)
	calm := learnFuse(t, p, nil)
	// The JVM is killed in the middle of learning, after a few batches,
	// in a batch whose queries the fuse survives (in one it does not,
	// the query that halts it takes the blame, rightly).
	// (KillWhen asks no more once it has killed.)
	runs, at := 0, 0
	killed := learnFuse(t, p, func(queries [][]string) bool {
		runs++
		if at == 0 && runs > 10 && !slices.ContainsFunc(queries, blowsLit) {
			at = runs
			return true
		}
		return false
	})
	if same, err := killed.Machine.Equivalent(calm.Machine); err != nil || !same {
		t.Errorf("the disturbed run learned another model (%v)", err)
	}
	if got, want := errs(killed.Document), errs(calm.Document); !slices.Equal(got, want) {
		t.Errorf("err transitions %q, undisturbed %q", got, want)
	}
	g, w := killed.Document.Stats, calm.Document.Stats
	if g.Learning.Executed+g.Equivalence.Executed != w.Learning.Executed+w.Equivalence.Executed {
		t.Errorf("executed %+v %+v, undisturbed %+v %+v", g.Learning, g.Equivalence, w.Learning, w.Equivalence)
	}
	if at == 0 {
		t.Fatal("the JVM was not killed")
	}
	warnings := killed.Document.Warnings
	// Killed in a run of several queries or of one alone (learning runs
	// those too, after a crash), the warning says what happened and that
	// the run went on.
	if len(warnings) != 1 || !strings.HasPrefix(warnings[0], "the harness JVM jvm-1 died (signal: killed) ") ||
		!strings.HasSuffix(warnings[0], " passed when run again in a fresh one: droidstar restarted it and went on (something other than the class under test may have killed it)") {
		t.Errorf("warnings %q", warnings)
	}
}
