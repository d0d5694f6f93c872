package adbserver

import (
	"context"
	"errors"
	"os"

	"github.com/droidstar/droidstar/internal/fake/adbd"
)

// TB is the part of testing.TB that NewT uses; *testing.T and *testing.B
// satisfy it. Taking an interface keeps the testing package out of the
// droidstar binary.
type TB interface {
	Helper()
	Cleanup(func())
	Skipf(format string, args ...any)
	Fatalf(format string, args ...any)
	Errorf(format string, args ...any)
	Logf(format string, args ...any)
	Failed() bool
}

// RequireEnv names the environment variable that turns a missing adb from
// a skipped test into a failed one; CI sets it to 1.
const RequireEnv = "DROIDSTAR_REQUIRE_ADB"

// NewT starts a server for a test and closes it when the test ends. When
// adb is not installed the test is skipped, unless DROIDSTAR_REQUIRE_ADB=1,
// when it fails.
func NewT(t TB) *Server {
	t.Helper()
	s, err := Start(context.Background())
	if errors.Is(err, ErrNoADB) && os.Getenv(RequireEnv) != "1" {
		t.Skipf("adbserver: %v (set %s=1 to fail instead of skipping)", err, RequireEnv)
	}
	if err != nil {
		t.Fatalf("adbserver: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			// What the server saw (connects, transports going offline,
			// reconnects) explains most device-path failures.
			t.Logf("adbserver: the adb server on port %d printed:\n%s", s.Port(), s.Log())
		}
		if err := s.Close(); err != nil {
			t.Errorf("adbserver: close the adb server: %v", err)
		}
	})
	return s
}

// AttachT attaches a fake device configured by cfg, as Attach does, and
// fails the test if it cannot. (What the server printed is logged when
// the test fails, by NewT.)
func (s *Server) AttachT(t TB, cfg adbd.Config) *adbd.Device {
	t.Helper()
	d, err := s.Attach(context.Background(), cfg)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return d
}
