package cli

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/bench"
	"github.com/droidstar/droidstar/internal/learn"
	"github.com/droidstar/droidstar/internal/refdata"
	"github.com/droidstar/droidstar/internal/run"
)

// The droidstar suite's learners table gives, class by class, each
// learner's executed queries as a run of that learner makes them, says
// every model is the diagram, and totals the columns.
func TestBenchLearnersTable(t *testing.T) {
	shared := refdata.Require(t)
	code, stdout, stderr := droidstar(t, "bench", "--only", "droidstar", "--shared", shared)
	if code != 0 {
		t.Fatalf("bench: exit %d\n%s", code, stderr)
	}
	_, table, found := strings.Cut(stdout, "\nLearners (")
	if !found {
		t.Fatalf("no learners table in:\n%s", stdout)
	}
	lines := strings.Split(table, "\n")
	header := strings.Fields(lines[2])
	names := learn.Names()
	if header[0] != "class" || header[1] != "equal" || header[2] != names[0] || header[3] != "executed" {
		t.Fatalf("header %q", lines[2])
	}
	totals := make([]int, len(names))
	for k, cs := range bench.DroidStarCases {
		cells := strings.Fields(lines[3+k])
		if cells[0] != cs.Class || cells[1] != "yes" {
			t.Fatalf("row %d: %q, want %s and yes", k, lines[3+k], cs.Class)
		}
		for j, name := range names {
			row, err := bench.RunDroidStarCaseWith(context.Background(), shared, cs, bench.DroidStarRun{Learner: name, Lanes: 1, Pad: run.Defaults().Pad, BoundCountsEvery: true})
			if err != nil {
				t.Fatal(err)
			}
			if got := cells[2+j]; got != strconv.Itoa(row.Executed) {
				t.Errorf("%s, %s: the table says %s executed, a run executes %d", cs.Class, name, got, row.Executed)
			}
			totals[j] += row.Executed
		}
	}
	total := strings.Fields(lines[3+len(bench.DroidStarCases)])
	for j := range names {
		if total[0] != "total" || total[1+j] != strconv.Itoa(totals[j]) {
			t.Errorf("total row %q, want %v", total, totals)
		}
	}
}

// bench --help sends the reader to the benchmark document for the method
// and the tables, and that document is there.
func TestBenchHelpPointsAtTheDocument(t *testing.T) {
	const doc = "internal/bench/README.md"
	code, stdout, stderr := droidstar(t, "bench", "--help")
	if code != 0 {
		t.Fatalf("bench --help: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stdout, doc) {
		t.Errorf("bench --help does not name %s:\n%s", doc, stdout)
	}
	if _, err := os.Stat(repoPath(doc)); err != nil {
		t.Error(err)
	}
}
