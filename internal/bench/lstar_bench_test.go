package bench

import (
	"context"
	"fmt"
	"syscall"
	"testing"

	"github.com/droidstar/droidstar/internal/compose"
	"github.com/droidstar/droidstar/internal/engine"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/model/modeltest"
)

// randomSizes are the state counts of BenchmarkLStarRandom's machines
// (10 inputs, 2 outputs each), ascending so that the process's peak
// resident memory after a size is that size's own (see peakMB).
var randomSizes = []int{100, 500, 1000, 2000}

// randomMinimal is a seeded random machine of n states, 10 inputs and 2
// outputs, minimised (a random machine of 2 outputs rarely has
// equivalent states, but the learner's target is the minimal one), as a
// JSON model file.
func randomMinimal(b *testing.B, n int) (data []byte, states int) {
	b.Helper()
	d, err := modeltest.Random(n, 10, 2, 1)
	if err != nil {
		b.Fatal(err)
	}
	m, _, err := d.Machine()
	if err != nil {
		b.Fatal(err)
	}
	m = m.Minimize()
	data, err = model.FromMachine(fmt.Sprintf("random%d", n), model.SemanticsMealy, m, nil).Marshal()
	if err != nil {
		b.Fatal(err)
	}
	return data, m.NumStates()
}

// cpuSecs is the process's user and system CPU time so far: with the
// garbage collector running beside the learner it can exceed the wall
// time ns/op reports.
func cpuSecs(b *testing.B) float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// peakMB is the process's peak resident memory so far. Run one size per
// process for an exact figure (-bench 'LStarRandom/2000$'); in a run of
// all sizes the larger ones dominate, as they come last.
func peakMB(b *testing.B) float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return float64(ru.Maxrss) / 1024 // Linux reports KiB
}

// BenchmarkLStarRandom learns random minimal machines through the real
// pipeline (the simulated device behind the cache and the scheduler) with
// a perfect teacher, as bench.RunMealy learns the Mealy suite: the CPU
// time (cpu-s/op, the process's user and system time over engine.Run,
// the garbage collector's included) and peak memory of L* and the query
// path at scale. queries is the executed query count, which must not
// change with an optimisation.
func BenchmarkLStarRandom(b *testing.B) {
	for _, n := range randomSizes {
		data, states := randomMinimal(b, n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			var executed int
			var cpu float64
			for i := 0; i < b.N; i++ {
				// Loading the model file and checking the result are not
				// learning: the timer and the CPU count run for engine.Run
				// alone.
				b.StopTimer()
				plan, err := compose.Build(context.Background(), compose.Source{Model: &compose.ModelSource{File: "random.json", Data: data, Format: "json", Bound: 1}}, compose.Options{})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				start := cpuSecs(b)
				res, err := engine.Run(context.Background(), plan.Job, engine.Options{Perfect: plan.Model.Machine, VirtualClock: true})
				cpu += cpuSecs(b) - start
				b.StopTimer()
				plan.Close()
				if err != nil {
					b.Fatal(err)
				}
				if got := res.Machine.NumStates(); got != states {
					b.Fatalf("learned %d states, want %d", got, states)
				}
				if eq, err := res.Machine.Equivalent(plan.Model.Machine); err != nil || !eq {
					b.Fatalf("learned machine differs from the target (err %v)", err)
				}
				executed = res.Document.Stats.Total().Executed
				b.StartTimer()
			}
			b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
			b.ReportMetric(float64(executed), "queries")
			b.ReportMetric(peakMB(b), "peak-MB")
		})
	}
}
