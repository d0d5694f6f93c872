package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/droidstar/droidstar/internal/backend/sim"
	"github.com/droidstar/droidstar/internal/fake/adbd"
	"github.com/droidstar/droidstar/internal/fake/adbserver"
	"github.com/droidstar/droidstar/internal/fake/simharness"
	"github.com/droidstar/droidstar/internal/purpose"
)

// bluetoothAddressMissing is what learn and check say about the
// bluetoothadapter example when no address is given: at the line that
// declares it.
func bluetoothAddressMissing(file string) string {
	return file + ":18:3: parameters.address: needs a value (the Bluetooth address of a device paired with the phone, " +
		"such as 00:11:22:AA:BB:CC): give it with --set address=VALUE, or in the environment as DROIDSTAR_SET_ADDRESS"
}

// TestBluetoothAdapterNeedsItsAddress: the example's paired device is a
// parameter, so that DroidStar's own device's address never runs by
// accident: learn and check refuse the purpose without it, at the
// parameter's line, before any adb server is asked (-P 1 has none); a
// misspelt --set name is refused with the names the purpose declares; the
// environment gives the value as --set does.
func TestBluetoothAdapterNeedsItsAddress(t *testing.T) {
	file := repoPath("examples", "bluetoothadapter", "purpose.yaml")
	code, stdout, stderr := runEnv(t, nil, "learn", file, "-P", "1", "-o", t.TempDir())
	if want := "droidstar: " + bluetoothAddressMissing(file) + "\n"; code != ExitFail || stdout != "" || stderr != want {
		t.Errorf("learn without the address: exit %d, stdout %q\nstderr %s\nwant   %s", code, stdout, stderr, want)
	}
	code, stdout, stderr = runEnv(t, nil, "check", file)
	if want := bluetoothAddressMissing(file) + "\ndroidstar: 1 of 1 purpose files have errors\n"; code != ExitFail || stdout != "" || stderr != want {
		t.Errorf("check without the address: exit %d, stdout %q\nstderr %s\nwant   %s", code, stdout, stderr, want)
	}
	code, _, stderr = runEnv(t, nil, "learn", file, "--set", "adress=00:00:5E:00:53:01", "-P", "1", "-o", t.TempDir())
	if want := "droidstar: --set adress: " + file + " declares no parameter adress (its parameters: address)\n"; code != ExitUsage || stderr != want {
		t.Errorf("learn with a misspelt name: exit %d\nstderr %s\nwant   %s", code, stderr, want)
	}
	code, _, stderr = runEnv(t, nil, "check", file, "--set", "adress=00:00:5E:00:53:01")
	if want := bluetoothAddressMissing(file) + "\ndroidstar: --set adress: none of the purposes given declares a parameter adress (they declare: address)\n"; code != ExitUsage || stderr != want {
		t.Errorf("check with a misspelt name: exit %d\nstderr %s\nwant   %s", code, stderr, want)
	}
	code, _, stderr = runEnv(t, nil, "learn", file, "--set", "address", "-o", t.TempDir())
	if want := "droidstar: invalid argument \"address\" for \"--set\" flag: want NAME=VALUE, such as address=00:11:22:AA:BB:CC\n"; code != ExitUsage || !strings.HasPrefix(stderr, want) {
		t.Errorf("--set without a value: exit %d\nstderr %s\nwant   %s", code, stderr, want)
	}
	code, _, stderr = runEnv(t, nil, "learn", "--example", "asynctask", "--set", "address=x", "-o", t.TempDir())
	if want := "droidstar: --set address: examples/asynctask/purpose.yaml declares no parameter address (it declares none)\n"; code != ExitUsage || stderr != want {
		t.Errorf("an example without parameters: exit %d\nstderr %s\nwant   %s", code, stderr, want)
	}
	env := map[string]string{"DROIDSTAR_SET_ADDRESS": "00:00:5E:00:53:01"}
	code, stdout, stderr = runEnv(t, env, "check", file)
	if want := file + ": ok: BluetoothAdapter, 3 callins, 3 callbacks, bound 2, backends adb (resolved on the device when learning starts)\n"; code != ExitOK || stdout != want || stderr != "" {
		t.Errorf("check with DROIDSTAR_SET_ADDRESS: exit %d, stderr %s\nstdout %s\nwant   %s", code, stderr, stdout, want)
	}
}

