package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/droidstar/droidstar/internal/model"
)

// fastTimer is testdata/matrix's CountDownTimer purpose with timeouts
// short enough for a real-time run of a few seconds (its sim model's
// path to fill in).
const fastTimer = `name: CountDownTimer
class: android.os.CountDownTimer
callins: [start, cancel]
callbacks:
  - finished
timeouts:
  quiescence: 150ms
restrictions:
  - at_most: 1
    of: [start]
backend:
  sim:
    model: %s
    latency:
      finished: 50ms
`

// TestSignalMatrix stops a matrix of three sim targets (sleeping for
// real) as its second target starts learning: the first is learned and
// written, the second stopped with its partial model, the third not run;
// the report's files are not written; the same command again resumes
// both from the store and learns the whole matrix.
func TestSignalMatrix(t *testing.T) {
	t.Parallel()
	bin := build(t)
	models, err := filepath.Abs(filepath.Join("..", "..", "testdata", "matrix"))
	if err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			dir, out := t.TempDir(), t.TempDir()
			file := filepath.Join(dir, "purpose.yaml")
			if err := os.WriteFile(file, []byte(fmt.Sprintf(fastTimer, filepath.Join(models, "api23.dot"))), 0o644); err != nil {
				t.Fatal(err)
			}
			store := filepath.Join(dir, "queries.db")
			// Without the final re-check, so that a resume executes
			// nothing a stopped run executed (see the store's tests).
			args := []string{"matrix", file, "-o", out, "--store", store, "--realtime", "--lanes", "4", "--verify-final=off",
				"--sim-model", "a=" + filepath.Join(models, "api23.dot"),
				"--sim-model", "b=" + filepath.Join(models, "api34.dot"),
				"--sim-model", "c=" + filepath.Join(models, "api23.dot")}
			code, stderr := interruptAt(t, bin, "droidstar: b: learning", sig, args...)

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
			partial := filepath.Join(out, "b.partial.json")
			b := readModel(t, partial)
			note := "no hypothesis yet: the statistics are in " + partial
			if len(b.States) > 0 {
				// Counted as progress counts it: the error sink apart.
				size := fmt.Sprintf("%d states", b.Stats.States)
				if len(b.States) > b.Stats.States {
					size += " + error sink"
				}
				note = fmt.Sprintf("the last hypothesis (%s) is in %s", size, partial)
			}
			m := regexp.MustCompile(`(?m)^droidstar: interrupted by ` + name + `: (\d+) quer(?:y|ies) executed and kept in the query store ` +
				regexp.QuoteMeta(store) + `; run the same command to resume\n` +
				`  a: learned: ` + regexp.QuoteMeta(filepath.Join(out, "a.json")) + `\n` +
				`  b: stopped; ` + regexp.QuoteMeta(note) + `\n` +
				`  c: not run$`).FindStringSubmatch(stderr)
			if m == nil {
				t.Fatalf("stderr has no interrupted message naming the store and each target:\n%s", stderr)
			}
			a := readModel(t, filepath.Join(out, "a.json"))
			executedA, executedB := a.Stats.Total().Executed, b.Stats.Total().Executed
			if n, _ := strconv.Atoi(m[1]); n != executedA+executedB {
				t.Errorf("the message counts %d executed queries; a.json %d and b.partial.json %d", n, executedA, executedB)
			}
			if got := files(t, out); got != "a.dot a.json b.partial.json" {
				t.Errorf("wrote %s", got)
			}
			if strings.Contains(stderr, "context canceled") {
				t.Errorf("stderr says context canceled:\n%s", stderr)
			}

			// The same command again resumes every target from the store.
			again := exec.Command(bin, args...)
			var stdout strings.Builder
			again.Stdout = &stdout
			said, err := again.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := again.Start(); err != nil {
				t.Fatal(err)
			}
			var lines strings.Builder
			sc := bufio.NewScanner(said)
			for sc.Scan() {
				lines.WriteString(sc.Text() + "\n")
			}
			err = again.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Fatalf("the same command again: %v, want exit 1 (the targets differ)\n%s", err, lines.String())
			}
			resuming := func(target string, n int) string {
				answers := "answers"
				if n == 1 {
					answers = "answer"
				}
				return fmt.Sprintf("droidstar: %s: resuming: %d %s stored in %s by earlier runs (--fresh ignores them)\n", target, n, answers, store)
			}
			wantErr := resuming("a", executedA) + "droidstar: a: learning\n"
			if executedB > 0 {
				wantErr += resuming("b", executedB)
			}
			wantErr += "droidstar: b: learning\n" + resuming("c", executedA) + "droidstar: c: learning\n" +
				"wrote " + filepath.Join(out, "matrix.md") + " and " + filepath.Join(out, "matrix.json") + "\n" +
				"droidstar: the targets differ from the baseline a\n"
			if lines.String() != wantErr {
				t.Errorf("the same command again, stderr:\n%s\nwant:\n%s", lines.String(), wantErr)
			}
			wantTable := "target  states  transitions  vs a\n" +
				"a            3            5  baseline\n" +
				"b            3            4  different: cancel\n" +
				"c            3            5  same\n"
			if stdout.String() != wantTable {
				t.Errorf("the same command again, stdout:\n%s\nwant:\n%s", stdout.String(), wantTable)
			}
			if got := files(t, out); got != "a.dot a.json b.dot b.json b.partial.json c.dot c.json matrix.json matrix.md" {
				t.Errorf("the same command again wrote %s", got)
			}
			for _, tc := range []struct {
				target string
				stored int
			}{{"a", executedA}, {"b", executedB}, {"c", executedA}} {
				tot := readModel(t, filepath.Join(out, tc.target+".json")).Stats.Total()
				if tc.target != "b" && tot.Executed != 0 {
					t.Errorf("%s executed %d queries again", tc.target, tot.Executed)
				}
				// A stored query also answers its prefixes, so the count
				// may pass the number stored; on several lanes it may also
				// fall short of it: a spare the first run ran in a lane's
				// wait (oracle.Spares) answers what the second run asks
				// only if the second run's cache misses that batch.
				if tc.stored > 0 && tot.Stored == 0 {
					t.Errorf("%s took %d answers from the store, fewer than the %d stored", tc.target, tot.Stored, tc.stored)
				}
			}
		})
	}
}

// interruptAt starts droidstar with args and interrupts it when stderr
// shows the line at.
func interruptAt(t *testing.T, bin, at string, sig syscall.Signal, args ...string) (int, string) {
	t.Helper()
	return interruptWhen(t, bin, nil, sig, fmt.Sprintf("line %q", at), func(line string) bool { return line == at }, args...)
}

func readModel(t *testing.T, file string) *model.Document {
	t.Helper()
	d, err := model.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// files are the names in dir, sorted, separated by spaces.
func files(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return strings.Join(names, " ")
}
