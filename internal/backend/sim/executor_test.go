package sim

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/droidstar/droidstar/internal/model"
)

const recognizer = `digraph {
  __start0 -> idle;
  idle -> listening [label="start / ok"];
  idle -> idle [label="wait / quiet"];
  listening -> ready [label="wait / starting"];
  listening -> settling [label="cancel / ok"];
  settling -> idle [label="wait / quiet"];
  ready -> idle [label="wait / finished"];
}`

func newRecognizer(t *testing.T, realtime bool) *Executor {
	t.Helper()
	m, err := ParseModel("recognizer.dot", []byte(recognizer), "")
	if err != nil {
		t.Fatal(err)
	}
	return NewExecutor(m, Timing{
		Quiescence: 8 * time.Second, Reset: 150 * time.Millisecond,
		Latency: map[string]time.Duration{"starting": 300 * time.Millisecond}, DefaultLatency: 50 * time.Millisecond,
		Realtime: realtime,
	}, "sim-0")
}

func TestExecutorAnswersAndChargesTheVirtualClock(t *testing.T) {
	e := newRecognizer(t, false)
	cases := []struct {
		query, want string
		device      time.Duration
	}{
		// reset + starting latency + default latency for finished + one quiescence
		{"start wait wait wait", "ok starting finished quiet", 150*time.Millisecond + 300*time.Millisecond + 50*time.Millisecond + 8*time.Second},
		// a wait right after a quiet answers quiet at once: no time, no state change
		{"wait wait wait start", "quiet quiet quiet ok", 150*time.Millisecond + 8*time.Second},
		// the object settles by itself on a quiet wait, then start works again
		{"start cancel wait start", "ok ok quiet ok", 150*time.Millisecond + 8*time.Second},
		// err stops the query: nothing after it runs or costs time
		{"start start wait", "ok err", 150 * time.Millisecond},
	}
	for _, c := range cases {
		res, err := e.Execute(context.Background(), strings.Fields(c.query))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(res.Outputs, " "); got != c.want || res.Device != c.device {
			t.Errorf("%s: %q in %v, want %q in %v", c.query, got, res.Device, c.want, c.device)
		}
		if strings.HasSuffix(c.want, "err") && (res.Err == nil || res.Err.Kind != model.ErrThrown) {
			t.Errorf("%s: err info %+v", c.query, res.Err)
		}
	}
	if _, err := e.Execute(context.Background(), []string{"stop"}); err == nil || err.Error() != `the model recognizer.dot has no input "stop"` {
		t.Errorf("unknown input: %v", err)
	}
	if d := e.Describe(); d.Serial != "sim-0" || d.Model != "simulator (mealy-dot)" {
		t.Errorf("describe %+v", d)
	}
	e.Close()
	if _, err := e.Execute(context.Background(), []string{"start"}); err == nil {
		t.Error("a closed simulator still answers")
	}
}

// In real time the simulator sleeps for what it charges, and gives up as
// soon as the run is cancelled.
func TestExecutorRealtimeStopsOnCancel(t *testing.T) {
	e := newRecognizer(t, true)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := e.Execute(ctx, []string{"wait"}) // would sleep 8.15 s
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}
