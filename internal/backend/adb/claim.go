package adb

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/droidstar/droidstar/internal/adbclient"
)

// A device runs one harness at a time: a second `am instrument` replaces
// the first, a second run's staging would remove the first's files, and
// the harness removes the private folders of runs other than its own
// (harness-apk/PROTOCOL.md, workspace). So a run claims the device before
// it touches it, and a second run is refused while the first lives.
//
// The claim is a folder the adb shell creates with mkdir, which either
// creates it or fails because it exists: two hosts racing for a device
// cannot both win. It lies outside DefaultDir, so --device-dir cannot move
// it, and it holds one file naming its owner, rewritten every
// ClaimRefresh so that a claim whose owner died without releasing it
// (killed, the host powered off) can be told from a live one.
const (
	// ClaimDir is the claim's folder on the device.
	ClaimDir = "/data/local/tmp/droidstar-claim"
	// ClaimRefresh is how often a run rewrites its claim.
	ClaimRefresh = 30 * time.Second
	// ClaimStale is how long a claim may go without being rewritten
	// before another run takes it over: four refreshes missed.
	ClaimStale = 4 * ClaimRefresh
)

const claimOwnerFile = ClaimDir + "/owner"

// Claim says which droidstar run holds a device.
type Claim struct {
	// Run identifies the run (the claim's own random id).
	Run string
	// Host and PID are the droidstar process's host name and process id.
	Host string
	PID  int
	// Started is when the run claimed the device, Refreshed when it last
	// said it was alive (the owner's clock).
	Started, Refreshed time.Time
}

func (c Claim) encode() string {
	return fmt.Sprintf("run=%s\nhost=%s\npid=%d\nstarted=%s\nrefreshed=%s\n",
		c.Run, c.Host, c.PID, c.Started.UTC().Format(time.RFC3339), c.Refreshed.UTC().Format(time.RFC3339))
}

// parseClaim reads an owner file; one that names no run is not a claim
// anyone wrote in full.
func parseClaim(text string) (Claim, bool) {
	var c Claim
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if !ok {
			continue
		}
		switch k {
		case "run":
			c.Run = v
		case "host":
			c.Host = v
		case "pid":
			c.PID, _ = strconv.Atoi(v)
		case "started":
			c.Started, _ = time.Parse(time.RFC3339, v)
		case "refreshed":
			c.Refreshed, _ = time.Parse(time.RFC3339, v)
		}
	}
	return c, c.Run != ""
}

// BusyError is a device another live droidstar run holds.
type BusyError struct {
	Serial string
	Holder Claim
	// Age is how long ago the holder last refreshed its claim.
	Age time.Duration
}

func (e *BusyError) Error() string {
	h := e.Holder
	return fmt.Sprintf("device %s is in use by another droidstar run (run %s, pid %d on host %s, since %s, alive %s ago): "+
		"wait for it to end, or, if that run is gone, remove its claim with `adb -s %s shell rm -r %s` "+
		"(a claim not refreshed for %s is taken over by itself)",
		e.Serial, h.Run, h.PID, h.Host, h.Started.Local().Format("15:04:05"), e.Age.Round(time.Second),
		e.Serial, ClaimDir, ClaimStale)
}

// claim is this run's hold on one device.
type claim struct {
	dev  *adbclient.Device
	mine Claim
	log  io.Writer
	now  func() time.Time

	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// claimer is what a run needs to claim devices: who it is and its clock.
type claimer struct {
	host  string
	pid   int
	now   func() time.Time
	alive func(pid int) bool
}

func defaultClaimer() claimer {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown"
	}
	return claimer{host: host, pid: os.Getpid(), now: time.Now, alive: processAlive}
}

// acquire claims dev for this run, taking over a stale claim with a note
// on log, and keeps the claim fresh until release.
func (cl claimer) acquire(ctx context.Context, dev *adbclient.Device, log io.Writer) (*claim, error) {
	now := cl.now()
	c := &claim{dev: dev, log: log, now: cl.now, stop: make(chan struct{}), done: make(chan struct{}),
		mine: Claim{Run: randomID(), Host: cl.host, PID: cl.pid, Started: now, Refreshed: now}}
	// Two attempts: the second after taking over a stale claim.
	for attempt := 0; ; attempt++ {
		r, err := dev.Shell(ctx, "mkdir "+adbclient.Quote(ClaimDir))
		if err != nil {
			return nil, fmt.Errorf("device %s: claim the device: %w", dev.Serial(), err)
		}
		if r.Exit == 0 {
			break
		}
		msg := strings.TrimSpace(r.Stderr + r.Stdout)
		// toybox's mkdir says perror_msg("'%s'", dir) (toys/posix/mkdir.c),
		// strerror(EEXIST) being "File exists"; the older toolbox mkdir
		// said "mkdir failed for DIR, File exists".
		if !strings.Contains(msg, "File exists") {
			return nil, fmt.Errorf("device %s: claim the device (mkdir %s): %s", dev.Serial(), ClaimDir, msg)
		}
		holder, ok, err := readClaim(ctx, dev)
		if err != nil {
			return nil, err
		}
		if !ok {
			// Being written this moment, or by a run that died between
			// creating the folder and writing its owner: nothing tells
			// which, so the user decides.
			return nil, fmt.Errorf("device %s is being claimed by another droidstar run that has not said who it is yet: try again, or, if no other run is starting, remove the claim with `adb -s %s shell rm -r %s`",
				dev.Serial(), dev.Serial(), ClaimDir)
		}
		why := cl.stale(holder, now)
		if why == "" || attempt > 0 {
			return nil, &BusyError{Serial: dev.Serial(), Holder: holder, Age: now.Sub(holder.Refreshed)}
		}
		if err := shellOK(ctx, dev, "rm -rf "+adbclient.Quote(ClaimDir)); err != nil {
			return nil, fmt.Errorf("device %s: remove the stale claim of run %s: %w", dev.Serial(), holder.Run, err)
		}
		if log != nil {
			fmt.Fprintf(log, "droidstar: device %s: taking over the claim of run %s, %s\n", dev.Serial(), holder.Run, why)
		}
	}
	if err := c.write(ctx); err != nil {
		dev.Shell(context.WithoutCancel(ctx), "rm -rf "+adbclient.Quote(ClaimDir))
		return nil, fmt.Errorf("device %s: write the claim: %w", dev.Serial(), err)
	}
	go c.keepFresh()
	return c, nil
}

