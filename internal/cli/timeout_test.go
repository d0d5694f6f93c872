package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/examples"
	"github.com/droidstar/droidstar/internal/model"
)

// learnJSON learns with args and returns the written model.
func learnJSON(t *testing.T, args ...string) *model.Document {
	t.Helper()
	dir := t.TempDir()
	code, stdout, stderr := droidstar(t, append([]string{"learn", "--store", "off", "-q", "--write", "json", "-o", dir}, args...)...)
	if code != 0 {
		t.Fatalf("learn %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) != 1 {
		t.Fatalf("learn %s wrote %v (%v)", strings.Join(args, " "), files, err)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	doc, err := model.Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// A calibrated timeout never gives a different model: every example whose
// callbacks have latency ranges, under several seeds, learns the same
// states and transitions with --timeout auto, on one lane and on four, as
// with its fixed timeout, and all equal the target.
func TestTimeoutAutoLearnsTheSameModels(t *testing.T) {
	var ranged []string
	for _, name := range examples.Names() {
		p, err := examples.Purpose(name)
		if err != nil {
			t.Fatal(err)
		}
		if s := p.Backend.Sim; s != nil && (len(s.LatencyMax) > 0 || s.DefaultLatencyMax > 0) {
			ranged = append(ranged, name)
		}
	}
	want := []string{"asynctask", "countdowntimer", "mediaplayer", "speechrecognizer", "spellcheckersession"}
	if !reflect.DeepEqual(ranged, want) {
		t.Fatalf("examples with latency ranges: %v, want %v", ranged, want)
	}
	for _, name := range ranged {
		for _, seed := range []int{1, 2, 3, 4} {
			t.Run(fmt.Sprintf("%s/seed %d", name, seed), func(t *testing.T) {
				// The bound oracle alone: a conformance test would mend
				// a model the calibration got wrong.
				args := []string{"--example", name, "--seed", fmt.Sprint(seed), "--conformance", "off"}
				fixed := learnJSON(t, args...)
				if fixed.Target == nil || !fixed.Target.Equal || fixed.Stats.Timeout != nil {
					t.Errorf("the fixed timeout: target %+v, stats.timeout %+v", fixed.Target, fixed.Stats.Timeout)
				}
				// On several lanes a raise comes mid-batch, and the
				// bound oracle's batches are cut off at a surprise.
				for _, lanes := range []string{"1", "4"} {
					auto := learnJSON(t, append(args, "--timeout", "auto", "--lanes", lanes)...)
					if !reflect.DeepEqual(auto.States, fixed.States) || !reflect.DeepEqual(auto.Transitions, fixed.Transitions) {
						t.Errorf("--timeout auto on %s lanes learned %d states, %d transitions; the fixed timeout %d, %d",
							lanes, len(auto.States), len(auto.Transitions), len(fixed.States), len(fixed.Transitions))
					}
					if auto.Target == nil || !auto.Target.Equal || auto.Stats.Timeout == nil {
						t.Errorf("--timeout auto on %s lanes: target %+v, stats.timeout %+v", lanes, auto.Target, auto.Stats.Timeout)
					}
				}
			})
		}
	}
}

// A --timeout no run can use stops before anything runs, saying why.
func TestTimeoutFlagErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--example", "asynctask", "--timeout", "5s"},
			`droidstar: --timeout must be auto or auto:START (e.g. auto:200ms), got "5s"; a fixed timeout is the purpose's timeouts.quiescence (or --quiescence with --model)`},
		{[]string{"--example", "asynctask", "--timeout", "auto:0"},
			`droidstar: --timeout auto:START needs a positive duration such as auto:200ms, got "auto:0"`},
		{[]string{"--example", "asynctask", "--timeout", "auto:2s"},
			`droidstar: --timeout auto:2s: the starting timeout 2s is above the ceiling 500ms (the purpose's timeouts.quiescence)`},
	}
	for _, c := range cases {
		code, _, stderr := droidstar(t, append([]string{"learn", "--store", "off", "-q", "-o", t.TempDir()}, c.args...)...)
		if code != 2 || strings.TrimSpace(stderr) != c.want {
			t.Errorf("learn %s: exit %d, %q; want exit 2, %q", strings.Join(c.args, " "), code, stderr, c.want)
		}
	}
}

// On the harness each run request carries the longest calibrated timeout
// its waits need: the real
// java.util.Timer, whose task runs 200 ms after schedule, learns the same
// typestate with --timeout auto as with the purpose's 600 ms, and the
// timeout settles at twice its slowest callback.
func TestTimeoutAutoOnTheJVM(t *testing.T) {
	purpose := repoPath("examples", "jvm", "timer.yaml")
	fixed := learnJSON(t, purpose, "--lanes", "2")
	auto := learnJSON(t, purpose, "--lanes", "2", "--timeout", "auto")
	if !reflect.DeepEqual(auto.States, fixed.States) || !reflect.DeepEqual(auto.Transitions, fixed.Transitions) {
		t.Errorf("--timeout auto learned %d states, %d transitions; the fixed timeout %d, %d",
			len(auto.States), len(auto.Transitions), len(fixed.States), len(fixed.Transitions))
	}
	to := auto.Stats.Timeout
	if to == nil {
		t.Fatal("no stats.timeout")
	}
	// The task's latency is 200 ms and some: the timeout settles at 400 ms
	// or more (twice it, at least doubling from 50 ms), up to the ceiling.
	if to.StartMs != 50 || to.SettledMs < 400 || to.SettledMs > 600 {
		t.Errorf("stats.timeout %+v: want a start of 50 ms and a settled timeout within 400..600 ms", to)
	}
	// Only the wait after schedule ever sees the task: the other waits
	// keep the start, each on its own (the run requests' "waits").
	if len(to.Contexts) != 1 || to.Contexts[0].Context != "schedule+1" {
		t.Errorf("stats.timeout.contexts %+v: want schedule+1 alone raised", to.Contexts)
	}
	t.Logf("device time %.1f s calibrated (settled at %.0f ms), %.1f s fixed", auto.Stats.DeviceSecs, to.SettledMs, fixed.Stats.DeviceSecs)
}
