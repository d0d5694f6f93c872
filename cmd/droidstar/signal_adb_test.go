package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/droidstar/droidstar/internal/backend/adb"
	"github.com/droidstar/droidstar/internal/backend/sim"
	"github.com/droidstar/droidstar/internal/fake/adbd"
	"github.com/droidstar/droidstar/internal/fake/adbserver"
	"github.com/droidstar/droidstar/internal/fake/simharness"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/purpose"
	"github.com/droidstar/droidstar/internal/store"
)

// gate holds the harness's hold-th run request until it is opened, so
// that a signal arrives while a batch runs on the device; it counts the
// queries the harness was asked to run.
type gate struct {
	hold    int
	held    chan struct{} // closed when the hold-th run request arrives
	open    chan struct{}
	mu      sync.Mutex
	runs    int
	queries int
}

func newGate(hold int) *gate {
	return &gate{hold: hold, held: make(chan struct{}), open: make(chan struct{})}
}

// sent reads one request line on its way to the harness.
func (g *gate) sent(ctx context.Context, line []byte) error {
	var req struct {
		Op      string     `json:"op"`
		Queries [][]string `json:"queries"`
	}
	if json.Unmarshal(line, &req) != nil || req.Op != "run" {
		return nil
	}
	g.mu.Lock()
	g.runs++
	g.queries += len(req.Queries)
	holding := g.runs == g.hold
	g.mu.Unlock()
	if !holding {
		return nil
	}
	close(g.held)
	select {
	case <-g.open:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g *gate) asked() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.queries
}

// gatedConn hands the harness its requests a line at a time, through the
// gate.
type gatedConn struct {
	io.ReadWriteCloser
	ctx     context.Context
	g       *gate
	rd      *bufio.Reader
	pending []byte
}

func (c *gatedConn) Read(p []byte) (int, error) {
	if len(c.pending) == 0 {
		line, err := c.rd.ReadBytes('\n')
		if len(line) == 0 {
			return 0, err
		}
		if err := c.g.sent(c.ctx, line); err != nil {
			return 0, err
		}
		c.pending = line
	}
	n := copy(p, c.pending)
	c.pending = c.pending[n:]
	return n, nil
}

// gatedSimHarness is a fake device's harness answering from the purpose's
// sim model (on a virtual clock), its requests passing through g.
func gatedSimHarness(t *testing.T, purposeFile string, props map[string]string, g *gate) adbd.HarnessFunc {
	t.Helper()
	p, err := purpose.Load(purposeFile)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(filepath.Dir(p.File), p.Backend.Sim.Model)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	m, err := sim.ParseModel(file, data, p.Backend.Sim.Format)
	if err != nil {
		t.Fatal(err)
	}
	timing := sim.Timing{Quiescence: p.Timeouts.Quiescence, Reset: p.Timeouts.Settle + p.Timeouts.PostReset, Latency: p.Backend.Sim.Latency, DefaultLatency: p.Backend.Sim.DefaultLatency}
	h := adbserver.SimHarness(m, timing, props, simharness.PurposeCallbackNames(p))
	return func(ctx context.Context, run adbd.HarnessRun) (func(context.Context, io.ReadWriteCloser) bool, error) {
		serve, err := h(ctx, run)
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, conn io.ReadWriteCloser) bool {
			return serve(ctx, &gatedConn{ReadWriteCloser: conn, ctx: ctx, g: g, rd: bufio.NewReader(conn)})
		}, nil
	}
}

