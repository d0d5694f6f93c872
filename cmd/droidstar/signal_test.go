package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/droidstar/droidstar/internal/backend/jvm/jvmtest"
	"github.com/droidstar/droidstar/internal/model"
)

// build compiles droidstar for tests that run it as a user does.
func build(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "droidstar")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// interruptRun starts droidstar learn and interrupts it at its first
// progress line (learning is under way).
func interruptRun(t *testing.T, bin string, env []string, sig syscall.Signal, args ...string) (int, string) {
	t.Helper()
	return interruptWhen(t, bin, env, sig, "a progress line", func(line string) bool { return strings.Contains(line, " executed, ") },
		append([]string{"learn", "--progress-interval", "1ns"}, args...)...)
}

// interruptWhen starts droidstar with args (env added to the environment)
// in a process group of its own, sends sig to the whole group as a
// terminal's Ctrl-C does (or as timeout(1) sends SIGTERM) at the first
// stderr line for which when holds, and returns the exit code and stderr.
func interruptWhen(t *testing.T, bin string, env []string, sig syscall.Signal, what string, when func(line string) bool, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(stderr)
	sent := false
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if !sent && when(sc.Text()) {
			if err := syscall.Kill(-cmd.Process.Pid, sig); err != nil {
				t.Fatal(err)
			}
			sent = true
		}
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("droidstar exited with %v; want an exit code (signal sent: %v); stderr:\n%s", err, sent, strings.Join(lines, "\n"))
	}
	if !sent {
		t.Fatalf("no %s before the end; stderr:\n%s", what, strings.Join(lines, "\n"))
	}
	return ee.ExitCode(), strings.Join(lines, "\n")
}

var interruptedLine = regexp.MustCompile(`(?m)^droidstar: interrupted by (SIG[A-Z]+): (\d+) quer(?:y|ies) executed and kept in the query store (\S+); (?:the last hypothesis \(\d+ states?(?: \+ error sink)?\) is in|no hypothesis yet: the statistics are in) (\S+); run the same command to resume$`)

// checkInterrupted checks the exit code, the stop's messages and the
// partial model, whose statistics count the queries the message says.
func checkInterrupted(t *testing.T, sig syscall.Signal, code int, stderr, out, store string) int {
	t.Helper()
	name, want := "SIGINT", 130
	if sig == syscall.SIGTERM {
		name, want = "SIGTERM", 143
	}
	if code != want {
		t.Errorf("exit code %d, want %d", code, want)
	}
	if !strings.Contains(stderr, "droidstar: "+name+": no new queries; the running ones get up to 10s to finish (interrupt again to stop at once)\n") {
		t.Errorf("stderr has no stop notice for %s:\n%s", name, stderr)
	}
	m := interruptedLine.FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("stderr has no interrupted line:\n%s", stderr)
	}
	if m[1] != name {
		t.Errorf("interrupted by %s, want %s", m[1], name)
	}
	if m[3] != store {
		t.Errorf("queries kept in %s, want %s", m[3], store)
	}
	if filepath.Dir(m[4]) != out {
		t.Errorf("partial model in %s, want it in %s", m[4], out)
	}
	d, err := model.ReadFile(m[4])
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(d.Stats.Total().Executed); got != m[2] {
		t.Errorf("the partial model counts %s executed queries, the message %s", got, m[2])
	}
	if strings.Contains(stderr, "context canceled") {
		t.Errorf("stderr says context canceled:\n%s", stderr)
	}
	n, _ := strconv.Atoi(m[2])
	return n
}

// TestSignalSim stops a learning run on the simulated device (sleeping
// for real, so the run is long enough to interrupt) with SIGINT and SIGTERM.
func TestSignalSim(t *testing.T) {
	t.Parallel()
	bin := build(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			out := t.TempDir()
			store := filepath.Join(t.TempDir(), "queries.db")
			code, stderr := interruptRun(t, bin, []string{"DROIDSTAR_STORE=" + store}, sig, "--example", "mediaplayer", "--realtime", "-o", out)
			checkInterrupted(t, sig, code, stderr, out, store)
		})
	}
}

// TestSignalJVM stops a run on the real harness JVM: the JVM gets no
// signal from the group (it has its own), is ended by droidstar, and
// leaves neither a process nor its temporary folder.
func TestSignalJVM(t *testing.T) {
	jvmtest.Java(t)
	t.Parallel()
	bin := build(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			// The runs mostly wait (each query for the purpose's 600 ms
			// quiescence): the two signals' runs overlap well.
			t.Parallel()
			out, tmp, cache := t.TempDir(), t.TempDir(), t.TempDir()
			env := []string{"TMPDIR=" + tmp, "XDG_CACHE_HOME=" + cache, "HOME=" + cache}
			store := filepath.Join(cache, "droidstar", "queries.db")
			code, stderr := interruptRun(t, bin, env, sig, "../../examples/jvm/timer.yaml", "-o", out)
			executed := checkInterrupted(t, sig, code, stderr, out, store)
			if strings.Contains(stderr, "harness closed the connection") {
				t.Errorf("the harness died under the signal:\n%s", stderr)
			}
			left, _ := filepath.Glob(filepath.Join(tmp, "droidstar-jvm-*"))
			if len(left) > 0 {
				t.Errorf("temporary folders left: %v", left)
			}
			// The same command again resumes: what the stopped run
			// executed is answered from the store, and nothing runs twice.
			// (Without the final re-check, which only makes it longer, and
			// on four harness JVMs, which the store's fingerprint does not
			// tell apart: the rest of the run takes 15 s instead of 43 s.)
			again := exec.Command(bin, "learn", "../../examples/jvm/timer.yaml", "-o", out, "--write", "json", "--verify-final=off", "--lanes", "4")
			again.Env = append(os.Environ(), env...)
			said, err := again.CombinedOutput()
			if err != nil {
				t.Fatalf("the same command again: %v\n%s", err, said)
			}
			if want := fmt.Sprintf("droidstar: resuming: %d answers stored in %s by earlier runs (--fresh ignores them)\n", executed, store); executed > 1 && !strings.Contains(string(said), want) {
				t.Errorf("the second run does not say it resumes (%q):\n%s", want, said)
			}
			d, err := model.ReadFile(filepath.Join(out, "Timer.json"))
			if err != nil {
				t.Fatal(err)
			}
			// (A stored query also answers its prefixes, so the count may
			// pass the number executed.)
			if got := d.Stats.Learning.Stored + d.Stats.Equivalence.Stored; executed > 0 && got == 0 {
				t.Errorf("the second run took no answer from the store, after %d were executed before", executed)
			}
			cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
			for _, f := range cmdlines {
				b, err := os.ReadFile(f)
				if err == nil && strings.Contains(string(b), tmp) {
					t.Errorf("a harness JVM still runs: %s: %q", f, b)
				}
			}
		})
	}
}
