package jvm

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	harnessapk "github.com/droidstar/droidstar/harness-apk"
	"github.com/droidstar/droidstar/internal/backend/jvm/jvmtest"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/purpose"
	"github.com/droidstar/droidstar/internal/query"
)

// The tests' java (jvmtest.Java, which cannot import this package) is the
// one FindJava finds with nothing configured.
func TestJVMTestFindsJavaAsFindJavaDoes(t *testing.T) {
	got := jvmtest.Java(t)
	if want, err := FindJava("", os.Getenv("JAVA_HOME")); err != nil || got != want {
		t.Errorf("jvmtest.Java found %s, FindJava %s (%v)", got, want, err)
	}
}

func load(t *testing.T, name string) *purpose.Purpose {
	t.Helper()
	p, err := purpose.Load(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func options(t *testing.T) Options {
	return Options{Jar: harnessapk.JVMJar, CacheDir: t.TempDir(), Host: "droidstar test"}
}

func TestFindJavaNamesTheProblem(t *testing.T) {
	_, err := FindJava("no-such-java-command", "")
	if err == nil || !strings.HasPrefix(err.Error(), `backend jvm: java command "no-such-java-command": `) {
		t.Errorf("got %v", err)
	}
}

// A callin that halts the JVM, alone in a fresh one too, is the class's
// behaviour: it answers err of kind crash, with how the JVM ended, after
// the outputs of the symbols before it; the executor goes on in a fresh
// JVM.
func TestHaltIsACrashAnswer(t *testing.T) {
	jvmtest.Java(t)
	ctx := context.Background()
	e, err := Start(ctx, load(t, "halt.yaml"), "jvm-1", options(t))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	res, err := e.Execute(ctx, []string{"gc", "gc"})
	if err != nil || strings.Join(res.Outputs, " ") != "ok ok" {
		t.Fatalf("gc gc = %+v, %v", res, err)
	}
	first := e.cmd.Process.Pid
	res, err = e.Execute(ctx, []string{"gc", "halt", "gc"})
	if err != nil || strings.Join(res.Outputs, " ") != "ok err" || res.Err == nil || *res.Err != (model.ErrInfo{Kind: model.ErrCrash, Detail: "the process died (exit status 3)"}) || len(res.Warnings) != 0 {
		t.Fatalf("gc halt gc = %+v (err %+v), %v", res, res.Err, err)
	}
	if e.cmd.Process.Pid == first {
		t.Error("the dead harness JVM was not replaced")
	}
	if res, err := e.Execute(ctx, []string{"gc"}); err != nil || strings.Join(res.Outputs, " ") != "ok" {
		t.Errorf("after the crash: %+v, %v", res, err)
	}
	if d := e.Describe(); d.Serial != "jvm-1" || d.Platform != "jvm" || d.Release == "" {
		t.Errorf("describe = %+v", d)
	}
}

// A halt in the first symbol is told from a halt in the reset: a query
// that dies at its first symbol runs once more with none.
func TestHaltAtTheFirstSymbol(t *testing.T) {
	jvmtest.Java(t)
	ctx := context.Background()
	e, err := Start(ctx, load(t, "halt.yaml"), "jvm-1", options(t))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	res, err := e.Execute(ctx, []string{"halt", "gc"})
	if err != nil || strings.Join(res.Outputs, " ") != "err" || res.Err == nil || res.Err.Kind != model.ErrCrash {
		t.Fatalf("halt gc = %+v (err %+v), %v", res, res.Err, err)
	}
}

// A harness that is gone before droidstar's first request is the harness
// having closed the connection, however its exit and the request
// interleave (EOF on its stdout, EPIPE on its stdin), never a closed file:
// Wait, which runs beside the client, used to close the pipes under it.
func TestHarnessGoneBeforeHello(t *testing.T) {
	java := filepath.Join(t.TempDir(), "java")
	// A "JVM" that cannot start: a word on stderr, exit status 3.
	script := "#!/bin/sh\necho 'Error: Could not create the Java Virtual Machine.' >&2\nexit 3\n"
	if err := os.WriteFile(java, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	o := options(t)
	o.Java = java
	p := load(t, "halt.yaml")
	want := "harness jvm-1: hello: the harness closed the connection (the harness JVM exit status 3; its last output:\nError: Could not create the Java Virtual Machine."
	for i := range 50 {
		if _, err := Start(context.Background(), p, "jvm-1", o); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Fatalf("run %d: got %v\nwant prefix %s", i, err, want)
		}
	}
}

// A JVM that does not start shows what java said.
func TestBadJVMOptionShowsJavasMessage(t *testing.T) {
	jvmtest.Java(t)
	o := options(t)
	o.JVMOptions = []string{"-Xno-such-option"}
	_, err := Start(context.Background(), load(t, "halt.yaml"), "jvm-1", o)
	if err == nil || !strings.Contains(err.Error(), "harness jvm-1: hello: the harness closed the connection (the harness JVM exit status 1; its last output:") ||
		!strings.Contains(err.Error(), "-Xno-such-option") {
		t.Errorf("got %v", err)
	}
}

func TestJarIsUnpackedOncePerContent(t *testing.T) {
	dir := t.TempDir()
	a, err := unpackJar([]byte("one"), dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := unpackJar([]byte("one"), dir)
	if err != nil || a != b {
		t.Errorf("second unpack: %s, %v (first %s)", b, err, a)
	}
	c, err := unpackJar([]byte("two"), dir)
	if err != nil || c == a {
		t.Errorf("different content shares %s", c)
	}
	if _, err := unpackJar(nil, dir); err == nil || err.Error() != "backend jvm: this droidstar was built without the harness jar" {
		t.Errorf("empty jar: %v", err)
	}
}

// A batch runs in one request and answers as its queries do one by one;
// a harness that dies in a batch is restarted and the batch's queries run
// again alone, so that the one that halts it answers err of kind crash
// and the others answer as they do.
func TestExecuteBatch(t *testing.T) {
	jvmtest.Java(t)
	ctx := context.Background()
	e, err := Start(ctx, load(t, "halt.yaml"), "jvm-1", options(t))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	outputs := func(rs []query.Result) string {
		var got []string
		for _, r := range rs {
			got = append(got, strings.Join(r.Outputs, " "))
		}
		return strings.Join(got, "|")
	}
	rs, err := e.ExecuteBatch(ctx, [][]string{{"gc", "gc"}, {}, {"gc"}})
	if err != nil || outputs(rs) != "ok ok||ok" {
		t.Fatalf("batch: %q, %v", outputs(rs), err)
	}
	var runs int
	e.beforeRun = func(*Executor, [][]string) { runs++ }
	rs, err = e.ExecuteBatch(ctx, [][]string{{"gc"}, {"gc", "halt", "gc"}, {"gc"}})
	if err != nil || outputs(rs) != "ok|ok err|ok" || rs[1].Err == nil || rs[1].Err.Kind != model.ErrCrash {
		t.Fatalf("batch with a halt: %q, %v", outputs(rs), err)
	}
	// The batch, each query alone, the halting one again, then its
	// prefixes gc (passes) and gc halt (dies).
	if runs != 1+3+1+2 {
		t.Errorf("%d run requests, want 7", runs)
	}
	for _, r := range rs {
		if len(r.Warnings) != 0 {
			t.Errorf("warnings %q: a crash the query repeats is its answer, nothing to warn about", r.Warnings)
		}
	}
}

// A harness JVM killed by something else (here the test, before a run
// request) costs a restart and a warning: the queries it was to run pass
// when run again alone, and answer as they do.
func TestKilledOnceCostsARestartAndAWarning(t *testing.T) {
	jvmtest.Java(t)
	ctx := context.Background()
	e, err := Start(ctx, load(t, "halt.yaml"), "jvm-1", options(t))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	killed := false
	e.beforeRun = func(e *Executor, _ [][]string) {
		if !killed {
			killed = true
			e.killProcess()
		}
	}
	rs, err := e.ExecuteBatch(ctx, [][]string{{"gc", "gc"}, {"gc"}})
	if err != nil || len(rs) != 2 || strings.Join(rs[0].Outputs, " ") != "ok ok" || strings.Join(rs[1].Outputs, " ") != "ok" {
		t.Fatalf("results %+v, %v", rs, err)
	}
	want := "the harness JVM jvm-1 died (signal: killed) during a run of 2 queries that all passed when run again, each alone, in a fresh one: droidstar restarted it and went on (something other than the class under test may have killed it)"
	if len(rs[0].Warnings) != 1 || rs[0].Warnings[0] != want || len(rs[1].Warnings) != 0 {
		t.Errorf("warnings %q, %q\nwant %q on the first", rs[0].Warnings, rs[1].Warnings, want)
	}
}

// A harness JVM that keeps dying on queries that pass alone is a broken
// environment: the third death in a row that no query repeats stops the
// run, with why.
func TestKeepsDyingStopsTheRun(t *testing.T) {
	jvmtest.Java(t)
	ctx := context.Background()
	e, err := Start(ctx, load(t, "halt.yaml"), "jvm-1", options(t))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	// Every batch of two is killed; the queries alone are not.
	batch := [][]string{{"gc", "gc"}, {"gc"}}
	for k := range 3 {
		e.beforeRun = func(e *Executor, _ [][]string) {
			e.beforeRun = nil // once per batch: not the runs alone
			e.killProcess()
		}
		rs, err := e.ExecuteBatch(ctx, batch)
		if k < 2 {
			if err != nil || len(rs) != 2 {
				t.Fatalf("batch %d: %d results, %v", k, len(rs), err)
			}
			continue
		}
		want := "the harness JVM jvm-1 died 3 times in a row on queries that pass when run alone in a fresh one, so something other than the class under test keeps killing it and no answer can be trusted; the last time: the harness JVM jvm-1 died (signal: killed)"
		var qe *query.Error
		if err == nil || errors.As(err, &qe) || err.Error() != want || len(rs) != 2 {
			t.Fatalf("third death: %d results, %v\nwant %s", len(rs), err, want)
		}
	}
}

// A harness whose main thread does not return is ended and a fresh JVM
// started; the query runs once more there, and a query that wedges the
// fresh harness too fails with both events, after the results before it.
// The executor then goes on with a fresh harness.
func TestWedgedHarnessIsRestartedOnce(t *testing.T) {
	jvmtest.Java(t)
	ctx := context.Background()
	e, err := Start(ctx, load(t, "jam.yaml"), "jvm-1", options(t))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	first := e.cmd.Process.Pid
	rs, err := e.ExecuteBatch(ctx, [][]string{{"name"}, {"name", "jam"}, {"name"}})
	var qe *query.Error
	if !errors.As(err, &qe) || qe.Index != 1 || len(rs) != 1 || strings.Join(rs[0].Outputs, " ") != "ok" {
		t.Fatalf("results %+v, error %v", rs, err)
	}
	want := "the harness timed out: callin jam did not return within 10000 ms on the main thread, and again in a fresh harness JVM: the harness timed out: callin jam did not return within 10000 ms on the main thread"
	if qe.Err.Error() != want {
		t.Fatalf("error %q\nwant  %q", qe.Err, want)
	}
	if e.cmd.Process.Pid == first {
		t.Fatal("the wedged harness JVM was not replaced")
	}
	// The wedged one is replaced again, and the next batch runs.
	rs, err = e.ExecuteBatch(ctx, [][]string{{"name", "name"}})
	if err != nil || len(rs) != 1 || strings.Join(rs[0].Outputs, " ") != "ok ok" {
		t.Fatalf("after the failure: %+v, %v", rs, err)
	}
}

// killProcess kills the harness JVM as something else would, and waits
// until it is gone.
func (e *Executor) killProcess() {
	e.cmd.Process.Kill()
	<-e.done
}
