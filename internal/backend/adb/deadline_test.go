package adb

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/droidstar/droidstar/internal/purpose"
)

// A run's deadline adds up its queries' timeouts (post_reset, settle and
// the setup's sleeps per query, quiescence per wait, each callin's
// sleeps) and the allowances: per query, and once per run.
func TestRunDeadline(t *testing.T) {
	file := filepath.Join(t.TempDir(), "purpose.yaml")
	yaml := `name: T
class: java.util.Timer
setup:
  - sleep: 30ms
callins:
  - symbol: start
  - symbol: slow
    do: [{sleep: 200ms}, {touch: f}, {sleep: 50ms}]
timeouts:
  quiescence: 500ms
  settle: 100ms
  post_reset: 20ms
backend:
  adb: {}
`
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := purpose.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	ms := time.Millisecond
	cases := []struct {
		d       Deadline
		queries [][]string
		want    time.Duration
	}{
		// 150ms per query (post_reset, settle, setup), 2s per query, and
		// the main-thread timeout (10s) plus 10s per run.
		{Deadline{}, [][]string{{"start"}}, 150*ms + 2*time.Second + 20*time.Second},
		{Deadline{}, nil, 20 * time.Second},
		{Deadline{PerQuery: 10 * ms, Margin: time.Second}, [][]string{{"start", "wait", "wait"}, {}, {"slow", "wait", "start"}},
			3*(150*ms+10*ms) + 3*500*ms + 250*ms + time.Second},
	}
	for _, c := range cases {
		if got := newBudget(p, c.d).of(c.queries); got != c.want {
			t.Errorf("%+v %v: %s, want %s", c.d, c.queries, got, c.want)
		}
	}
	// A long quiescence lengthens the main-thread timeout, and the margin.
	p.Timeouts.Quiescence = 3 * time.Second
	if got, want := newBudget(p, Deadline{}).of(nil), 40*time.Second; got != want {
		t.Errorf("quiescence 3s: %s, want %s", got, want)
	}
}
