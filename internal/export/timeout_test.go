package export

import (
	"testing"

	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/oracle/calibrate"
)

func TestTimeoutText(t *testing.T) {
	cases := []struct {
		t    model.AutoTimeout
		want string
	}{
		{model.AutoTimeout{StartMs: 100, SettledMs: 820, CeilingMs: 1000, SlowestMs: 410, Raises: 2, Stale: 37, Late: 1},
			"auto, started at 100ms, settled at 820ms (2x the slowest callback seen, 410ms), raised 2 times, 37 quiet answers asked again under a longer one, 1 late callback"},
		{model.AutoTimeout{StartMs: 100, SettledMs: 500, CeilingMs: 500, SlowestMs: 233, Raises: 2, Stale: 5},
			"auto, started at 100ms, settled at 500ms (the ceiling, the purpose's timeouts.quiescence; 2x the slowest callback seen, 233ms), raised 2 times, 5 quiet answers asked again under a longer one, 0 late callbacks"},
		{model.AutoTimeout{StartMs: 100, SettledMs: 400, CeilingMs: 500, SlowestMs: 149, Raises: 2, Stale: 7},
			"auto, started at 100ms, settled at 400ms (each raise at least doubles it; 2x the slowest callback seen, 149ms), raised 2 times, 7 quiet answers asked again under a longer one, 0 late callbacks"},
		{model.AutoTimeout{StartMs: 100, SettledMs: 100, CeilingMs: 500, SlowestMs: 1},
			"auto, started at 100ms, settled at 100ms (the start; 2x the slowest callback seen, 1ms, is less), raised 0 times, 0 quiet answers asked again under a longer one, 0 late callbacks"},
		{model.AutoTimeout{StartMs: 50, SettledMs: 50, CeilingMs: 500},
			"auto, started at 50ms, settled at 50ms (the start: no callback was seen), raised 0 times, 0 quiet answers asked again under a longer one, 0 late callbacks"},
	}
	for _, c := range cases {
		if got := TimeoutText(&c.t); got != c.want {
			t.Errorf("TimeoutText(%+v) =\n  %s\nwant\n  %s", c.t, got, c.want)
		}
	}
	if calibrationMargin != calibrate.Margin {
		t.Errorf("the summary's margin %d is not calibrate.Margin %d", calibrationMargin, calibrate.Margin)
	}
}
