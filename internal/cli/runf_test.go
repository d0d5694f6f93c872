package cli

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"testing"

	"github.com/droidstar/droidstar/internal/run"
)

// testEnv is an environment for calling a command's run function without
// the command line: its output in buffers, no environment variables, and
// a stopper no signal reaches.
func testEnv() (*env, *bytes.Buffer, *bytes.Buffer) {
	var stdout, stderr bytes.Buffer
	_, cancel := context.WithCancel(context.Background())
	e := &env{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	e.stop = &stopper{stderr: io.Discard, cancel: cancel, exit: func(int) {}}
	return e, &stdout, &stderr
}

// The commands are flag layers: what the flags fill is an options struct,
// and the run function takes it without the command line.
func TestCommandsRunWithoutTheCommandLine(t *testing.T) {
	var got *learnOptions
	c := newLearnCmd(&env{stdout: io.Discard, stderr: io.Discard}, func(_ context.Context, o *learnOptions) error { got = o; return nil })
	c.SetArgs([]string{"--example", "asynctask", "--learner", "kv", "--timeout", "auto", "-o", "somewhere"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Spec.Example != "asynctask" || got.Spec.Learner != "kv" || got.Spec.Timeout != "auto" || got.Out != "somewhere" {
		t.Fatalf("the flags filled %+v", got)
	}

	e, stdout, stderr := testEnv()
	spec := run.Defaults()
	spec.Example, spec.Store.Path = "countdowntimer", run.StoreOff
	out := t.TempDir()
	o := &learnOptions{Spec: spec, Out: out, Write: []string{"json"}, Quiet: true, ProgressEvery: 1}
	if err := runLearn(context.Background(), e, o); err != nil {
		t.Fatalf("runLearn: %v\n%s", err, stderr)
	}
	if d := readModel(t, filepath.Join(out, "CountDownTimer.json")); d.Stats.States != 3 || d.Target == nil || !d.Target.Equal {
		t.Fatalf("learned %d states, target %+v", d.Stats.States, d.Target)
	}
	if stdout.Len() != 0 || stderr.Len() != 0 {
		t.Fatalf("a quiet run printed %q and %q", stdout, stderr)
	}
}
