package bench

import (
	"context"
	"testing"

	"github.com/droidstar/droidstar/examples"
	"github.com/droidstar/droidstar/internal/learn"
)

// LoadAALpy reads all three of AALpy's algorithms for each of the 13
// models, in the order the table lists the models.
func TestLoadAALpyHasAllAlgorithms(t *testing.T) {
	rows, err := LoadAALpy(sharedOrSkip(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 13 {
		t.Fatalf("%d models, want 13", len(rows))
	}
	// The table's first model, BitVise's three rows.
	if r := rows[0]; r.Model != "4_learnresult_MAESTRO_fix" || r.States != 6 || r.Inputs != 14 ||
		r.KV != (AALpyCounts{163, 637, 4}) || r.LSharp != (AALpyCounts{161, 629, 4}) || r.LStar != (AALpyCounts{1176, 4704, 1}) {
		t.Fatalf("first row %+v", r)
	}
	for _, r := range rows {
		if r.LStar.Executed == 0 || r.KV.Executed == 0 || r.LSharp.Executed == 0 {
			t.Errorf("%s: a count is missing: %+v", r.Model, r)
		}
	}
}

// L# learns every public Mealy benchmark exactly with a perfect teacher,
// with the executed queries pinned per model: at or below AALpy 1.6.1's
// L# on every one of the 13 and in total (issue 14 asks for 10 of 13). A
// change that moves a count moves it here, on purpose.
func TestMealyBenchmarksWithLSharp(t *testing.T) {
	shared := sharedOrSkip(t)
	rows, err := LoadAALpy(shared)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{
		"4_learnresult_MAESTRO_fix": 160, "ASN_learnresult_SecureCode_Aut_fix": 107, "BitVise": 1920,
		"CYW43455": 260, "DropBear": 554, "GnuTLS_3.3.8_server_full": 222, "OpenSSH": 1472,
		"OpenSSL_1.0.2_server_regular": 66, "TCP_Linux_Client": 317, "TCP_Linux_Server": 2035,
		"TCP_Windows8_Server": 1492, "emqtt__two_client_will_retain": 323, "learnresult_fix": 312,
	}
	if len(rows) != len(want) {
		t.Fatalf("%d models in AALpy's table, want %d", len(rows), len(want))
	}
	var ours, theirs, atOrBelow int
	for _, a := range rows {
		row, err := RunMealy(context.Background(), shared, a, learn.NameLSharp)
		if err != nil {
			t.Fatal(err)
		}
		if !row.Equal || row.States != a.States {
			t.Errorf("%s: equal=%v, %d states, want %d", a.Model, row.Equal, row.States, a.States)
		}
		if row.Executed != want[a.Model] {
			t.Errorf("%s: executed %d, want %d", a.Model, row.Executed, want[a.Model])
		}
		if row.Executed <= a.LSharp.Executed {
			atOrBelow++
		}
		ours += row.Executed
		theirs += a.LSharp.Executed
		t.Logf("%s: executed %d (AALpy's L# %d, ratio %.2f), %d symbols (%d), %d EQs (%d), %.2f s",
			a.Model, row.Executed, a.LSharp.Executed, Ratio(row.Executed, a.LSharp.Executed),
			row.Symbols, a.LSharp.Symbols, row.EQs, a.LSharp.EQs, row.WallSecs)
	}
	t.Logf("total executed %d, AALpy's L# %d (ratio %.2f)", ours, theirs, Ratio(ours, theirs))
	if atOrBelow < len(rows) || ours > theirs {
		t.Errorf("at or below AALpy's L# on %d of %d models, %d executed in total against its %d", atOrBelow, len(rows), ours, theirs)
	}
}

// Through the engine with the checks a run makes by default (the bound
// oracle, then the wp:1 conformance test), L# learns every bundled
// example's typestate exactly.
func TestExamplesLearnedExactlyWithLSharp(t *testing.T) {
	for _, name := range examples.Names() {
		t.Run(name, func(t *testing.T) {
			spec := exampleSpec(name)
			spec.Learner, spec.Conformance = learn.NameLSharp, "wp:1"
			r, out, err := learnSpec(context.Background(), spec)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if w, differ, err := r.Disagreement(out.Machine); err != nil || differ {
				t.Fatalf("learned model differs from the example's model on %s (err %v)", r.Target().Inputs.Format(w), err)
			}
			st := out.Document.Stats
			if st.Learner != learn.NameLSharp {
				t.Fatalf("stats.learner %q", st.Learner)
			}
			t.Logf("%s: %d states, executed %d", name, st.States, st.Total().Executed)
		})
	}
}

// L# learns DroidStar's six typestates exactly with the bound oracle alone
// (the distinguisher-bound guarantee alone), beside L*'s counts.
func TestDroidStarModelsWithLSharp(t *testing.T) {
	shared := sharedOrSkip(t)
	var ours, lstar int
	for _, c := range DroidStarCases {
		row, err := RunDroidStarCaseWith(context.Background(), shared, c, DroidStarRun{Lanes: 1, Learner: learn.NameLSharp})
		if err != nil {
			t.Fatal(err)
		}
		if !row.Equal {
			t.Errorf("%s: learned model is not equivalent to DroidStar's diagram", c.Class)
		}
		base, err := RunDroidStarCaseWith(context.Background(), shared, c, DroidStarRun{Lanes: 1, Learner: learn.NameLStar})
		if err != nil {
			t.Fatal(err)
		}
		ours += row.Executed
		lstar += base.Executed
		t.Logf("%s: L# executed %d (L* %d), %d EQs, %.1f device-s (L* %.1f)", c.Class, row.Executed, base.Executed, row.EQs, row.DeviceSecs, base.DeviceSecs)
	}
	t.Logf("total executed: L# %d, L* %d", ours, lstar)
}
