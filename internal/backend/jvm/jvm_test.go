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

// A harness JVM that dies in the middle of a query is reported with its
// exit status, not as a bare broken pipe, and the executor says so on
// every later call instead of hanging.
func TestHarnessCrashIsExplained(t *testing.T) {
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
	_, err = e.Execute(ctx, []string{"gc", "halt", "gc"})
	want := "harness jvm-1: run: the harness closed the connection (the harness JVM exit status 3"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("got %v\nwant prefix %s", err, want)
	}
	if _, err := e.Execute(ctx, []string{"gc"}); err == nil {
		t.Error("a dead harness answered a query")
	}
	if d := e.Describe(); d.Serial != "jvm-1" || d.Platform != "jvm" || d.Release == "" {
		t.Errorf("describe = %+v", d)
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
// a harness that dies in a batch fails the batch as a whole, since the
// host cannot tell which query was running.
func TestExecuteBatch(t *testing.T) {
	jvmtest.Java(t)
	ctx := context.Background()
	e, err := Start(ctx, load(t, "halt.yaml"), "jvm-1", options(t))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	rs, err := e.ExecuteBatch(ctx, [][]string{{"gc", "gc"}, {}, {"gc"}})
	if err != nil || len(rs) != 3 {
		t.Fatalf("batch: %d results, %v", len(rs), err)
	}
	var got []string
	for _, r := range rs {
		got = append(got, strings.Join(r.Outputs, " "))
	}
	if strings.Join(got, "|") != "ok ok||ok" {
		t.Errorf("outputs %q", got)
	}
	rs, err = e.ExecuteBatch(ctx, [][]string{{"gc"}, {"gc", "halt", "gc"}, {"gc"}})
	var qe *query.Error
	want := "harness jvm-1: run: the harness closed the connection (the harness JVM exit status 3"
	if len(rs) != 0 || errors.As(err, &qe) || err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("batch with a halt: %d results, %v; want none and an error beginning %s", len(rs), err, want)
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