// stale says why holder's claim no longer stands, or "" while its run may
// live: its process is gone (known only on the same host), or it has not
// refreshed the claim for ClaimStale.
func (cl claimer) stale(holder Claim, now time.Time) string {
	if holder.Host == cl.host && holder.PID > 0 && holder.PID != cl.pid && !cl.alive(holder.PID) {
		return fmt.Sprintf("whose process %d on this host is gone", holder.PID)
	}
	if age := now.Sub(holder.Refreshed); age > ClaimStale {
		return fmt.Sprintf("which pid %d on host %s last refreshed %s ago", holder.PID, holder.Host, age.Round(time.Second))
	}
	return ""
}

// readClaim reads the device's claim; ok is false when there is none, or
// its owner file is not written in full.
func readClaim(ctx context.Context, dev *adbclient.Device) (Claim, bool, error) {
	r, err := dev.Shell(ctx, "cat "+adbclient.Quote(claimOwnerFile))
	if err != nil {
		return Claim{}, false, fmt.Errorf("device %s: read the claim: %w", dev.Serial(), err)
	}
	if r.Exit != 0 {
		return Claim{}, false, nil
	}
	c, ok := parseClaim(r.Stdout)
	return c, ok, nil
}

// Unclaimed fails with a *BusyError while a live run holds dev: what a
// command that replaces or removes the harness app checks first, so as not
// to cut that run short.
func Unclaimed(ctx context.Context, dev *adbclient.Device) error {
	holder, ok, err := readClaim(ctx, dev)
	if err != nil || !ok {
		return err
	}
	cl := defaultClaimer()
	now := cl.now()
	if cl.stale(holder, now) != "" {
		return nil
	}
	return &BusyError{Serial: dev.Serial(), Holder: holder, Age: now.Sub(holder.Refreshed)}
}

func (c *claim) write(ctx context.Context) error {
	c.mine.Refreshed = c.now()
	return c.dev.Push(ctx, strings.NewReader(c.mine.encode()), claimOwnerFile, 0o644, c.mine.Refreshed)
}

// keepFresh rewrites the claim every ClaimRefresh until release. A claim
// another run took over (after this host stopped refreshing it, asleep or
// cut off) is left to that run, with a warning: both runs are now at risk
// and the user should know why.
func (c *claim) keepFresh() {
	defer close(c.done)
	t := time.NewTicker(ClaimRefresh)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
		}
		if lost := c.refresh(); lost != "" {
			if c.log != nil {
				fmt.Fprintf(c.log, "droidstar: device %s: %s\n", c.dev.Serial(), lost)
			}
			return
		}
	}
}

// refresh rewrites the claim if it is still this run's, else says who
// took it. A device that does not answer is left to the run's queries to
// report.
func (c *claim) refresh() (lost string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	holder, ok, err := readClaim(ctx, c.dev)
	switch {
	case err != nil:
		return ""
	case !ok:
		return "this run's claim on the device was removed; another droidstar run may now disturb this one"
	case holder.Run != c.mine.Run:
		return fmt.Sprintf("run %s (pid %d on host %s) took over this run's claim on the device; the two runs may disturb each other", holder.Run, holder.PID, holder.Host)
	}
	c.write(ctx)
	return ""
}

// release stops refreshing and removes the claim if it is still this
// run's; best effort, since the device may be gone.
func (c *claim) release() {
	if c == nil {
		return
	}
	c.once.Do(func() {
		close(c.stop)
		<-c.done
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if holder, ok, err := readClaim(ctx, c.dev); err == nil && ok && holder.Run == c.mine.Run {
			c.dev.Shell(ctx, "rm -rf "+adbclient.Quote(ClaimDir))
		}
	})
}