// TestSignalADB stops a run on a fake device, attached to a real adb
// server, while the device runs a batch: the batch finishes within the
// grace period and its answers are kept, the run's folder on the device is
// removed, no harness app process is left, and the same command again
// resumes from the store without running any query twice.
func TestSignalADB(t *testing.T) {
	t.Parallel()
	bin := build(t)
	purposeFile := "../../examples/asynctask/purpose.yaml"
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			s := adbserver.NewT(t)
			props := adbserver.Props("Pixel 8", "14", 34)
			// The third run request is held: the first two (batches of the
			// table fill) are answered and stored before the signal.
			g := newGate(3)
			dev, err := s.Attach(context.Background(), adbd.Config{Props: props, Harness: gatedSimHarness(t, purposeFile, props, g)})
			if err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			db := filepath.Join(t.TempDir(), "queries.db")
			args := []string{"learn", purposeFile, "-P", strconv.Itoa(s.Port()), "-o", out, "--verify-final=off"}
			// Nothing of the machine's adb setup: only the private server.
			env := append(os.Environ(), "DROIDSTAR_STORE="+db, "ANDROID_SERIAL=", "ADB_SERVER_SOCKET=")
			runDirs := filepath.Join(dev.Root(), adb.DefaultDir)

			cmd, notice, eof, output := startWatched(t, bin, env, args...)
			select {
			case <-g.held:
			case <-eof:
				cmd.Wait()
				t.Fatalf("droidstar ended before the third batch; stderr:\n%s", output())
			}
			dirs, _ := os.ReadDir(runDirs)
			if len(dirs) != 1 || !dev.Running(adb.HarnessPackage) {
				t.Errorf("while a batch runs: run folders %v, harness running %v; want one folder and the harness", dirs, dev.Running(adb.HarnessPackage))
			}
			if err := syscall.Kill(-cmd.Process.Pid, sig); err != nil {
				t.Fatal(err)
			}
			// The batch goes on once droidstar has taken the signal in.
			select {
			case <-notice:
				close(g.open)
			case <-eof:
				close(g.open)
			}
			<-eof
			err = cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("droidstar exited with %v; want an exit code; stderr:\n%s", err, output())
			}
			all := output()
			executed := checkInterrupted(t, sig, ee.ExitCode(), all, out, db)
			// The held batch finished within the grace period: every query
			// the device was asked to run was kept.
			if asked := g.asked(); executed != asked {
				t.Errorf("%d queries executed and kept, but the device ran %d", executed, asked)
			}
			if dirs, err := os.ReadDir(runDirs); err != nil || len(dirs) != 0 {
				t.Errorf("the run's folder on the device is left: %v (%v)", dirs, err)
			}
			if dev.Running(adb.HarnessPackage) {
				t.Error("the harness app still runs on the device")
			}

			// The same command again resumes: what the stopped run
			// executed is answered from the store, and nothing runs twice.
			again := exec.Command(bin, args...)
			again.Env = env
			var errb bytes.Buffer
			again.Stderr = &errb
			if err := again.Run(); err != nil {
				t.Fatalf("the same command again: %v\n%s", err, errb.String())
			}
			if want := fmt.Sprintf("droidstar: resuming: %d answers stored in %s by earlier runs (--fresh ignores them)\n", executed, db); !strings.Contains(errb.String(), want) {
				t.Errorf("the second run does not say %q:\n%s", want, errb.String())
			}
			d, err := model.ReadFile(filepath.Join(out, "AsyncTask.json"))
			if err != nil {
				t.Fatal(err)
			}
			tot := d.Stats.Total()
			st, err := store.OpenExisting(db, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			sums, err := st.List()
			if err != nil || len(sums) != 1 {
				t.Fatalf("%d fingerprints in the store (%v)", len(sums), err)
			}
			if sum := sums[0]; tot.Stored == 0 || sum.Answers != sum.Distinct || sum.Answers != executed+tot.Executed {
				t.Errorf("store: %d answers (%d distinct); the stopped run executed %d, the second executed %d and took %d from the store",
					sum.Answers, sum.Distinct, executed, tot.Executed, tot.Stored)
			}
		})
	}
}

// startWatched starts droidstar with args and env in a process group of
// its own and reads its stderr as it comes: notice closes at the stop
// notice (the run has stopped dispatching), eof at the end of stderr, and
// output is what it said so far.
func startWatched(t *testing.T, bin string, env []string, args ...string) (cmd *exec.Cmd, notice, eof chan struct{}, output func() string) {
	t.Helper()
	cmd = exec.Command(bin, args...)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var said []string
	notice, eof = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(eof)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			mu.Lock()
			said = append(said, sc.Text())
			mu.Unlock()
			if strings.Contains(sc.Text(), ": no new queries; the running ones get up to ") {
				close(notice)
			}
		}
	}()
	output = func() string {
		mu.Lock()
		defer mu.Unlock()
		return strings.Join(said, "\n")
	}
	return cmd, notice, eof, output
}
