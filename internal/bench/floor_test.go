package bench

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/droidstar/droidstar/internal/compose"
	"github.com/droidstar/droidstar/internal/purpose"
)

// The floor is what the last bound check runs on the true model, so no
// run with the bound oracle alone executes fewer queries, and the check
// on the target finds nothing.
func TestFloorIsBelowEveryRun(t *testing.T) {
	shared := SharedDir("")
	if shared == "" {
		t.Skip("no shared reference data beside the checkout: DroidStar's models live there, not in the repository")
	}
	for _, c := range DroidStarCases {
		t.Run(c.Class, func(t *testing.T) {
			file := filepath.Join(shared, "models", "droidstar-2016", c.Class+"-diagram.gv")
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			plan, err := compose.FromModel(file, data, compose.ModelOptions{
				Format: "droidstar-dot", Bound: c.Bound, Quiescence: c.Quiescence, Reset: Reset,
				Latency: purpose.DefaultLatency, Callins: c.Callins, Restrictions: c.Restrictions,
			})
			if err != nil {
				t.Fatal(err)
			}
			defer plan.Close()
			floor, err := Floor(context.Background(), plan)
			if err != nil {
				t.Fatal(err)
			}
			row, err := RunDroidStarCase(context.Background(), shared, c, 1)
			if err != nil {
				t.Fatal(err)
			}
			if floor < 1 || floor > row.Executed {
				t.Fatalf("floor %d, a run executed %d", floor, row.Executed)
			}
			t.Logf("%s: floor %d, L* with the bound oracle %d", c.Class, floor, row.Executed)
		})
	}
}
