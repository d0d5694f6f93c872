package bench

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/examples"
	"github.com/droidstar/droidstar/internal/engine"
	"github.com/droidstar/droidstar/internal/run"
)

// The counting diagnosis (internal/growth) stops a run whose
// counterexamples grow as a counter's do. It must not stop a target that
// has a finite model: these tests learn every regular target at hand with
// the defaults of droidstar learn, where a diagnosis stops the run.

// defaultSpec is droidstar learn's defaults, with no store and no device
// settings.
func defaultSpec() run.Spec {
	s := run.Defaults()
	s.Store.Path, s.ADB.KeepAwake = run.StoreOff, false
	return s
}

// learnsWithoutDiagnosis learns spec and fails the test if the counting
// diagnosis stopped it; any other failure fails it too.
func learnsWithoutDiagnosis(t *testing.T, spec run.Spec) {
	t.Helper()
	r, out, err := learnSpec(context.Background(), spec)
	var g *engine.GrowthError
	switch {
	case errors.As(err, &g):
		t.Fatalf("diagnosed as counting: %v", err)
	case err != nil:
		t.Fatal(err)
	}
	defer r.Close()
	t.Logf("%d states in %d equivalence rounds, %d counterexamples", out.Document.Stats.States, out.Document.Stats.EQs, len(out.Document.Stats.Counterexamples))
	for _, w := range out.Document.Warnings {
		if strings.Contains(w, "seems to count") {
			t.Fatalf("warning %q", w)
		}
	}
}

func TestNoGrowthDiagnosisOnExamples(t *testing.T) {
	for _, name := range examples.Names() {
		t.Run(name, func(t *testing.T) {
			s := defaultSpec()
			s.Example = name
			learnsWithoutDiagnosis(t, s)
		})
	}
}

func TestNoGrowthDiagnosisOnDroidStarSix(t *testing.T) {
	shared := sharedOrSkip(t)
	for _, c := range DroidStarCases {
		t.Run(c.Class, func(t *testing.T) {
			s, err := droidStarSpec(shared, c, DroidStarRun{})
			if err != nil {
				t.Fatal(err)
			}
			// The case's alphabet, timeouts, restrictions and bound,
			// with every other setting droidstar learn's default.
			d := defaultSpec()
			d.Model, d.Bound = s.Model, s.Bound
			learnsWithoutDiagnosis(t, d)
		})
	}
}

func TestNoGrowthDiagnosisOnMealyModels(t *testing.T) {
	shared := sharedOrSkip(t)
	rows, err := LoadAALpy(shared)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range rows {
		t.Run(a.Model, func(t *testing.T) {
			s := defaultSpec()
			s.Model = run.DefaultModelFile(filepath.Join(shared, "benchmarks", "mealy", a.Model+".dot"))
			s.Model.Format = "mealy-dot"
			learnsWithoutDiagnosis(t, s)
		})
	}
}

// randomMealyDOT is a random complete Mealy machine in Mealy DOT: each
// state's transitions go to random states with random outputs.
func randomMealyDOT(seed int64, states, inputs, outputs int) []byte {
	r := rand.New(rand.NewSource(seed))
	var b strings.Builder
	b.WriteString("digraph random {\n  __start0 [label=\"\" shape=\"none\"];\n  __start0 -> s0;\n")
	for q := 0; q < states; q++ {
		for i := 0; i < inputs; i++ {
			fmt.Fprintf(&b, "  s%d -> s%d [label=\"i%d / o%d\"];\n", q, r.Intn(states), i, r.Intn(outputs))
		}
	}
	return []byte(b.String() + "}\n")
}

// Random machines of up to 2,000 states; those of more than 200 only
// with -slow (minutes).
func TestNoGrowthDiagnosisOnRandomMachines(t *testing.T) {
	for _, size := range []int{10, 50, 200, 1000, 2000} {
		for seed := int64(1); seed <= 3; seed++ {
			t.Run(fmt.Sprintf("%d states, seed %d", size, seed), func(t *testing.T) {
				if size > 200 && !*slow {
					t.Skip("more than 200 states: run with -slow")
				}
				s := defaultSpec()
				s.Model = run.DefaultModelFile(fmt.Sprintf("random-%d-%d.dot", size, seed))
				s.Model.Data, s.Model.Format = randomMealyDOT(seed, size, 3, 2), "mealy-dot"
				learnsWithoutDiagnosis(t, s)
			})
		}
	}
}
