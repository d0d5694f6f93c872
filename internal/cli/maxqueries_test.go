package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// --max-queries stops a run once that many queries have run on devices:
// exit 1, the message says so, and the partial model holds the last
// hypothesis (or, before the first, the statistics) with exactly that
// many executed queries. Answers from the store are free, so the same
// command with a store goes on where it stopped.
func TestMaxQueriesStopsWithThePartialModel(t *testing.T) {
	cases := []struct {
		max    string
		states int // listed in the partial model, the sink included; 0: no hypothesis yet
		note   string
	}{
		{"3", 0, "no hypothesis yet: the statistics are in %s"},
		{"40", 6, "the last hypothesis (5 states + error sink) is in %s"},
	}
	for _, c := range cases {
		t.Run(c.max, func(t *testing.T) {
			out := t.TempDir()
			code, stdout, stderr := droidstar(t, "learn", "--example", "asynctask", "--store", "off", "-o", out, "-q", "--max-queries", c.max)
			partial := filepath.Join(out, "AsyncTask.partial.json")
			want := "droidstar: stopped after " + c.max + " executed queries (--max-queries " + c.max + "); " + strings.Replace(c.note, "%s", partial, 1) + "\n"
			if code != ExitFail || stdout != "" || stderr != want {
				t.Fatalf("exit %d, stdout %q, stderr\n%s\nwant exit %d, stderr\n%s", code, stdout, stderr, ExitFail, want)
			}
			d := readModel(t, partial)
			tot := d.Stats.Total()
			if got := len(d.States); got != c.states {
				t.Fatalf("the partial model has %d states, want %d", got, c.states)
			}
			if fmt.Sprint(tot.Executed) != c.max {
				t.Fatalf("the partial model records %d executed queries, want %s", tot.Executed, c.max)
			}
			if len(d.Warnings) == 0 || !strings.HasSuffix(d.Warnings[len(d.Warnings)-1], "stopped after "+c.max+" executed queries") {
				t.Fatalf("warnings %q: want the stop last", d.Warnings)
			}
		})
	}
}

// With a store, the stopped run's answers are kept and the same command
// goes on from there: each run executes at most its budget, and the
// model comes out the same as without a limit.
func TestMaxQueriesResumesFromTheStore(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "q.db")
	out := t.TempDir()
	partial := filepath.Join(out, "AsyncTask.partial.json")
	code, _, stderr := droidstar(t, "learn", "--example", "asynctask", "--store", db, "-o", out, "-q", "--max-queries", "40")
	want := "droidstar: stopped after 40 executed queries (--max-queries 40); they are kept in the query store " + db +
		"; the last hypothesis (5 states + error sink) is in " + partial + "; run again with a larger --max-queries to go on from there\n"
	if code != ExitFail || stderr != want {
		t.Fatalf("exit %d, stderr\n%s\nwant\n%s", code, stderr, want)
	}
	code, _, stderr = droidstar(t, "learn", "--example", "asynctask", "--store", db, "-o", out, "-q", "--max-queries", "100000")
	if code != ExitOK {
		t.Fatalf("exit %d, stderr\n%s", code, stderr)
	}
	resumed := readModel(t, filepath.Join(out, "AsyncTask.json"))
	fresh := t.TempDir()
	if code, _, stderr := droidstar(t, "learn", "--example", "asynctask", "--store", "off", "-o", fresh, "-q"); code != ExitOK {
		t.Fatalf("exit %d, stderr\n%s", code, stderr)
	}
	whole := readModel(t, filepath.Join(fresh, "AsyncTask.json"))
	if len(resumed.States) != len(whole.States) || len(resumed.Transitions) != len(whole.Transitions) {
		t.Fatalf("resumed %d states, %d transitions; without a limit %d, %d", len(resumed.States), len(resumed.Transitions), len(whole.States), len(whole.Transitions))
	}
	if r, w := resumed.Stats.Total(), whole.Stats.Total(); r.Executed+40 != w.Executed || r.Stored != 40 {
		t.Fatalf("the resumed run executed %d and took %d from the store; a whole run executes %d: want %d and 40", r.Executed, r.Stored, w.Executed, w.Executed-40)
	}
}

// --max-queries 0 is no limit, as its help says; a negative budget is a
// usage error.
func TestMaxQueriesZeroIsNoLimit(t *testing.T) {
	code, stdout, stderr := droidstar(t, "learn", "--example", "asynctask", "--store", "off", "-o", t.TempDir(), "-q", "--max-queries", "-5")
	want := "droidstar: --max-queries must not be negative, got -5\n"
	if code != ExitUsage || stdout != "" || stderr != want {
		t.Fatalf("--max-queries -5: exit %d, stdout %q, stderr %q; want exit %d, %q", code, stdout, stderr, ExitUsage, want)
	}
	out := t.TempDir()
	if code, _, stderr := droidstar(t, "learn", "--example", "asynctask", "--store", "off", "-o", out, "-q", "--max-queries", "0"); code != ExitOK {
		t.Fatalf("--max-queries 0: exit %d, stderr %q", code, stderr)
	}
	if d := readModel(t, filepath.Join(out, "AsyncTask.json")); d.Stats.States != 5 {
		t.Fatalf("--max-queries 0 learned %d states, want AsyncTask's 5", d.Stats.States)
	}
}
