package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/droidstar/droidstar/internal/model/modeltest"
)

// largeStates are the model sizes BenchmarkLargeModels runs, in states
// (each with 10 inputs and 4 outputs):
//
//	go test -run '^$' -bench LargeModels -benchtime 1x ./cmd/droidstar -args -large-states 1000,10000,100000
var largeStates = flag.String("large-states", "1000", "comma-separated model sizes (states) for BenchmarkLargeModels")

// BenchmarkLargeModels runs the real droidstar binary on seeded random
// models and reports each command's peak resident memory (the child's
// rusage) as peak-MB: every export format, report, and diff of two models
// of the same size. make bench-large runs it (internal/bench/README.md says how).
func BenchmarkLargeModels(b *testing.B) {
	var sizes []int
	for _, s := range strings.Split(*largeStates, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			b.Fatalf("-large-states: %q is not a number of states", s)
		}
		sizes = append(sizes, n)
	}
	dir := b.TempDir()
	bin := filepath.Join(dir, "droidstar")
	for _, p := range [][2]string{{bin, "."}, {filepath.Join(dir, "droidstar-render"), "../droidstar-render"}} {
		if out, err := exec.Command("go", "build", "-o", p[0], p[1]).CombinedOutput(); err != nil {
			b.Fatalf("go build %s: %v\n%s", p[1], err, out)
		}
	}
	for _, n := range sizes {
		var files [2]string
		for k := range files {
			d, err := modeltest.Random(n, 10, 4, uint64(k+1))
			if err != nil {
				b.Fatal(err)
			}
			files[k] = filepath.Join(dir, fmt.Sprintf("m%d-%d.json", n, k))
			f, err := os.Create(files[k])
			if err != nil {
				b.Fatal(err)
			}
			if err := d.Encode(f); err != nil {
				b.Fatal(err)
			}
			if err := f.Close(); err != nil {
				b.Fatal(err)
			}
		}
		// SVG refuses pictures of more than export.MaxDrawnEdges edges
		// (exit 1): it is measured only to show that the refusal is cheap.
		commands := []struct {
			name  string
			args  []string
			codes []int // accepted exit codes
		}{
			{"report", []string{"report", files[0]}, []int{0}},
			{"diff", []string{"diff", files[0], files[1]}, []int{0, 1}},
			{"export-svg", []string{"export", "-f", "svg", files[0]}, []int{0, 1}},
		}
		for _, f := range []string{"json", "dot", "mermaid", "summary"} {
			commands = append(commands, struct {
				name  string
				args  []string
				codes []int
			}{"export-" + f, []string{"export", "-f", f, files[0]}, []int{0}})
		}
		for _, c := range commands {
			b.Run(fmt.Sprintf("%s/states=%d", c.name, n), func(b *testing.B) {
				var peak int64
				for b.Loop() {
					cmd := exec.Command(bin, append([]string{"--max-file-size", "4G"}, c.args...)...)
					cmd.Stdout = nil // discarded: the output's size is not what is measured
					var stderr strings.Builder
					cmd.Stderr = &stderr
					err := cmd.Run()
					code := 0
					var exit *exec.ExitError
					if errors.As(err, &exit) {
						code = exit.ExitCode()
					} else if err != nil {
						b.Fatal(err)
					}
					ok := false
					for _, want := range c.codes {
						ok = ok || code == want
					}
					if !ok {
						b.Fatalf("%s: exit %d\n%s", strings.Join(cmd.Args, " "), code, stderr.String())
					}
					if ru, isRusage := cmd.ProcessState.SysUsage().(*syscall.Rusage); isRusage {
						peak = max(peak, ru.Maxrss) // KiB on Linux
					}
				}
				b.ReportMetric(float64(peak)/1024, "peak-MB")
			})
		}
	}
}
