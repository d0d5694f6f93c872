package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/golden"
	"github.com/droidstar/droidstar/internal/model"
)

// A simulated target that flips one answer of a query with probability 1
// in 200 is learned exactly, with the default --repeat and final check
// (--verify-final near), whatever the seed; the votes it took are in the
// model, and the final check's queries are counted apart. Without the
// final check the same seeds give wrong models: it is what makes them
// exact.
func TestFlakyTargetLearnedExactly(t *testing.T) {
	ref := t.TempDir()
	if code, _, stderr := droidstar(t, "learn", "--example", "mediaplayer", "-q", "-o", ref, "--write", "dot"); code != 0 {
		t.Fatalf("reference run: exit %d\n%s", code, stderr)
	}
	want, err := os.ReadFile(filepath.Join(ref, "MediaPlayer.dot"))
	if err != nil {
		t.Fatal(err)
	}
	votes := 0
	for seed := 1; seed <= 20; seed++ {
		dir := t.TempDir()
		code, _, stderr := droidstar(t, "learn", "--example", "mediaplayer", "-q", "-o", dir, "--write", "dot,json",
			"--sim-flaky", "0.005", "--seed", itoa(seed))
		if code != 0 {
			t.Fatalf("seed %d: exit %d\n%s", seed, code, stderr)
		}
		got, err := os.ReadFile(filepath.Join(dir, "MediaPlayer.dot"))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("seed %d: learned a different model:\n%s", seed, got)
		}
		data, err := os.ReadFile(filepath.Join(dir, "MediaPlayer.json"))
		if err != nil {
			t.Fatal(err)
		}
		var doc model.Document
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		d := doc.Stats.Determinism
		if d == nil || d.Repeat != 3 || d.Seed != uint64(seed) || d.Reruns == 0 || d.Agreements > d.Reruns {
			t.Fatalf("seed %d: determinism %+v", seed, d)
		}
		votes += len(d.Votes)
		// The final check re-ran answers in its own phase, and the
		// re-runs are in the determinism counts.
		v := doc.Stats.Verification
		if v.Asked == 0 || v.Executed < v.Asked || d.Reruns < v.Asked {
			t.Fatalf("seed %d: final check %+v, determinism %+v", seed, v, d)
		}
		if tot := doc.Stats.Total().Executed; tot != doc.Stats.Learning.Executed+doc.Stats.Equivalence.Executed+doc.Stats.Conformance.Executed+v.Executed {
			t.Fatalf("seed %d: total executed %d", seed, tot)
		}
	}
	// The flips happened and were voted away, not missed.
	if votes < 20 {
		t.Fatalf("only %d votes in 20 runs", votes)
	}
	wrong := 0
	for seed := 1; seed <= 20; seed++ {
		dir := t.TempDir()
		code, _, stderr := droidstar(t, "learn", "--example", "mediaplayer", "-q", "-o", dir, "--write", "dot",
			"--sim-flaky", "0.005", "--seed", itoa(seed), "--verify-final", "off")
		if code != 0 {
			t.Fatalf("seed %d, --verify-final off: exit %d\n%s", seed, code, stderr)
		}
		got, err := os.ReadFile(filepath.Join(dir, "MediaPlayer.dot"))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			wrong++
		}
	}
	if wrong == 0 {
		t.Fatal("--verify-final off learned all 20 seeds exactly: the test no longer shows what the final check does")
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// A target that flips an answer in half its queries stops with exit 4,
// the partial model, and the disagreeing traces side by side.
func TestHalfFlakyTargetStops(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := droidstar(t, "learn", "--example", "mediaplayer", "-q", "-o", dir, "--sim-flaky", "0.5", "--seed", "1")
	if code != ExitFlaky || stdout != "" {
		t.Fatalf("exit %d, stdout %q", code, stdout)
	}
	got := strings.ReplaceAll(stderr, dir, "OUT")
	if !golden.CheckFile(t, "internal/cli/testdata/vote-unsettled.golden", []byte(got), "./internal/cli") {
		t.FailNow()
	}
	if strings.Contains(got, "last hypothesis") {
		if _, err := os.Stat(filepath.Join(dir, "MediaPlayer.partial.json")); err != nil {
			t.Fatal(err)
		}
	}
}

func TestVoteFlagsChecked(t *testing.T) {
	for _, tc := range []struct{ flag, want string }{
		{"--repeat=-1", "droidstar: --repeat must be 0 or more, got -1\n"},
		{"--verify=1.5", "droidstar: --verify must be a fraction from 0 to 1, got 1.5\n"},
		{"--verify-final=true", "droidstar: --verify-final must be near, all or off, got \"true\"\n"},
	} {
		code, _, stderr := droidstar(t, "learn", "--example", "asynctask", "-q", "-o", t.TempDir(), tc.flag)
		if code != ExitUsage || stderr != tc.want {
			t.Errorf("%s: exit %d, %q", tc.flag, code, stderr)
		}
	}
}
