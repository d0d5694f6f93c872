package bench

import (
	"context"
	"os"
	"testing"

	"github.com/droidstar/droidstar/internal/adb/adbtest"
)

// skipWithoutADB follows adbtest's rule: no adb skips, unless CI asks for
// a failure instead.
func skipWithoutADB(t *testing.T) {
	t.Helper()
	if !HaveADB() && os.Getenv(adbtest.RequireEnv) != "1" {
		t.Skipf("%v (set %s=1 to fail instead of skipping)", adbtest.ErrNoADB, adbtest.RequireEnv)
	}
}

// The scaling suite learns the example exactly over real ADB on each
// device count, and every device takes a share of the queries. The
// devices run 10× faster than real time to keep the test short, which is
// also why no speed-up is asserted: that is the benchmark's to report.
func TestScalingLearnsOnEveryDevice(t *testing.T) {
	skipWithoutADB(t)
	rows, err := RunScalingWith(context.Background(), "sqliteopenhelper", []int{1, 2}, ScalingOptions{Speed: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	for i, row := range rows {
		if want := []int{1, 2}[i]; row.Devices != want {
			t.Errorf("row %d: %d devices, want %d", i, row.Devices, want)
		}
		if !row.Equal {
			t.Errorf("%d devices: the learned typestate differs from the model", row.Devices)
		}
		if row.Executed <= 0 || row.WallSecs <= 0 || row.DeviceSecs <= 0 {
			t.Errorf("%d devices: executed %d, wall %.2f s, device %.2f s; want all positive", row.Devices, row.Executed, row.WallSecs, row.DeviceSecs)
		}
		if len(row.Queries) != row.Devices {
			t.Fatalf("%d devices: queries per device %v", row.Devices, row.Queries)
		}
		sum := 0
		for k, q := range row.Queries {
			if q <= 0 {
				t.Errorf("%d devices: device %d ran no queries (%v)", row.Devices, k+1, row.Queries)
			}
			sum += q
		}
		if sum != row.Executed {
			t.Errorf("%d devices: the devices ran %d queries, executed %d", row.Devices, sum, row.Executed)
		}
		t.Logf("%d devices: wall %.2f s, speed-up %.2f, executed %d, device %.2f s, per device %v",
			row.Devices, row.WallSecs, row.SpeedUp, row.Executed, row.DeviceSecs, row.Queries)
	}
	if rows[0].SpeedUp != 1 {
		t.Errorf("the first row's speed-up is %v, want exactly 1", rows[0].SpeedUp)
	}
}

func TestScalingRejectsBadCounts(t *testing.T) {
	for _, counts := range [][]int{nil, {1, 0}} {
		if _, err := RunScaling(context.Background(), ScalingExample, counts); err == nil {
			t.Errorf("counts %v: no error", counts)
		}
	}
}
