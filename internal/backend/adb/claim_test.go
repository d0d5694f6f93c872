package adb

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/droidstar/droidstar/internal/adbclient"
	"github.com/droidstar/droidstar/internal/fake/adbd"
	"github.com/droidstar/droidstar/internal/fake/adbserver"
)

// claimDevice is one fake device reached through the real adb server.
func claimDevice(t *testing.T) *adbclient.Device {
	t.Helper()
	s := adbserver.NewT(t)
	d := s.AttachT(t, adbd.Config{})
	return adbclient.New(adbclient.Config{Host: "127.0.0.1", Port: s.Port(), Env: s.Env()}).Device(d.Addr())
}

// at is a claimer of host h, process pid, whose clock reads now and which
// knows the processes in alive to live.
func at(h string, pid int, now time.Time, alive ...int) claimer {
	return claimer{host: h, pid: pid, now: func() time.Time { return now },
		alive: func(p int) bool {
			for _, a := range alive {
				if a == p {
					return true
				}
			}
			return false
		}}
}

func TestClaimRefusesASecondRunUntilReleased(t *testing.T) {
	dev := claimDevice(t)
	ctx := context.Background()
	t0 := time.Date(2026, 11, 29, 9, 0, 0, 0, time.Local)
	first, err := at("ci-7", 100, t0, 100).acquire(ctx, dev, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Another process on the same host while the first lives, and one on
	// another host: both refused, naming the first.
	for _, cl := range []claimer{at("ci-7", 200, t0.Add(time.Minute), 100, 200), at("laptop", 300, t0.Add(time.Minute))} {
		_, err := cl.acquire(ctx, dev, nil)
		var busy *BusyError
		if !errors.As(err, &busy) {
			t.Fatalf("%s: second claim: %v, want a *BusyError", cl.host, err)
		}
		want := "device " + dev.Serial() + " is in use by another droidstar run (run " + first.mine.Run +
			", pid 100 on host ci-7, since 09:00:00, alive 1m0s ago): wait for it to end, or, if that run is gone, remove its claim with `adb -s " +
			dev.Serial() + " shell rm -r /data/local/tmp/droidstar-claim` (a claim not refreshed for 2m0s is taken over by itself)"
		if err.Error() != want {
			t.Errorf("%s: got\n%s\nwant\n%s", cl.host, err, want)
		}
	}
	first.release()
	first.release() // a second release does nothing
	next, err := at("laptop", 300, t0.Add(time.Minute)).acquire(ctx, dev, nil)
	if err != nil {
		t.Fatalf("after the release: %v", err)
	}
	if got, ok, err := readClaim(ctx, dev); err != nil || !ok || got.Run != next.mine.Run || got.Host != "laptop" || got.PID != 300 {
		t.Errorf("claim on the device: %+v %v %v", got, ok, err)
	}
	next.release()
	if _, ok, err := readClaim(ctx, dev); ok || err != nil {
		t.Errorf("released claim still there (%v)", err)
	}
}

func TestStaleClaimsAreTakenOverWithANote(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 9, 0, 0, 0, time.Local)
	for _, tc := range []struct {
		name  string
		taker claimer
		note  string // "": refused
	}{
		{"owner's process gone", at("ci-7", 200, t0.Add(time.Second)), "whose process 100 on this host is gone"},
		{"owner's process lives", at("ci-7", 200, t0.Add(time.Second), 100), ""},
		{"another host, refreshed lately", at("laptop", 300, t0.Add(ClaimStale)), ""},
		{"another host, silent too long", at("laptop", 300, t0.Add(ClaimStale+time.Second)), "which pid 100 on host ci-7 last refreshed 2m1s ago"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dev := claimDevice(t)
			ctx := context.Background()
			// The owner claims and vanishes without releasing.
			owner, err := at("ci-7", 100, t0, 100).acquire(ctx, dev, nil)
			if err != nil {
				t.Fatal(err)
			}
			close(owner.stop)
			<-owner.done
			var log strings.Builder
			c, err := tc.taker.acquire(ctx, dev, &log)
			if tc.note == "" {
				if !errors.As(err, new(*BusyError)) || log.Len() != 0 {
					t.Fatalf("got %v, log %q; want refused", err, log.String())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer c.release()
			want := "droidstar: device " + dev.Serial() + ": taking over the claim of run " + owner.mine.Run + ", " + tc.note + "\n"
			if log.String() != want {
				t.Errorf("log %q, want %q", log.String(), want)
			}
			// The owner, back, finds its claim taken and leaves it.
			if lost := owner.refresh(); !strings.Contains(lost, "run "+c.mine.Run+" (pid ") || !strings.Contains(lost, "took over this run's claim") {
				t.Errorf("owner's refresh: %q", lost)
			}
			if got, ok, _ := readClaim(ctx, dev); !ok || got.Run != c.mine.Run {
				t.Errorf("claim after the owner's refresh: %+v", got)
			}
		})
	}
}

// A refresh rewrites the claim with the time it ran, so that other hosts
// see the run alive.
func TestClaimRefreshKeepsItAlive(t *testing.T) {
	dev := claimDevice(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)
	cl := at("ci-7", 100, now, 100)
	cl.now = func() time.Time { return now }
	c, err := cl.acquire(ctx, dev, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.release()
	now = now.Add(ClaimStale)
	if lost := c.refresh(); lost != "" {
		t.Fatal(lost)
	}
	got, _, err := readClaim(ctx, dev)
	if err != nil || !got.Refreshed.Equal(now) || !got.Started.Equal(now.Add(-ClaimStale)) {
		t.Errorf("after a refresh: %+v (%v), want refreshed %s", got, err, now)
	}
	// So another host does not take it over even after ClaimStale more.
	if _, err := at("laptop", 300, now.Add(ClaimStale)).acquire(ctx, dev, nil); !errors.As(err, new(*BusyError)) {
		t.Errorf("refreshed claim: %v", err)
	}
}

func TestUnclaimed(t *testing.T) {
	dev := claimDevice(t)
	ctx := context.Background()
	if err := Unclaimed(ctx, dev); err != nil {
		t.Fatalf("no claim: %v", err)
	}
	c, err := defaultClaimer().acquire(ctx, dev, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := Unclaimed(ctx, dev); !errors.As(err, new(*BusyError)) {
		t.Errorf("claimed by this process: %v", err)
	}
	c.release()
	if err := Unclaimed(ctx, dev); err != nil {
		t.Errorf("released: %v", err)
	}
}

func TestParseClaim(t *testing.T) {
	c := Claim{Run: "abc", Host: "h", PID: 7, Started: time.Unix(100, 0), Refreshed: time.Unix(200, 0)}
	got, ok := parseClaim(c.encode())
	if !ok || got.Run != "abc" || got.Host != "h" || got.PID != 7 || !got.Started.Equal(c.Started) || !got.Refreshed.Equal(c.Refreshed) {
		t.Errorf("round trip: %+v %v", got, ok)
	}
	if _, ok := parseClaim("host=h\npid=7\n"); ok {
		t.Error("a claim without its run read as whole")
	}
}
