package progress

import (
	"bytes"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/droidstar/droidstar/internal/engine"
)

// fakeClock is safe for concurrent use because the live display reads it
// from mpb's goroutines.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock {
	return &fakeClock{t: time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func sec(n float64) time.Duration { return time.Duration(n * float64(time.Second)) }

func TestPlainLines(t *testing.T) {
	var out bytes.Buffer
	clk := newClock()
	d := New(Options{Out: &out, Interval: 10 * time.Second, Now: clk.Now})

	// A phase first seen with 120 of its 300 queries run: the run's pace,
	// 42 s for 120 queries, spread over the 180 left.
	fill := engine.Snapshot{Phase: "table fill", Executed: 120, CacheHits: 40, Excluded: 3, DeviceSecs: 35.2, Elapsed: sec(42),
		Queries: 120, QueriesTotal: 300}
	clk.Advance(10 * time.Second)
	d.Update(fill) // the run has lasted one interval: the first line
	clk.Advance(3 * time.Second)
	fill.Executed, fill.Queries, fill.Elapsed = 125, 125, sec(45)
	d.Update(fill) // within the interval: nothing
	clk.Advance(7 * time.Second)
	fill.Executed, fill.Queries, fill.Elapsed = 130, 130, sec(52)
	d.Update(fill) // interval over: a line, paced by the phase, 10 queries in 10 s

	clk.Advance(1 * time.Second)
	eq := engine.Snapshot{Phase: "equivalence round 2", Round: 2, States: 5, Executed: 131, CacheHits: 41, Excluded: 3,
		DeviceSecs: 40, Elapsed: sec(53), Total: 400, Unit: "transitions"}
	d.Update(eq) // phase change: a line, no pace yet
	clk.Advance(5 * time.Second)
	eq.Done, eq.Elapsed = 60, sec(58)
	d.Update(eq) // within the interval: nothing
	clk.Advance(5 * time.Second)
	eq.Done, eq.Executed, eq.Elapsed = 130, 200, sec(118)
	d.Update(eq) // interval over: 65 s for 130 transitions, 270 to go

	// A round whose first transitions take long: paced by its queries.
	clk.Advance(11 * time.Second)
	slow := engine.Snapshot{Phase: "equivalence round 3", Round: 3, States: 6, Executed: 200, CacheHits: 41, Excluded: 3,
		DeviceSecs: 60, Elapsed: sec(129), Total: 8, Unit: "transitions", QueriesTotal: 960}
	d.Update(slow) // phase change: a line, the count and the run's pace, 129 s for 200 queries
	clk.Advance(10 * time.Second)
	slow.Queries, slow.Executed, slow.Elapsed = 40, 240, sec(139)
	d.Update(slow) // 40 queries in 10 s, 920 to go

	clk.Advance(1 * time.Second)
	final := engine.Snapshot{Phase: "learned", Round: 3, States: 1, Asked: 400, Executed: 300, CacheHits: 90, Excluded: 10,
		DeviceSecs: 250.25, Elapsed: sec(3725),
		Devices: []engine.Device{{Serial: "emulator-5554", Executed: 160, DeviceSecs: 130}, {Serial: "R58M", Executed: 140, DeviceSecs: 120.25}}}
	d.Finish(final)
	d.Finish(final)
	d.Update(eq)

	want := strings.Join([]string{
		"droidstar: table fill (120 of about 300 queries run, about 1:03 left) · hypothesis 0 states · 120 executed, 40 from cache, 3 excluded · device 35.2 s · 0:42 elapsed",
		"droidstar: table fill (130 of about 300 queries run, about 2:50 left) · hypothesis 0 states · 130 executed, 40 from cache, 3 excluded · device 35.2 s · 0:52 elapsed",
		"droidstar: equivalence round 2 (0/400 transitions, ? left) · hypothesis 5 states · 131 executed, 41 from cache, 3 excluded · device 40.0 s · 0:53 elapsed",
		"droidstar: equivalence round 2 (130/400 transitions, about 2:15 left) · hypothesis 5 states · 200 executed, 41 from cache, 3 excluded · device 40.0 s · 1:58 elapsed",
		"droidstar: equivalence round 3 (0/8 transitions, 0 of about 960 queries run, about 10:19 left) · hypothesis 6 states · 200 executed, 41 from cache, 3 excluded · device 60.0 s · 2:09 elapsed",
		"droidstar: equivalence round 3 (0/8 transitions, 40 of about 960 queries run, about 3:50 left) · hypothesis 6 states · 240 executed, 41 from cache, 3 excluded · device 60.0 s · 2:19 elapsed",
		"droidstar: learned · hypothesis 1 state · 3 equivalence rounds · 400 asked: 300 executed, 90 from cache, 10 excluded · device 250.2 s · 1:02:05 elapsed",
		"droidstar:   emulator-5554  160 executed · device 130.0 s",
		"droidstar:   R58M           140 executed · device 120.2 s",
	}, "\n") + "\n"
	if got := out.String(); got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
}

// A run over within one interval prints nothing: the summary the command
// prints says it all, and CI logs of quick runs stay short.
func TestPlainShortRunWritesNothing(t *testing.T) {
	var out bytes.Buffer
	clk := newClock()
	d := New(Options{Out: &out, Interval: 10 * time.Second, Now: clk.Now})
	d.Update(engine.Snapshot{Phase: "table fill", Executed: 3})
	clk.Advance(4 * time.Second)
	d.Update(engine.Snapshot{Phase: "equivalence round 1", Round: 1, States: 2, Executed: 9})
	clk.Advance(5 * time.Second)
	d.Finish(engine.Snapshot{Phase: "learned", Round: 1, States: 2, Executed: 9})
	if out.Len() != 0 {
		t.Errorf("a 9 s run wrote %q", out.String())
	}
}

func TestQuietWritesNothing(t *testing.T) {
	for _, terminal := range []bool{false, true} {
		var out bytes.Buffer
		d := New(Options{Out: &out, Quiet: true, Terminal: terminal, Interval: time.Nanosecond})
		d.Update(engine.Snapshot{Phase: "table fill", Devices: []engine.Device{{Serial: "a"}, {Serial: "b"}}})
		d.Update(engine.Snapshot{Phase: "equivalence round 1"})
		d.Finish(engine.Snapshot{Phase: "learned"})
		if out.Len() != 0 {
			t.Errorf("terminal=%v: quiet display wrote %q", terminal, out.String())
		}
		if d.bars != nil {
			t.Errorf("terminal=%v: quiet display started mpb", terminal)
		}
	}
}

func TestClock(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0:00"},
		{-5 * time.Second, "0:00"},
		{42 * time.Second, "0:42"},
		{sec(41.6), "0:42"},
		{70 * time.Second, "1:10"},
		{59*time.Minute + 59*time.Second, "59:59"},
		{time.Hour, "1:00:00"},
		{time.Hour + 10*time.Minute + 5*time.Second, "1:10:05"},
		{26*time.Hour + 3*time.Second, "26:00:03"},
	} {
		if got := clock(tc.d); got != tc.want {
			t.Errorf("clock(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestETA(t *testing.T) {
	start := phaseStart{phase: "equivalence round 1", elapsed: sec(100), done: 0}
	for _, tc := range []struct {
		name  string
		s     engine.Snapshot
		start phaseStart
		want  string
	}{
		{"total unknown", engine.Snapshot{Phase: "table fill", Done: 5, Elapsed: sec(200)}, start, "?"},
		{"nothing done yet", engine.Snapshot{Phase: start.phase, Total: 400, Elapsed: sec(130)}, start, "?"},
		{"pace of the phase", engine.Snapshot{Phase: start.phase, Done: 130, Total: 400, Elapsed: sec(165)}, start, "about 2:15"},
		{"all done", engine.Snapshot{Phase: start.phase, Done: 400, Total: 400, Elapsed: sec(300)}, start, "about 0:00"},
		{"seen half done", engine.Snapshot{Phase: start.phase, Done: 200, Total: 400, Elapsed: sec(100)},
			phaseStart{phase: start.phase, elapsed: sec(100), done: 200}, "?"},
		{"pace since first seen", engine.Snapshot{Phase: start.phase, Done: 300, Total: 400, Elapsed: sec(150)},
			phaseStart{phase: start.phase, elapsed: sec(100), done: 200}, "about 0:50"},
		{"long", engine.Snapshot{Phase: start.phase, Done: 1, Total: 400, Elapsed: sec(111)}, start, "about 1:13:09"},
		// No transition checked yet: the queries' pace, 60 in 20 s, 900 to go.
		{"queries before the first transition", engine.Snapshot{Phase: start.phase, Total: 8, Queries: 60, QueriesTotal: 960, Elapsed: sec(120)}, start, "about 5:00"},
		{"no query run yet", engine.Snapshot{Phase: start.phase, Total: 8, QueriesTotal: 960, Elapsed: sec(120)}, start, "?"},
		// A phase without steps is paced by its queries: 60 in 20 s, 40 to go.
		{"queries only", engine.Snapshot{Phase: start.phase, Queries: 60, QueriesTotal: 100, Elapsed: sec(120)}, start, "about 0:13"},
		{"queries all run", engine.Snapshot{Phase: start.phase, Queries: 100, QueriesTotal: 100, Elapsed: sec(120)}, start, "about 0:00"},
		// Before the phase has a pace of its own, the run's: 300 queries
		// in 150 s, 90 to go.
		{"the run's pace", engine.Snapshot{Phase: "table fill", Executed: 300, QueriesTotal: 90, Elapsed: sec(150)}, start, "about 0:45"},
		{"the run's pace, seen half done", engine.Snapshot{Phase: start.phase, Done: 200, Total: 400, Executed: 300, Queries: 10, QueriesTotal: 100, Elapsed: sec(100)},
			phaseStart{phase: start.phase, elapsed: sec(100), done: 200, queries: 10}, "about 0:30"},
		{"no query run in the run", engine.Snapshot{Phase: "table fill", QueriesTotal: 90, Elapsed: sec(1)}, start, "?"},
	} {
		if got := clockOr(eta(tc.s, tc.start)); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestLive(t *testing.T) {
	var out bytes.Buffer
	clk := newClock()
	d := New(Options{Out: &out, Terminal: true, Width: 200, Now: clk.Now})
	devs := []engine.Device{
		{Serial: "emulator-5554", Executed: 70, Busy: true, DeviceSecs: 20},
		{Serial: "R58M", Executed: 50, Busy: false, DeviceSecs: 15.2},
	}
	d.Update(engine.Snapshot{Phase: "equivalence round 2", Round: 2, States: 5, Executed: 100, CacheHits: 30, Excluded: 3,
		DeviceSecs: 30, Elapsed: sec(50), Total: 400, Unit: "transitions", Devices: devs})
	clk.Advance(65 * time.Second)
	final := engine.Snapshot{Phase: "equivalence round 2", Round: 2, States: 5, Asked: 163, Executed: 120, CacheHits: 40, Excluded: 3,
		DeviceSecs: 35.2, Elapsed: sec(115), Done: 130, Total: 400, Unit: "transitions", Devices: devs}
	d.Finish(final)
	d.Finish(final)
	got := out.String()

	// Finish draws the final snapshot before it clears the bar, so these
	// frames are there however many the ticker drew before.
	for _, line := range []string{
		"equivalence round 2 [=========---------------------] 130/400 transitions · about 2:15 left · 1:55 elapsed\n" +
			"  hypothesis 5 states · 120 executed, 40 from cache, 3 excluded · device 35.2 s\n",
		"\n  emulator-5554  busy  70 executed · device 20.0 s\n",
		"\n  R58M           idle  50 executed · device 15.2 s\n",
	} {
		if !strings.Contains(got, line) {
			t.Errorf("output lacks %q:\n%q", line, got)
		}
	}
	// The last frame moves up over the four lines and erases them, so
	// only the summary is left on screen.
	wantEnd := "\x1b[4A\x1b[J" + summary(final)
	if !strings.HasSuffix(got, wantEnd) {
		t.Errorf("output does not end with %q:\n%q", wantEnd, got)
	}
	if n := strings.Count(got, "droidstar: equivalence round 2 · hypothesis 5 states · 2 equivalence rounds"); n != 1 {
		t.Errorf("summary printed %d times", n)
	}
	noMPB(t)
}

// A phase without steps has a bar of its queries, and the estimate of
// what is left; on first sight, the run's pace.
func TestLiveQueries(t *testing.T) {
	var out bytes.Buffer
	clk := newClock()
	d := New(Options{Out: &out, Terminal: true, Width: 200, Now: clk.Now})
	final := engine.Snapshot{Phase: "table fill", Executed: 100, CacheHits: 30, Excluded: 3,
		DeviceSecs: 30, Elapsed: sec(50), Queries: 100, QueriesTotal: 400}
	d.Finish(final)
	want := "table fill [=======-----------------------] 100 of about 400 queries run · about 2:30 left · 0:50 elapsed\n"
	if got := out.String(); !strings.Contains(got, want) {
		t.Errorf("output lacks %q:\n%q", want, got)
	}
	noMPB(t)
}

func TestLiveConcurrent(t *testing.T) {
	var out bytes.Buffer
	d := New(Options{Out: &out, Terminal: true, Width: 60})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			devs := make([]engine.Device, 3)
			for i := range 200 {
				for j := range devs {
					devs[j] = engine.Device{Serial: "device-with-a-rather-long-serial", Executed: i, Busy: i%2 == 0}
				}
				d.Update(engine.Snapshot{Phase: "table fill", Executed: g*1000 + i, Done: i, Total: 200, Elapsed: time.Duration(i) * time.Millisecond, Devices: devs})
			}
		}()
	}
	wg.Wait()
	var fin sync.WaitGroup
	for range 2 {
		fin.Add(1)
		go func() {
			defer fin.Done()
			d.Finish(engine.Snapshot{Phase: "learned"})
		}()
	}
	fin.Wait()
	if n := strings.Count(out.String(), "droidstar: learned"); n != 1 {
		t.Errorf("summary printed %d times", n)
	}
	noMPB(t)
}

// noMPB fails if any of mpb's goroutines outlive Finish. The last ones
// return right after mpb's Wait, so they get a moment to be scheduled.
func noMPB(t *testing.T) {
	t.Helper()
	buf := make([]byte, 1<<20)
	deadline := time.Now().Add(2 * time.Second)
	for {
		stacks := string(buf[:runtime.Stack(buf, true)])
		if !strings.Contains(stacks, "github.com/vbauerster/mpb") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("mpb goroutines left after Finish:\n%s", stacks)
		}
		runtime.Gosched()
	}
}

func TestIsTerminal(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(f) {
		t.Error("a regular file is a terminal")
	}
	if IsTerminal(nil) {
		t.Error("nil is a terminal")
	}
}

// TestLiveNarrow checks that an 80-column terminal keeps the estimate and
// that no line is long enough to wrap, which would break mpb's redraws.
func TestLiveNarrow(t *testing.T) {
	var out bytes.Buffer
	clk := newClock()
	d := New(Options{Out: &out, Terminal: true, Width: 80, Now: clk.Now})
	start := engine.Snapshot{Phase: "equivalence round 12", Round: 12, Elapsed: sec(3600), Total: 4000, Unit: "transitions"}
	d.Update(start)
	clk.Advance(time.Minute)
	devs := []engine.Device{
		{Serial: "0123456789ABCDEF0123456789ABCDEF", Executed: 123456, Busy: true, DeviceSecs: 98765.4},
		{Serial: "emulator-5554", Executed: 1, DeviceSecs: 0.5},
	}
	final := start
	final.States, final.Executed, final.CacheHits, final.Excluded, final.DeviceSecs = 123, 123457, 654321, 1000, 98765.9
	final.Done, final.Elapsed, final.Devices = 1000, sec(3660), devs
	d.Finish(final)

	frames := strings.Split(out.String(), "\x1b[J")
	frame := frames[len(frames)-2] // the last before the clearing one
	// With no room left for the bar, the bar is what gives way.
	if !strings.HasPrefix(frame, "equivalence round 12 · 1000/4000") || !strings.Contains(frame, "1000/4000 transitions · about 3:00 left · 1:01:00 elapsed\n") {
		t.Errorf("main line lost its estimate:\n%s", frame)
	}
	for _, line := range strings.Split(strings.TrimSuffix(frame, "\n"), "\n") {
		if line = strings.Split(line, "\x1b[")[0]; len([]rune(line)) > 80 {
			t.Errorf("line wider than 80 columns: %q", line)
		}
	}
	noMPB(t)
}
