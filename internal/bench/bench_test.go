package bench

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/droidstar/droidstar/examples"
	"github.com/droidstar/droidstar/internal/learn"
	"github.com/droidstar/droidstar/internal/refdata"
	"github.com/droidstar/droidstar/internal/run"
)

// sharedOrSkip finds ../shared or skips with a message that says why.
func sharedOrSkip(t testing.TB) string {
	t.Helper()
	return refdata.Require(t)
}

// The six typestates DroidStar learned on a real device must come back
// exactly, with no more executed queries than DroidStar needed.
func TestDroidStarModelsLearnedExactly(t *testing.T) {
	shared := sharedOrSkip(t)
	theirs, err := LoadDroidStarStats(shared)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range DroidStarCases {
		t.Run(c.Class, func(t *testing.T) {
			row, err := RunDroidStarCase(context.Background(), shared, c, 1)
			if err != nil {
				t.Fatal(err)
			}
			if !row.Equal {
				t.Fatalf("learned model is not equivalent to DroidStar's diagram")
			}
			ds := theirs[c.Class]
			if ds.Executed == 0 {
				t.Fatalf("no DroidStar statistics for %s", c.Class)
			}
			if row.Executed > ds.Executed {
				t.Errorf("executed %d queries, DroidStar executed %d", row.Executed, ds.Executed)
			}
			t.Logf("%s: %d states, executed %d vs DroidStar %d (ratio %.2f), %.1f device-s vs %.0f s",
				c.Class, row.States, row.Executed, ds.Executed, Ratio(row.Executed, ds.Executed), row.DeviceSecs, float64(ds.TimeMillis)/1000)
		})
	}
}

// The floor of each DroidStar case is the number of maximal words of its
// last bound check modulo the closure's forced answers, plus the initial
// state's transitions into the error sink, which the check skips and no
// check word covers (SQLiteOpenHelper's openHV). Counting every symbol,
// as DroidStar did, an independent count of the same six models gave
// these; counting free symbols (learn's default) FileObserver's bound
// reaches further, and its floor is 125. A default run executes no fewer,
// and at most 5% more (the target; the counts are exact and
// repeat).
func TestDroidStarFloor(t *testing.T) {
	shared := sharedOrSkip(t)
	want := map[string]int{"AsyncTask-NoGet": 54, "CountDownTimer": 20, "FileObserver": 65,
		"SQLiteOpenHelper": 35, "SpeechRecognizer": 186, "SpellCheckerSession": 111}
	for _, every := range []bool{true, false} {
		for _, c := range DroidStarCases {
			t.Run(fmt.Sprintf("%s/every=%v", c.Class, every), func(t *testing.T) {
				floor, err := DroidStarFloor(context.Background(), shared, c, every)
				if err != nil {
					t.Fatal(err)
				}
				w := want[c.Class]
				if !every && c.Class == "FileObserver" {
					w = 125
				}
				if floor != w {
					t.Errorf("floor %d, want %d", floor, w)
				}
				row, err := RunDroidStarCaseWith(context.Background(), shared, c, DroidStarRun{Lanes: 1, Pad: run.Defaults().Pad, BoundCountsEvery: every})
				if err != nil {
					t.Fatal(err)
				}
				if !row.Equal || row.Executed < floor || 100*row.Executed > 105*floor {
					t.Errorf("a default run executed %d queries (equal to the diagram: %v), the floor is %d", row.Executed, row.Equal, floor)
				}
			})
		}
	}
}

