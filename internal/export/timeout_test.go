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
		{model.AutoTimeout{StartMs: 100, SettledMs: 820, CeilingMs: 1000, SlowestMs: 410, Raises: 3, Stale: 37, Late: 1, Contexts: []model.ContextTimeout{
			{Context: "+1", TimeoutMs: 200, SlowestMs: 60}, {Context: "go+2", TimeoutMs: 820, SlowestMs: 410}, {Context: "stop+1", TimeoutMs: 1000, SlowestMs: 700}}},
			"auto per wait context, started at 100ms; raised +1 to 200ms (each raise at least doubles it; 2x the slowest callback there, 60ms), " +
				"go+2 to 820ms (2x the slowest callback there, 410ms), stop+1 to 1s (the ceiling, the purpose's timeouts.quiescence; 2x the slowest callback there, 700ms); " +
				"the other contexts stayed at the start; raised 3 times, 37 quiet answers asked again under a longer one, 1 late callback"},
		{model.AutoTimeout{StartMs: 100, SettledMs: 100, CeilingMs: 500, SlowestMs: 1},
			"auto per wait context, started at 100ms; none raised: 2x the slowest callback seen, 1ms, is less than the start; raised 0 times, 0 quiet answers asked again under a longer one, 0 late callbacks"},
		{model.AutoTimeout{StartMs: 50, SettledMs: 50, CeilingMs: 500},
			"auto per wait context, started at 50ms; none raised: no callback was seen; raised 0 times, 0 quiet answers asked again under a longer one, 0 late callbacks"},
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
