package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/adb/adbtest"
	"github.com/droidstar/droidstar/internal/bench"
)

// bench --only scaling prints its table and the target line, and exits 0
// when every learned model matches. The devices run 10× faster than real
// time to keep the test short; the numbers are not checked.
func TestBenchScaling(t *testing.T) {
	if !bench.HaveADB() && os.Getenv(adbtest.RequireEnv) != "1" {
		t.Skipf("%v (set %s=1 to fail instead of skipping)", adbtest.ErrNoADB, adbtest.RequireEnv)
	}
	code, stdout, stderr := run(t, "bench", "--only", "scaling", "--scaling-devices", "1,2",
		"--scaling-example", "sqliteopenhelper", "--scaling-speed", "10")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"Scaling: sqliteopenhelper learned over real ADB on 1, 2 fake devices",
		"  devices  wall s  speed-up  executed  device-s  queries per device  matches model\n",
		"1.00×",
		"target: ≥ 3× at 4 devices: not measured (--scaling-devices needs 1 and 4)\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, " NO\n") {
		t.Errorf("a learned model differs:\n%s", stdout)
	}
}

// Without adb the default run skips the scaling suite and says why, while
// asking for it alone is an error.
func TestBenchScalingWithoutADB(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	code, stdout, stderr := run(t, "bench", "--only", "examples,scaling")
	want := "droidstar: the scaling suite: " + adbtest.ErrNoADB.Error() + "\n"
	if code != ExitFail || stderr != want {
		t.Errorf("--only scaling: exit %d, stderr %q, want %q", code, stderr, want)
	}
	if strings.Contains(stdout, "Scaling:") {
		t.Errorf("--only scaling printed a table header without adb:\n%s", stdout)
	}
	code, stdout, stderr = run(t, "bench")
	if code != ExitOK || !strings.HasSuffix(stdout, "\nscaling: skipped, adb is not on PATH (apt-get install adb)\n\n") {
		t.Errorf("default bench without adb: exit %d\n%s%s", code, stdout, stderr)
	}
}

func TestBenchScalingUsage(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--scaling-devices", "1,0"}, "droidstar: --scaling-devices: device counts must be at least 1, got 0\n"},
		{[]string{"--scaling-example", "nosuch"}, "droidstar: --scaling-example: no example \"nosuch\" (examples: "},
		{[]string{"--scaling-speed", "0"}, "droidstar: --scaling-speed must be positive, got 0\n"},
	}
	for _, c := range cases {
		code, stdout, stderr := run(t, append([]string{"bench", "--only", "scaling"}, c.args...)...)
		if code != ExitUsage || stdout != "" || !strings.HasPrefix(stderr, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q, want %q", c.args, code, stdout, stderr, c.want)
		}
	}
}