// Several lanes learn the same models: a whole equivalence round per
// batch, cut off at the first surprise, changes which queries run, never
// what is learned. On one lane the estimated wall time is the device
// time; on four it is what the lanes take, at least a quarter of it.
func TestDroidStarModelsWithLanes(t *testing.T) {
	shared := sharedOrSkip(t)
	// Every learner: on several lanes the bound check takes a whole
	// round per batch and its cut-off path, which one lane never takes;
	// L# and KV once passed a wrong SpeechRecognizer there.
	for _, learner := range learn.Names() {
		for _, c := range DroidStarCases {
			t.Run(learner+"/"+c.Class, func(t *testing.T) {
				one, err := RunDroidStarCaseWith(context.Background(), shared, c, DroidStarRun{Lanes: 1, Learner: learner, Pad: run.Defaults().Pad})
				if err != nil {
					t.Fatal(err)
				}
				four, err := RunDroidStarCaseWith(context.Background(), shared, c, DroidStarRun{Lanes: 4, Learner: learner, Pad: run.Defaults().Pad})
				if err != nil {
					t.Fatal(err)
				}
				if !one.Equal || !four.Equal || four.States != one.States {
					t.Fatalf("with 4 lanes: equal=%v states=%d, with 1 lane equal=%v states %d", four.Equal, four.States, one.Equal, one.States)
				}
				if math.Abs(one.EstimatedWallSecs-one.DeviceSecs) > 1e-6 {
					t.Errorf("1 lane: estimated wall %g s, device time %g s", one.EstimatedWallSecs, one.DeviceSecs)
				}
				if four.EstimatedWallSecs < four.DeviceSecs/4-1e-6 || four.EstimatedWallSecs >= four.DeviceSecs {
					t.Errorf("4 lanes: estimated wall %g s for %g device-s", four.EstimatedWallSecs, four.DeviceSecs)
				}
			})
		}
	}
}

// --timeout auto never gives DroidStar's six another model: under the
// bundled examples' latencies, on one lane and on four, each learns the
// same transitions as with DroidStar's fixed timeout, and the diagram.
func TestDroidStarModelsWithTimeoutAuto(t *testing.T) {
	shared := sharedOrSkip(t)
	for _, c := range DroidStarCases {
		t.Run(c.Class, func(t *testing.T) {
			fixed, err := RunDroidStarCaseWith(context.Background(), shared, c, DroidStarRun{Lanes: 1, Pad: run.Defaults().Pad, Latencies: true})
			if err != nil {
				t.Fatal(err)
			}
			if !fixed.Equal {
				t.Fatal("the fixed timeout learned another model than the diagram")
			}
			for _, lanes := range []int{1, 4} {
				auto, err := RunDroidStarCaseWith(context.Background(), shared, c, DroidStarRun{Lanes: lanes, Pad: run.Defaults().Pad, Latencies: true, Timeout: run.TimeoutAuto})
				if err != nil {
					t.Fatal(err)
				}
				if !auto.Equal || !reflect.DeepEqual(auto.Transitions, fixed.Transitions) {
					t.Errorf("--timeout auto on %d lanes: equal to the diagram %v, the same transitions as the fixed timeout %v", lanes, auto.Equal, reflect.DeepEqual(auto.Transitions, fixed.Transitions))
				}
			}
		})
	}
}

// L* with Rivest-Schapire and a perfect teacher learns every public Mealy
// benchmark exactly, with no more than 10% more executed queries than AALpy.
func TestMealyBenchmarksAgainstAALpy(t *testing.T) {
	shared := sharedOrSkip(t)
	rows, err := LoadAALpy(shared)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 13 {
		t.Fatalf("read %d L* rows from AALpy's table, want 13", len(rows))
	}
	var ours, theirs int
	for _, a := range rows {
		row, err := RunMealy(context.Background(), shared, a, learn.NameLStar)
		if err != nil {
			t.Fatal(err)
		}
		if !row.Equal || row.States != a.States {
			t.Errorf("%s: equal=%v, %d states, want %d", a.Model, row.Equal, row.States, a.States)
		}
		if r := Ratio(row.Executed, a.LStar.Executed); r > 1.10 {
			t.Errorf("%s: executed %d, AALpy %d (ratio %.2f)", a.Model, row.Executed, a.LStar.Executed, r)
		}
		ours += row.Executed
		theirs += a.LStar.Executed
	}
	if r := Ratio(ours, theirs); r < 0.90 || r > 1.10 {
		t.Errorf("in total %d executed queries against AALpy's %d (ratio %.2f), want within 10%%", ours, theirs, r)
	}
}

