package compose

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/droidstar/droidstar/internal/backend"
	"github.com/droidstar/droidstar/internal/engine"
	"github.com/droidstar/droidstar/internal/query"
	"github.com/droidstar/droidstar/internal/store"
)

// countingExecutor runs queries on a real executor, logs each one it ran
// and, from the limit-th on, fails as a device that vanished.
type countingExecutor struct {
	backend.Executor
	limit int // 0: no limit
	mu    sync.Mutex
	ran   []string
}

var errVanished = errors.New("the device is gone")

func (c *countingExecutor) Execute(ctx context.Context, inputs []string) (query.Result, error) {
	c.mu.Lock()
	if c.limit > 0 && len(c.ran) >= c.limit {
		c.mu.Unlock()
		return query.Result{}, errVanished
	}
	c.ran = append(c.ran, strings.Join(inputs, " "))
	c.mu.Unlock()
	return c.Executor.Execute(ctx, inputs)
}

// planOn is the model file's plan with its executor replaced by c.
func planOn(t *testing.T, file string, data []byte, c *countingExecutor) *Plan {
	t.Helper()
	base, err := fromModel(ModelSource{File: file, Data: data, Bound: 2, Quiescence: time.Second}, BackendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c.Executor = base.Executors[0]
	plan, err := NewPlan(base.Job.Target, nil, nil, []backend.Executor{c})
	if err != nil {
		t.Fatal(err)
	}
	plan.keyParts, plan.Model, plan.Virtual = base.keyParts, base.Model, base.Virtual
	return plan
}

// learnWithStore runs plan over the store at path, as learn does.
func learnWithStore(t *testing.T, plan *Plan, path string) (*engine.Result, *store.Bucket, error) {
	t.Helper()
	st, notes, err := store.Open(path, store.Options{})
	if err != nil || len(notes) > 0 {
		t.Fatalf("open %s: %v %q", path, err, notes)
	}
	defer st.Close()
	b, notes, err := st.Bucket(plan.storeKey(), false, time.Now())
	if err != nil || len(notes) > 0 {
		t.Fatalf("bucket: %v %q", err, notes)
	}
	if err := plan.useStore(b); err != nil {
		t.Fatal(err)
	}
	res, err := engine.Run(context.Background(), plan.Job, engine.Options{VirtualClock: true})
	return res, b, err
}

// A run whose device vanishes half way is run again: the second run gets
// the model a run without a stop learns, and no query runs twice, by the
// executors' own logs and by the store.
func TestStoppedRunResumesWithoutRunningAQueryTwice(t *testing.T) {
	file := filepath.Join("..", "..", "examples", "asynctask", "model.dot")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	whole := &countingExecutor{}
	ref, err := engine.Run(context.Background(), planOn(t, file, data, whole).Job, engine.Options{VirtualClock: true})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "queries.db")
	const limit = 30
	first := &countingExecutor{limit: limit}
	if _, _, err := learnWithStore(t, planOn(t, file, data, first), path); !errors.Is(err, errVanished) {
		t.Fatalf("first run: %v, want the device gone", err)
	}
	if len(first.ran) != limit || limit >= len(whole.ran) {
		t.Fatalf("first run ran %d queries, want %d of the %d a whole run takes", len(first.ran), limit, len(whole.ran))
	}
	second := &countingExecutor{}
	res, _, err := learnWithStore(t, planOn(t, file, data, second), path)
	if err != nil {
		t.Fatalf("second run: %v", err)
	}
	if !reflect.DeepEqual(res.Document.States, ref.Document.States) || !reflect.DeepEqual(res.Document.Transitions, ref.Document.Transitions) {
		t.Errorf("the resumed run learned another model:\n%+v\nwant\n%+v", res.Document.Transitions, ref.Document.Transitions)
	}
	ran := map[string]int{}
	for _, q := range append(append([]string{}, first.ran...), second.ran...) {
		ran[q]++
		if ran[q] > 1 {
			t.Errorf("query %q ran twice", q)
		}
	}
	if len(first.ran)+len(second.ran) != len(whole.ran) {
		t.Errorf("the two runs ran %d+%d queries, a whole run %d", len(first.ran), len(second.ran), len(whole.ran))
	}
	st, err := store.OpenExisting(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sums, err := st.List()
	st.Close()
	if err != nil || len(sums) != 1 {
		t.Fatalf("%d fingerprints (%v)", len(sums), err)
	}
	if s := sums[0]; s.Answers != len(ran) || s.Distinct != len(ran) {
		t.Errorf("store: %d answers, %d distinct; the executors ran %d", s.Answers, s.Distinct, len(ran))
	}
	tot := res.Document.Stats.Total()
	if tot.Stored != limit || tot.Executed != len(second.ran) {
		t.Errorf("second run's statistics: %d stored, %d executed; want %d, %d", tot.Stored, tot.Executed, limit, len(second.ran))
	}
	// A third run executes nothing at all.
	third := &countingExecutor{}
	res, _, err = learnWithStore(t, planOn(t, file, data, third), path)
	if err != nil || len(third.ran) != 0 || res.Document.Stats.Total().Stored != len(ran) {
		t.Errorf("third run: %v, ran %d, stored %d", err, len(third.ran), res.Document.Stats.Total().Stored)
	}
}

// Another model file under the same name gets its own answers, and the
// store says what differs.
func TestStoreKeepsAnotherModelApart(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "asynctask", "model.dot"))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "AsyncTask.dot")
	path := filepath.Join(dir, "queries.db")
	one := &countingExecutor{}
	if _, _, err := learnWithStore(t, planOn(t, file, src, one), path); err != nil {
		t.Fatal(err)
	}
	// The same model with a comment added is another file content.
	other := append([]byte("// edited\n"), src...)
	plan := planOn(t, file, other, &countingExecutor{})
	st, _, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	b, notes, err := st.Bucket(plan.storeKey(), false, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"the query store holds " + strconv.Itoa(len(one.ran)) + " answers for AsyncTask under another fingerprint (the simulated model's content differs): they are not used"}
	if !reflect.DeepEqual(notes, want) || len(b.Prior()) != 0 {
		t.Errorf("notes %q, %d prior answers; want %q and none", notes, len(b.Prior()), want)
	}
}

// A calibrated run stores its answers under its own key (its quiets may
// have waited less than the fixed timeout), and a fixed-timeout run's key
// is what it always was, so its stored answers stay in use.
func TestAutoTimeoutHasItsOwnStoreKey(t *testing.T) {
	file := filepath.Join("..", "..", "examples", "asynctask", "model.dot")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	plan := func() *Plan {
		p, err := fromModel(ModelSource{File: file, Data: data, Bound: 2, Quiescence: time.Second, Reset: 150 * time.Millisecond, Latency: 50 * time.Millisecond}, BackendOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	fixed, auto := plan(), plan()
	if err := auto.autoTimeout(200 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	const want = "quiescence 1s, reset 150ms, latency 50ms"
	if got := fixed.storeKey().Parts[store.PartTimeouts]; got != want {
		t.Errorf("fixed timeouts part %q, want %q", got, want)
	}
	if got := auto.storeKey().Parts[store.PartTimeouts]; got != want+", quiescence auto from 200ms" {
		t.Errorf("auto timeouts part %q, want %q", got, want+", quiescence auto from 200ms")
	}
}
