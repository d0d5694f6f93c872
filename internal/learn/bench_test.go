package learn_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/droidstar/droidstar/internal/learn"
	"github.com/droidstar/droidstar/internal/learn/equivalence"
	"github.com/droidstar/droidstar/internal/oracle/oracletest"
)

// BenchmarkLearners learns random minimal machines of 100, 500 and 2000
// states, 10 inputs and 2 outputs with a perfect teacher, per learner,
// reporting the queries asked (the learner's own, no cache below it).
func BenchmarkLearners(b *testing.B) {
	for _, states := range []int{100, 500, 2000} {
		target := minimalRandom(int64(states), states, 10, 2)
		for _, name := range learn.Names() {
			learner, err := learn.ByName(name)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("%s/%d", name, states), func(b *testing.B) {
				b.ReportAllocs()
				var queries int
				for i := 0; i < b.N; i++ {
					mq := &oracletest.Machine{M: target}
					res, err := learner(context.Background(), target.Inputs, target.Outputs, mq, &equivalence.Perfect{Target: target}, learn.Options{})
					if err != nil {
						b.Fatal(err)
					}
					if res.Hypothesis.Machine.NumStates() != target.NumStates() {
						b.Fatalf("learned %d states, want %d", res.Hypothesis.Machine.NumStates(), target.NumStates())
					}
					queries = mq.Queries
				}
				b.ReportMetric(float64(queries), "queries")
				b.ReportMetric(float64(target.NumStates()), "states")
			})
		}
	}
}
