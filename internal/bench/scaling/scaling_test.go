package scaling

import (
	"bytes"
	"context"
	"flag"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/fake/adbserver"
)

// skipWithoutADB follows adbserver's rule: no adb skips, unless CI asks for
// a failure instead.
func skipWithoutADB(t *testing.T) {
	t.Helper()
	if !HaveADB() && os.Getenv(adbserver.RequireEnv) != "1" {
		t.Skipf("%v (set %s=1 to fail instead of skipping)", adbserver.ErrNoADB, adbserver.RequireEnv)
	}
}

// The scaling suite learns the example exactly over real ADB on each
// device count, and every device takes a share of the queries. The
// devices run 10× faster than real time to keep the test short, which is
// also why no speed-up is asserted: that is the benchmark's to report.
func TestScalingLearnsOnEveryDevice(t *testing.T) {
	skipWithoutADB(t)
	rows, err := RunWith(context.Background(), "sqliteopenhelper", []int{1, 2}, Options{Speed: 10, Runs: 2})
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
		if row.Runs != 2 || row.WorstSecs < row.WallSecs {
			t.Errorf("%d devices: %d runs, best %.2f s, worst %.2f s", row.Devices, row.Runs, row.WallSecs, row.WorstSecs)
		}
		if row.Executed <= 0 || row.WallSecs <= 0 || row.DeviceSecs <= 0 || row.EstimatedWallSecs <= 0 {
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

// The benchmark's settings, after -args on the go test command line.
var (
	benchExample = flag.String("example", Example, "example the scaling benchmark learns")
	benchDevices = flag.String("devices", "1,2,"+strconv.Itoa(TargetDevices), "fake device counts, one row each")
	benchRuns    = flag.Int("runs", DefaultRuns, "runs per count, interleaved; each row keeps the best")
)

// BenchmarkScaling learns the example on each device count in real time
// and prints the table with the speed-up target's verdict; the metrics are
// the speed-up at the largest count and the wall time on one device. Run it
// with -benchtime 1x (make bench-scaling): each iteration takes about a
// minute per run (-runs, DefaultRuns by default).
func BenchmarkScaling(b *testing.B) {
	if !HaveADB() {
		b.Skip(adbserver.ErrNoADB)
	}
	var counts []int
	for _, f := range strings.Split(*benchDevices, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			b.Fatalf("-devices %q: %v", *benchDevices, err)
		}
		counts = append(counts, n)
	}
	for b.Loop() {
		rows, err := RunWith(context.Background(), *benchExample, counts, Options{Runs: *benchRuns})
		if err != nil {
			b.Fatal(err)
		}
		var out bytes.Buffer
		differ, err := Report(&out, *benchExample, rows, 1)
		if err != nil {
			b.Fatal(err)
		}
		os.Stdout.Write(out.Bytes())
		if differ > 0 {
			b.Fatalf("%d learned models differ from the example's model", differ)
		}
		last := rows[len(rows)-1]
		b.ReportMetric(last.SpeedUp, "speedup@"+strconv.Itoa(last.Devices))
		b.ReportMetric(rows[0].WallSecs, "wall-s@"+strconv.Itoa(rows[0].Devices))
	}
}

// Report prints the table and the target's verdict, which needs the
// counts 1 and TargetDevices.
func TestReport(t *testing.T) {
	rows := []Row{
		{Devices: 1, WallSecs: 33, WorstSecs: 33.4, Runs: 3, EstimatedWallSecs: 32.9, SpeedUp: 1, Executed: 80, DeviceSecs: 32.9, Queries: []int{80}, Equal: true},
		{Devices: 4, WallSecs: 10, WorstSecs: 12.5, Runs: 3, EstimatedWallSecs: 9.6, SpeedUp: 3.3, Executed: 80, DeviceSecs: 32.9, Queries: []int{20, 21, 21, 18}, Equal: true},
		{Devices: 2, WallSecs: 20, WorstSecs: 20, Runs: 3, EstimatedWallSecs: 17, SpeedUp: 1.65, Executed: 81, DeviceSecs: 33, Queries: []int{40, 41}},
	}
	var out bytes.Buffer
	differ, err := Report(&out, "asynctask", rows, 1)
	if err != nil || differ != 1 {
		t.Fatalf("differ %d, err %v", differ, err)
	}
	want := `Scaling: asynctask learned over real ADB on 1, 4, 2 fake devices, their harnesses answering from its model in real time
(best of 3 runs per count, the counts taking turns; worst: the slowest run; estimated: from the device times)
  devices  wall s  worst s  estimated s  speed-up  executed  device-s  queries per device  matches model
        1    33.0     33.4         32.9     1.00×        80      32.9                  80            yes
        4    10.0     12.5          9.6     3.30×        80      32.9         20 21 21 18            yes
        2    20.0     20.0         17.0     1.65×        81      33.0               40 41             NO
target: ≥ 3× at 4 devices: met (3.30×)
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	out.Reset()
	if _, err := Report(&out, "sqliteopenhelper", rows[2:], 10); err != nil {
		t.Fatal(err)
	}
	want = `Scaling: sqliteopenhelper learned over real ADB on 2 fake devices, their harnesses answering from its model in real time
(best of 3 runs per count, the counts taking turns; worst: the slowest run; estimated: from the device times)
(the devices ran 10× faster than real time: these are no benchmark numbers)
  devices  wall s  worst s  estimated s  speed-up  executed  device-s  queries per device  matches model
        2    20.0     20.0         17.0     1.65×        81      33.0               40 41             NO
(speed-ups are over 2 devices, the first count)
target: ≥ 3× at 4 devices: not measured (the device counts need 1 and 4)
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

func TestRunRejectsBadSettings(t *testing.T) {
	cases := []struct {
		example string
		counts  []int
		speed   float64
		want    string
	}{
		{Example, nil, 1, "scaling: no device counts"},
		{Example, []int{1, 0}, 1, "scaling: device counts must be at least 1, got 0"},
		{Example, []int{1}, -1, "scaling: speed must be positive, got -1"},

		{"nosuch", []int{1}, 1, `scaling: no example "nosuch" (examples: `},
	}
	for _, c := range cases {
		_, err := RunWith(context.Background(), c.example, c.counts, Options{Speed: c.speed})
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s %v speed %g: error %v, want %q", c.example, c.counts, c.speed, err, c.want)
		}
	}
}

// Each count keeps its fastest run; the slowest is reported beside it,
// and a model that differs in any run marks the row.
func TestBestRun(t *testing.T) {
	a := Row{Devices: 4, WallSecs: 12, EstimatedWallSecs: 9.6, Executed: 80, Equal: true}
	b := Row{Devices: 4, WallSecs: 10, EstimatedWallSecs: 9.5, Executed: 81, Equal: true}
	c := Row{Devices: 4, WallSecs: 30, EstimatedWallSecs: 9.7, Executed: 82, Equal: false}
	var got Row
	for k, r := range []Row{a, b, c} {
		got = best(got, r, k == 0)
	}
	want := Row{Devices: 4, WallSecs: 10, WorstSecs: 30, Runs: 3, EstimatedWallSecs: 9.5, Executed: 81, Equal: false}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}
