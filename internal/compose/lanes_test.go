package compose

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/droidstar/droidstar/internal/backend"
	"github.com/droidstar/droidstar/internal/engine"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/oracle"
	"github.com/droidstar/droidstar/internal/query"
)

// constExec answers every input with one output, as a lane of a platform.
// It waits for the other lane to start a query too, so that a batch is
// shared between the two.
type constExec struct {
	name, platform, out string
	both                *sync.WaitGroup
}

func (e *constExec) Execute(ctx context.Context, in []string) (query.Result, error) {
	e.both.Done()
	done := make(chan struct{})
	go func() { e.both.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		return query.Result{}, ctx.Err()
	}
	var r query.Result
	for range in {
		r.Outputs = append(r.Outputs, e.out)
	}
	return r, nil
}
func (e *constExec) Describe() model.DeviceInfo {
	return model.DeviceInfo{Serial: e.name, Platform: e.platform}
}
func (e *constExec) Close() error { return nil }

// Two lanes that disagree are told what they are and what it means on
// their platform: devices may run different builds, JVM lanes cannot.
func TestDisagreeingLanesAreNamedByPlatform(t *testing.T) {
	cases := []struct {
		platform, a, b, want string
	}{
		{"android", "emulator-5554", "emulator-5556", "devices disagree on x: %s answered %s, %s answered %s (all devices must run the same Android build and behave alike)"},
		{"jvm", "jvm-1", "jvm-2", "JVM lanes disagree on x: %s answered %s, %s answered %s (the lanes run the same JVM and harness, so the class answers differently from run to run: " +
			"its answers depend on timing or on state the lanes share; try longer timeouts, or --lanes 1)"},
		{"", "sim-0", "sim-1", "simulated lanes disagree on x: %s answered %s, %s answered %s (the lanes simulate the same model, so only a flaky simulation (--sim-flaky) makes them differ)"},
	}
	for _, c := range cases {
		t.Run(c.platform, func(t *testing.T) {
			in, out := mealy.MustAlphabet("x", "y"), mealy.MustAlphabet("1", "2")
			var both sync.WaitGroup
			both.Add(2)
			first := &constExec{name: c.a, platform: c.platform, out: "1", both: &both}
			second := &constExec{name: c.b, platform: c.platform, out: "2", both: &both}
			plan, err := NewPlan(engine.Target{Name: "T", Inputs: in, Outputs: out, Semantics: model.SemanticsMealy},
				nil, nil, []backend.Executor{first, second})
			if err != nil {
				t.Fatal(err)
			}
			// Two words that share the prefix x, one per lane.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			var nd *oracle.NondeterminismError
			_, err = plan.Job.MQ.Ask(ctx, []mealy.Word{in.MustWord("x", "x"), in.MustWord("x", "y")})
			errors.As(err, &nd)
			if nd == nil {
				t.Fatalf("no disagreement found (last error %v)", err)
			}
			// The scheduler picks which lane runs first.
			answer := map[string]string{c.a: "1", c.b: "2"}
			want := fmt.Sprintf(c.want, nd.BeforeDevice, answer[nd.BeforeDevice], nd.NowDevice, answer[nd.NowDevice])
			if got := nd.Error(); got != want || nd.BeforeDevice == nd.NowDevice {
				t.Fatalf("error %q\nwant  %q", got, want)
			}
		})
	}
}
