package learn_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/droidstar/droidstar/internal/learn"
	"github.com/droidstar/droidstar/internal/learn/equivalence"
	"github.com/droidstar/droidstar/internal/model/modeltest"
	"github.com/droidstar/droidstar/internal/oracle/oracletest"
)

// BenchmarkLStarRandom is L* alone (no cache, no scheduler) over a machine
// oracle and a perfect teacher, on random minimal machines of 10 inputs
// and 2 outputs: the learner's own share of internal/bench's
// BenchmarkLStarRandom. queries is what L* asked, which must not change
// with an optimisation.
func BenchmarkLStarRandom(b *testing.B) {
	for _, n := range []int{100, 500, 1000, 2000} {
		d, err := modeltest.Random(n, 10, 2, 1)
		if err != nil {
			b.Fatal(err)
		}
		target, _, err := d.Machine()
		if err != nil {
			b.Fatal(err)
		}
		target = target.Minimize()
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			var queries int
			for i := 0; i < b.N; i++ {
				mq := &oracletest.Machine{M: target}
				res, err := learn.LStar(context.Background(), target.Inputs, target.Outputs, mq, &equivalence.Perfect{Target: target}, learn.Options{})
				if err != nil {
					b.Fatal(err)
				}
				if got := res.Hypothesis.Machine.NumStates(); got != target.NumStates() {
					b.Fatalf("learned %d states, want %d", got, target.NumStates())
				}
				queries = mq.Queries
			}
			b.ReportMetric(float64(queries), "queries")
		})
	}
}