// TestBluetoothAdapterLearnsWithItsAddress learns the bluetoothadapter
// example through the real adb server on a fake phone whose harness
// answers from a stand-in model, and reads what droidstar sent the
// harness: the address given with --set is the connect callin's argument,
// no {param} literal reaches the harness, and the model records the value.
// The example is copied beside a stand-in for its adapter jar (make builds
// the real one with dx; the simulated harness loads no jar).
func TestBluetoothAdapterLearnsWithItsAddress(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(repoPath("examples", "bluetoothadapter", "purpose.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "purpose.yaml")
	writeFile(t, file, data)
	writeFile(t, filepath.Join(dir, "adapter", "bluetoothadapter-adapter.jar"), []byte("a stand-in for the adapter jar"))

	p, err := purpose.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	modelFile := repoPath("testdata", "purposes", "adb", "bluetoothadapter.dot")
	modelData, err := os.ReadFile(modelFile)
	if err != nil {
		t.Fatal(err)
	}
	m, err := sim.ParseModel(modelFile, modelData, "auto")
	if err != nil {
		t.Fatal(err)
	}
	timing := sim.Timing{Quiescence: p.Timeouts.Quiescence, Reset: p.Timeouts.Settle + p.Timeouts.PostReset, DefaultLatency: purpose.DefaultLatency}
	var sent lockedBuffer
	props := adbserver.Props("Pixel 8", "14", 34)
	serve := adbserver.SimHarness(m, timing, props, simharness.PurposeCallbackNames(p))
	recorded := func(ctx context.Context, run adbd.HarnessRun) (func(context.Context, io.ReadWriteCloser) bool, error) {
		h, err := serve(ctx, run)
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, conn io.ReadWriteCloser) bool { return h(ctx, recordingConn{conn, &sent}) }, nil
	}
	s := adbserver.NewT(t)
	s.AttachT(t, adbd.Config{Props: props, Harness: recorded})

	const address = "00:00:5E:00:53:01"
	out := t.TempDir()
	code, _, stderr := runEnv(t, nil, "learn", file, "--set", "address="+address, "-P", port(s), "-o", out, "-q", "--store", "off")
	if code != ExitOK {
		t.Fatalf("learn --set address=%s: exit %d\n%s", address, code, stderr)
	}
	request := sent.String()
	if !strings.Contains(request, `"args":[{"target":true},"`+address+`","00001101-0000-1000-8000-00805F9B34FB"]`) || strings.Contains(request, `"param"`) {
		t.Errorf("the harness was not sent connect's address as its argument:\n%s", request)
	}
	doc, err := os.ReadFile(filepath.Join(out, "BluetoothAdapter.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Purpose struct {
			Parameters map[string]string `json:"parameters"`
		} `json:"purpose"`
	}
	if err := json.Unmarshal(doc, &got); err != nil {
		t.Fatal(err)
	}
	if got.Purpose.Parameters["address"] != address || len(got.Purpose.Parameters) != 1 {
		t.Errorf("the model records parameters %v, want address %s", got.Purpose.Parameters, address)
	}
}

func writeFile(t *testing.T, name string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// recordingConn keeps what droidstar writes to the harness.
type recordingConn struct {
	io.ReadWriteCloser
	sent *lockedBuffer
}

func (c recordingConn) Read(p []byte) (int, error) {
	n, err := c.ReadWriteCloser.Read(p)
	c.sent.Write(p[:n])
	return n, err
}

// lockedBuffer is a buffer the harness goroutines and the test share.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestParameterValuesKeepTheirOwnAnswers: the query store keys a run's
// answers on its parameters' values, so that a run with another value
// (another paired device) does not resume from the first one's answers,
// and a run with the first value again does.
func TestParameterValuesKeepTheirOwnAnswers(t *testing.T) {
	data, err := os.ReadFile(repoPath("testdata", "matrix", "purpose.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	model, err := filepath.Abs(repoPath("testdata", "matrix", "api23.dot"))
	if err != nil {
		t.Fatal(err)
	}
	// The sim backend reads no target: the value changes no answer, only
	// the key the answers are stored under.
	text := strings.Replace(string(data), "model: api23.dot", "model: "+model, 1) +
		"parameters:\n  label: what tells the runs apart\ntarget:\n  new: [{param: label}]\n"
	file := filepath.Join(t.TempDir(), "purpose.yaml")
	writeFile(t, file, []byte(text))
	// Without a value, matrix stops before its first target.
	out := t.TempDir()
	line := strings.Count(text[:strings.Index(text, "  label:")], "\n") + 1
	code, _, stderr := runEnv(t, nil, "matrix", file, "-o", out, "--store", "off")
	want := fmt.Sprintf("droidstar: %s:%d:3: parameters.label: needs a value (what tells the runs apart): give it with --set label=VALUE, or in the environment as DROIDSTAR_SET_LABEL\n", file, line)
	if entries, _ := os.ReadDir(out); code != ExitFail || stderr != want || len(entries) != 0 {
		t.Errorf("matrix without the value: exit %d, wrote %d files\nstderr %s\nwant   %s", code, len(entries), stderr, want)
	}
	store := filepath.Join(t.TempDir(), "queries.db")
	learn := func(label string) string {
		t.Helper()
		code, _, stderr := runEnv(t, nil, "learn", file, "--set", "label="+label, "--store", store, "-o", t.TempDir(), "--seed", "1")
		if code != ExitOK {
			t.Fatalf("label %s: exit %d\n%s", label, code, stderr)
		}
		return stderr
	}
	if got := learn("a"); strings.Contains(got, "resuming") {
		t.Fatalf("the first run resumed:\n%s", got)
	}
	other := "droidstar: the query store holds 22 answers for CountDownTimer under another fingerprint (the value of the purpose's parameters differs): they are not used\n"
	if got := learn("b"); !strings.HasPrefix(got, other) || strings.Contains(got, "resuming") {
		t.Errorf("another value:\n%s\nwant it to start with\n%s", got, other)
	}
	resumed := "droidstar: resuming: 22 answers stored in " + store + " by earlier runs (--fresh ignores them)\n"
	if got := learn("a"); !strings.HasPrefix(got, other+resumed) {
		t.Errorf("the first value again:\n%s\nwant it to start with\n%s", got, other+resumed)
	}
}