// Every bundled example learns back exactly the behaviour its model shows
// through the purpose (restrictions, merged and error callbacks).
func TestExamplesLearnedExactly(t *testing.T) {
	want := map[string]int{
		"asynctask": 5, "countdowntimer": 3, "fileobserver": 11, "mediaplayer": 11,
		"speechrecognizer": 7, "spellcheckersession": 4, "sqliteopenhelper": 8,
	}
	names := examples.Names()
	if len(names) != len(want) {
		t.Fatalf("examples %v, want %d", names, len(want))
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			r, out, err := learnSpec(context.Background(), exampleSpec(name))
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if w, differ, err := r.Disagreement(out.Machine); err != nil || differ {
				t.Fatalf("learned model differs from the example's model on %s (err %v)", r.Target().Inputs.Format(w), err)
			}
			if got := out.Document.Stats.States; got != want[name] {
				t.Fatalf("%d typestate states, want %d", got, want[name])
			}
		})
	}
}

func BenchmarkLearnDroidStar(b *testing.B) {
	shared := sharedOrSkip(b)
	for _, c := range DroidStarCases {
		b.Run(c.Class, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := RunDroidStarCase(context.Background(), shared, c, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkLearnMealy(b *testing.B) {
	shared := sharedOrSkip(b)
	rows, err := LoadAALpy(shared)
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range learn.Names() {
		for _, a := range rows {
			b.Run(name+"/"+a.Model, func(b *testing.B) {
				b.ReportAllocs()
				var executed int
				for i := 0; i < b.N; i++ {
					row, err := RunMealy(context.Background(), shared, a, name)
					if err != nil {
						b.Fatal(err)
					}
					executed = row.Executed
				}
				b.ReportMetric(float64(executed), "queries")
			})
		}
	}
}

// Padding changes what runs, never what is learned: every DroidStar
// diagram and every example comes back exactly, with the same number of
// states, at each padding length of learning queries and of a check's
// words, and the default pads for fewer executed queries in all.
func TestPaddingLearnsTheSameModels(t *testing.T) {
	for _, name := range examples.Names() {
		t.Run(name, func(t *testing.T) {
			plain, err := RunExample(context.Background(), name)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range []run.Pad{{Learning: 1}, {Check: 1}, run.Defaults().Pad, {Learning: 5, Check: 3}} {
				row, err := RunExampleRun(context.Background(), name, ExampleRun{Pad: n})
				if err != nil {
					t.Fatal(err)
				}
				if !row.Equal || row.States != plain.States {
					t.Errorf("pad %+v: %d states, matches the model: %v; without padding %d states", n, row.States, row.Equal, plain.States)
				}
				if n == run.Defaults().Pad && row.Executed > plain.Executed {
					t.Errorf("pad %+v executed %d queries, %d without padding", n, row.Executed, plain.Executed)
				}
			}
		})
	}
	shared := sharedOrSkip(t)
	var plainTotal, paddedTotal int
	for _, c := range DroidStarCases {
		t.Run(c.Class, func(t *testing.T) {
			plain, err := RunDroidStarCase(context.Background(), shared, c, 1)
			if err != nil {
				t.Fatal(err)
			}
			plainTotal += plain.Executed
			for n := 0; n <= 5; n++ {
				for _, check := range []int{0, 1, 2} {
					size := run.Pad{Learning: n, Check: check}
					if size == (run.Pad{}) {
						continue
					}
					row, err := RunDroidStarCaseWith(context.Background(), shared, c, DroidStarRun{Lanes: 1, Pad: size})
					if err != nil {
						t.Fatal(err)
					}
					if !row.Equal || row.States != plain.States {
						t.Errorf("pad %+v: %d states, equal to the diagram: %v; without padding %d states", size, row.States, row.Equal, plain.States)
					}
					if size == run.Defaults().Pad {
						paddedTotal += row.Executed
					}
				}
			}
		})
	}
	if paddedTotal >= plainTotal {
		t.Errorf("the six executed %d queries padded by %+v, %d without padding", paddedTotal, run.Defaults().Pad, plainTotal)
	}
}

func TestGeoMean(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{0.5, 2}, 1},
		{[]float64{0.1, 1, 10}, 1},
		{[]float64{0.25}, 0.25},
		{nil, 0},
		{[]float64{1, 0}, 0},
	} {
		if got := GeoMean(c.xs); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("GeoMean(%v) = %g, want %g", c.xs, got, c.want)
		}
	}
}
