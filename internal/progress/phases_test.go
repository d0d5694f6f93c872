package progress

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/droidstar/droidstar/internal/engine"
	"github.com/droidstar/droidstar/internal/golden"
	"github.com/droidstar/droidstar/internal/run"
)

// shown is one snapshot as the display shows it.
type shown struct {
	at    time.Duration // on the run's clock
	phase string
	line  string // the plain-mode line, without its prefix
	left  bool   // the line says how much time is left
}

// watch learns spec on the simulator's virtual clock with a plain
// display whose clock is the run's, and returns what it wrote and every
// snapshot as the display saw it. The snapshots come as the run's own
// time passes, so both are the same on every run.
func watch(t *testing.T, spec run.Spec) (string, []shown) {
	t.Helper()
	spec.Store.Path = run.StoreOff
	ctx := context.Background()
	sess, err := run.Open(spec, run.Env{ToolVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	r, err := sess.Start(ctx, spec, "")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out bytes.Buffer
	start := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	now := start
	d := New(Options{Out: &out, Interval: 10 * time.Second, Now: func() time.Time { return now }})
	var seen []shown
	res, err := r.Learn(ctx, func(s engine.Snapshot) {
		now = start.Add(s.Elapsed)
		d.Update(s)
		d.mu.Lock()
		_, left := eta(d.cur, d.start)
		seen = append(seen, shown{at: s.Elapsed, phase: s.Phase, line: statusLine(d.cur, d.start), left: left})
		d.mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	d.Finish(res.Final)
	return out.String(), seen
}

// The display says how much time is left within the first minute of
// every phase of every learner: the table fill, refining after a
// counterexample, the bound check's rounds (also at each bound --bound
// auto tries), the conformance test and the final check.
func TestEveryPhaseShowsTimeLeftWithinAMinute(t *testing.T) {
	for _, tc := range []struct {
		name        string
		learner     string
		bound, conf string
	}{
		{name: "lstar", learner: "lstar"},
		{name: "kv", learner: "kv"},
		{name: "lsharp", learner: "lsharp"},
		{name: "lstar bound auto random walks", learner: "lstar", bound: run.BoundAuto, conf: "random:200:1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := run.Defaults()
			spec.Example, spec.Learner, spec.Bound, spec.Conformance = "mediaplayer", tc.learner, tc.bound, tc.conf
			_, seen := watch(t, spec)
			first := map[string]time.Duration{}
			shows := map[string]bool{}
			var order []string
			for _, s := range seen {
				at, ok := first[s.phase]
				if !ok {
					at, first[s.phase] = s.at, s.at
					order = append(order, s.phase)
				}
				if s.left && s.at-at <= time.Minute {
					shows[s.phase] = true
				}
			}
			kinds := map[string]bool{}
			for _, phase := range order {
				kinds[kindOf(phase)] = true
				if shows[phase] {
					continue
				}
				var lines []string
				for _, s := range seen {
					if s.phase == phase && s.at-first[phase] <= time.Minute {
						lines = append(lines, clock(s.at)+"  "+s.line)
					}
				}
				t.Errorf("%s shows no time left in its first minute:\n%s", phase, strings.Join(lines, "\n"))
			}
			for _, kind := range []string{"table fill", "equivalence round", "refining after round", "conformance test, round", "final check"} {
				if !kinds[kind] {
					t.Errorf("no %s among the phases %q", kind, order)
				}
			}
			if tc.bound == run.BoundAuto && !slices.ContainsFunc(order, func(p string) bool { return strings.HasSuffix(p, " at bound 3") }) {
				t.Errorf("no round at a bound --bound auto raised to among the phases %q", order)
			}
		})
	}
}

// kindOf is a phase's name without its numbers.
func kindOf(phase string) string {
	if k := strings.IndexAny(phase, "0123456789"); k >= 0 {
		phase = phase[:k]
	}
	return strings.TrimSpace(phase)
}

// What a CI log shows of learning the MediaPlayer example with L*, a line
// every ten seconds of the run's time and at each new phase, each phase
// with its queries run of those it is expected to run and the time left.
func TestMediaPlayerProgressLines(t *testing.T) {
	spec := run.Defaults()
	spec.Example = "mediaplayer"
	out, _ := watch(t, spec)
	golden.Check(t, "progress", "mediaplayer-lstar.txt", []byte(out), "./internal/progress")
}
