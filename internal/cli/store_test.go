package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/fake/adbd"
	"github.com/droidstar/droidstar/internal/fake/adbserver"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/store"
)

// The tests of other commands run without the user's query store, so
// that they neither write to the user's cache folder nor resume one
// another's runs; the store's own tests name theirs with --store.
func TestMain(m *testing.M) {
	os.Setenv(store.Env, "off")
	os.Exit(m.Run())
}

func readModel(t *testing.T, file string) *model.Document {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := model.Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// The same learn command run again resumes from the store: the same
// model, nothing executed, and the summary and the JSON say so; --fresh
// runs everything again. The store command shows what is stored.
func TestLearnResumesFromTheStore(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "team.db")
	out1, out2, out3 := filepath.Join(dir, "1"), filepath.Join(dir, "2"), filepath.Join(dir, "3")
	for _, d := range []string{out1, out2, out3} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	learn := func(out string, extra ...string) (string, string) {
		t.Helper()
		// Without the final re-check, which runs every query a second time
		// on purpose: these tests count that a resume runs nothing twice.
		code, stdout, stderr := droidstar(t, append([]string{"learn", "--example", "asynctask", "--store", db, "-o", out, "--verify-final=off"}, extra...)...)
		if code != ExitOK {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		return stdout, stderr
	}
	stdout, stderr := learn(out1)
	if strings.Contains(stdout, "query store") || strings.Contains(stderr, "resuming") {
		t.Errorf("first run speaks of the store:\n%s%s", stdout, stderr)
	}
	first := readModel(t, filepath.Join(out1, "AsyncTask.json"))
	executed := first.Stats.Total().Executed
	stdout, stderr = learn(out2)
	if want := fmt.Sprintf("droidstar: resuming: %d answers stored in %s by earlier runs (--fresh ignores them)\n", executed, db); !strings.HasPrefix(stderr, want) {
		t.Errorf("stderr:\n%s\nwant it to start %q", stderr, want)
	}
	if want := fmt.Sprintf("\n  %d queries answered from the query store (executed by an earlier run)\n", executed); !strings.Contains(stdout, want) {
		t.Errorf("summary:\n%s\nwant %q", stdout, want)
	}
	second := readModel(t, filepath.Join(out2, "AsyncTask.json"))
	if tot := second.Stats.Total(); tot.Executed != 0 || tot.Stored != executed {
		t.Errorf("second run: %d executed, %d stored; want 0, %d", tot.Executed, tot.Stored, executed)
	}
	if !reflect.DeepEqual(first.States, second.States) || !reflect.DeepEqual(first.Transitions, second.Transitions) {
		t.Error("the resumed run learned another model")
	}
	learn(out3, "--fresh", "-q")
	if tot := readModel(t, filepath.Join(out3, "AsyncTask.json")).Stats.Total(); tot.Executed != executed || tot.Stored != 0 {
		t.Errorf("--fresh: %d executed, %d stored; want %d, 0", tot.Executed, tot.Stored, executed)
	}

	code, stdout, stderr := droidstar(t, "store", "stats", "--store", db)
	if want := regexp.MustCompile(`^store ` + regexp.QuoteMeta(db) + fmt.Sprintf(`: \d+ bytes, 1 fingerprint, %d answers \(%d distinct queries, \d+ symbols\)\n$`, 2*executed, executed)); code != ExitOK || !want.MatchString(stdout) {
		t.Errorf("stats: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = droidstar(t, "store", "list", "--store", db)
	if want := regexp.MustCompile(fmt.Sprintf(`^AsyncTask  sha256:[0-9a-f]{12}  %d answers \(%d distinct\), devices sim-0, since \S+\n    device: simulator \(mealy-dot\)\n    model: sha256:[0-9a-f]{64}\n    timeouts: quiescence 500ms, settle 100ms, post-reset 50ms\n$`, 2*executed, executed)); code != ExitOK || !want.MatchString(stdout) {
		t.Errorf("list: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = droidstar(t, "store", "export", "--store", db, "--name", "AsyncTask")
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	var rec struct {
		Name        string `json:"name"`
		Fingerprint string `json:"fingerprint"`
		store.Record
	}
	if code != ExitOK || len(lines) != 2*executed || json.Unmarshal([]byte(lines[0]), &rec) != nil ||
		rec.Name != "AsyncTask" || len(rec.Query) == 0 || len(rec.Outputs) != len(rec.Query) || rec.Device != "sim-0" {
		t.Errorf("export: exit %d, %d lines, first %+v", code, len(lines), rec)
	}
	if code, _, stderr := droidstar(t, "store", "clear", "--store", db); code != ExitUsage || stderr != "droidstar: store clear needs --name, --fingerprint or --all\n" {
		t.Errorf("clear with no selection: exit %d %q", code, stderr)
	}
	if code, _, stderr := droidstar(t, "store", "clear", "--store", db, "--name", "AsyncTask"); code != ExitOK || stderr != fmt.Sprintf("cleared %d answers (1 fingerprint) from %s\n", 2*executed, db) {
		t.Errorf("clear: exit %d %q", code, stderr)
	}
	if code, stdout, _ := droidstar(t, "store", "list", "--store", db); code != ExitOK || stdout != "" {
		t.Errorf("list after clear: exit %d %q", code, stdout)
	}
	missing := filepath.Join(dir, "none.db")
	if code, _, stderr := droidstar(t, "store", "list", "--store", missing); code != ExitFail || stderr != "droidstar: query store: stat "+missing+": no such file or directory\n" {
		t.Errorf("missing store: exit %d %q", code, stderr)
	}
}

// A learn run on a store another run holds stops before any query, saying
// why; on a damaged store it goes on with a new one beside it.
func TestLearnOnALockedOrDamagedStore(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "queries.db")
	st, _, err := store.Open(db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	code, _, stderr := droidstar(t, "learn", "--example", "asynctask", "--store", db, "-o", dir, "-q")
	st.Close()
	if want := "droidstar: query store " + db + " is in use by another droidstar run (its lock was still held after 2s): wait for that run to end, or give this run its own store with --store PATH\n"; code != ExitFail || stderr != want {
		t.Errorf("locked: exit %d\n%s\nwant\n%s", code, stderr, want)
	}
	if err := os.WriteFile(db, []byte(strings.Repeat("damaged ", 1000)), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = droidstar(t, "learn", "--example", "asynctask", "--store", db, "-o", dir, "-q")
	if want := "droidstar: query store " + db + " is damaged: not a bbolt database (file size too small 8000); it is left untouched and this run uses " + db + ".2\n"; code != ExitOK || stderr != want {
		t.Errorf("damaged: exit %d\n%s\nwant first\n%s", code, stderr, want)
	}
	if data, err := os.ReadFile(db); err != nil || string(data) != strings.Repeat("damaged ", 1000) {
		t.Errorf("the damaged store was touched (%v)", err)
	}
}

// A device that vanishes half way stops the run; the same command run
// again on a device of the same build resumes: the same model as an
// uninterrupted run, and no query executed twice (the store holds each
// query once, and the two runs' executed counts add up to it).
func TestDeviceVanishesAndTheRunResumes(t *testing.T) {
	s := adbserver.NewT(t)
	props := adbserver.Props("Pixel 8", "14", 34)
	h := simHarness(t, "asynctask")(props)
	var dev *adbd.Device
	vanish := func(ctx context.Context, run adbd.HarnessRun) (func(context.Context, io.ReadWriteCloser) bool, error) {
		serve, err := h(ctx, run)
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, conn io.ReadWriteCloser) bool {
			return serve(ctx, &countingConn{ReadWriteCloser: conn, n: 6, after: dev.Unplug})
		}, nil
	}
	var err error
	dev, err = s.Attach(context.Background(), adbd.Config{Props: props, Harness: vanish})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "queries.db")
	file := repoPath("examples", "asynctask", "purpose.yaml")
	if code, _, stderr := runEnv(t, nil, "learn", file, "-P", port(s), "-o", dir, "--store", db, "-q", "--verify-final=off"); code != ExitFail {
		t.Fatalf("first run: exit %d\n%s", code, stderr)
	}
	st, err := store.OpenExisting(db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	stopped, err := st.Count()
	st.Close()
	if err != nil || stopped == 0 {
		t.Fatalf("the stopped run stored %d answers (%v)", stopped, err)
	}

	again, err := s.Attach(context.Background(), adbd.Config{Props: props, Harness: h})
	if err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runEnv(t, nil, "learn", file, "-P", port(s), "--device", again.Addr(), "-o", dir, "--store", db, "-q", "--verify-final=off")
	if code != ExitOK {
		t.Fatalf("second run: exit %d\n%s", code, stderr)
	}
	resumed := readModel(t, filepath.Join(dir, "AsyncTask.json"))
	ref := filepath.Join(dir, "ref")
	if code, _, stderr := droidstar(t, "learn", "--example", "asynctask", "-o", ref, "-q", "--verify-final=off"); code != ExitOK {
		t.Fatalf("reference: exit %d\n%s", code, stderr)
	}
	want := readModel(t, filepath.Join(ref, "AsyncTask.json"))
	if !reflect.DeepEqual(resumed.States, want.States) || !reflect.DeepEqual(resumed.Transitions, want.Transitions) {
		t.Error("the resumed run learned another model than an uninterrupted one")
	}
	tot := resumed.Stats.Total()
	st, err = store.OpenExisting(db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sums, err := st.List()
	if err != nil || len(sums) != 1 {
		t.Fatalf("%d fingerprints (%v)", len(sums), err)
	}
	if sum := sums[0]; sum.Answers != sum.Distinct || sum.Answers != stopped+tot.Executed || tot.Stored != stopped {
		t.Errorf("store %d answers (%d distinct); first run stored %d, second executed %d and took %d from the store",
			sum.Answers, sum.Distinct, stopped, tot.Executed, tot.Stored)
	}
	if want := []string{dev.Addr(), again.Addr()}; !reflect.DeepEqual(sums[0].Devices, want) && !reflect.DeepEqual(sums[0].Devices, []string{again.Addr(), dev.Addr()}) {
		t.Errorf("devices %q, want both", sums[0].Devices)
	}
}

// --store off runs without a store, as $DROIDSTAR_STORE=off does: no file
// named off appears, and the store commands say the store is off.
func TestStoreOff(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for range 2 {
		code, _, stderr := droidstar(t, "learn", "--example", "asynctask", "--store", "off", "-o", dir, "--verify-final=off")
		if code != ExitOK || strings.Contains(stderr, "resuming") {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "off")); !os.IsNotExist(err) {
		t.Errorf("--store off made a file named off (%v)", err)
	}
	code, _, stderr := droidstar(t, "store", "list", "--store", "off")
	if want := "droidstar: the query store is off (--store off or $DROIDSTAR_STORE=off)\n"; code != ExitFail || stderr != want {
		t.Errorf("store list --store off: exit %d, stderr %q, want %q", code, stderr, want)
	}
}
