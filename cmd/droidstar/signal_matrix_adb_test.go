package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/droidstar/droidstar/internal/backend/adb"
	"github.com/droidstar/droidstar/internal/fake/adbd"
	"github.com/droidstar/droidstar/internal/fake/adbserver"
)

// TestSignalMatrixADB stops a matrix of two fake devices, learning in
// parallel, while each runs a batch: both batches finish within the grace
// period and are kept, both targets are stopped with their partial
// models, the run folders on both devices are removed and no harness is
// left, and the same command again resumes both from the store.
func TestSignalMatrixADB(t *testing.T) {
	t.Parallel()
	bin := build(t)
	purposeFile := "../../examples/asynctask/purpose.yaml"
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			s := adbserver.NewT(t)
			names := []string{"old", "new"}
			var devs []*adbd.Device
			var gates []*gate
			var devices []string
			for i, sdk := range []int{33, 34} {
				props := adbserver.Props("Pixel 8", strconv.Itoa(sdk-20), sdk)
				// Each device's third run request is held: the signal comes
				// while both run a batch.
				g := newGate(3)
				dev, err := s.Attach(context.Background(), adbd.Config{Props: props, Harness: gatedSimHarness(t, purposeFile, props, g)})
				if err != nil {
					t.Fatal(err)
				}
				devs, gates = append(devs, dev), append(gates, g)
				devices = append(devices, names[i]+"="+dev.Addr())
			}
			out := t.TempDir()
			db := filepath.Join(t.TempDir(), "queries.db")
			args := []string{"matrix", purposeFile, "--devices", strings.Join(devices, ","), "-P", strconv.Itoa(s.Port()),
				"-o", out, "--store", db, "--verify-final=off"}
			env := append(os.Environ(), "ANDROID_SERIAL=", "ADB_SERVER_SOCKET=")

			cmd, notice, eof, output := startWatched(t, bin, env, args...)
			for i, g := range gates {
				select {
				case <-g.held:
				case <-eof:
					cmd.Wait()
					t.Fatalf("droidstar ended before %s's third batch; stderr:\n%s", names[i], output())
				}
			}
			for i, dev := range devs {
				dirs, _ := os.ReadDir(filepath.Join(dev.Root(), adb.DefaultDir))
				if len(dirs) != 1 || !dev.Running(adb.HarnessPackage) {
					t.Errorf("%s, while a batch runs: run folders %v, harness running %v; want one folder and the harness", names[i], dirs, dev.Running(adb.HarnessPackage))
				}
			}
			if err := syscall.Kill(-cmd.Process.Pid, sig); err != nil {
				t.Fatal(err)
			}
			// The batches go on once droidstar has taken the signal in.
			select {
			case <-notice:
			case <-eof:
			}
			for _, g := range gates {
				close(g.open)
			}
			<-eof
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("droidstar exited with %v; want an exit code; stderr:\n%s", err, output())
			}
			all := output()
			name, want := "SIGINT", 130
			if sig == syscall.SIGTERM {
				name, want = "SIGTERM", 143
			}
			if ee.ExitCode() != want {
				t.Errorf("exit code %d, want %d", ee.ExitCode(), want)
			}
			pattern := `(?m)^droidstar: interrupted by ` + name + `: (\d+) quer(?:y|ies) executed and kept in the query store ` +
				regexp.QuoteMeta(db) + `; run the same command to resume`
			executed := map[string]int{}
			for _, n := range names {
				partial := filepath.Join(out, n+".partial.json")
				d := readModel(t, partial)
				executed[n] = d.Stats.Total().Executed
				note := "no hypothesis yet: the statistics are in " + partial
				if len(d.States) > 0 {
					// Counted as progress counts it: the error sink apart.
					size := fmt.Sprintf("%d states", d.Stats.States)
					if len(d.States) > d.Stats.States {
						size += " + error sink"
					}
					note = fmt.Sprintf("the last hypothesis (%s) is in %s", size, partial)
				}
				pattern += `\n  ` + n + `: stopped; ` + regexp.QuoteMeta(note)
			}
			m := regexp.MustCompile(pattern + `$`).FindStringSubmatch(all)
			if m == nil {
				t.Fatalf("stderr has no interrupted message naming the store and each target:\n%s", all)
			}
			// The held batches finished within the grace period: every
			// query the devices were asked to run was kept.
			total, _ := strconv.Atoi(m[1])
			for i, n := range names {
				if asked := gates[i].asked(); executed[n] != asked {
					t.Errorf("%s: %d queries executed and kept, but the device ran %d", n, executed[n], asked)
				}
			}
			if total != executed["old"]+executed["new"] {
				t.Errorf("the message counts %d executed queries, the partial models %v", total, executed)
			}
			if got := files(t, out); got != "new.partial.json old.partial.json" {
				t.Errorf("wrote %s", got)
			}
			for i, dev := range devs {
				if dirs, err := os.ReadDir(filepath.Join(dev.Root(), adb.DefaultDir)); err != nil || len(dirs) != 0 {
					t.Errorf("%s: the run's folder on the device is left: %v (%v)", names[i], dirs, err)
				}
				if dev.Running(adb.HarnessPackage) {
					t.Errorf("%s: the harness app still runs on the device", names[i])
				}
			}

			// The same command again resumes both targets from the store
			// (the fake devices answer alike: exit 0).
			again := exec.Command(bin, args...)
			again.Env = env
			var errb bytes.Buffer
			again.Stderr = &errb
			if err := again.Run(); err != nil {
				t.Fatalf("the same command again: %v\n%s", err, errb.String())
			}
			for _, n := range names {
				if want := fmt.Sprintf("droidstar: %s: resuming: %d answers stored in %s by earlier runs (--fresh ignores them)\n", n, executed[n], db); !strings.Contains(errb.String(), want) {
					t.Errorf("the second run does not say %q:\n%s", want, errb.String())
				}
				if tot := readModel(t, filepath.Join(out, n+".json")).Stats.Total(); tot.Stored == 0 {
					t.Errorf("%s took no answer from the store", n)
				}
			}
			if got := files(t, out); got != "matrix.json matrix.md new.dot new.json new.partial.json old.dot old.json old.partial.json" {
				t.Errorf("the same command again wrote %s", got)
			}
		})
	}
}
