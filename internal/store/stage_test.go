package store

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/oracle"
)

// devices is an oracle that answers every input with its own name and
// remembers what it ran.
type devices struct{ ran []mealy.Word }

func (d *devices) Ask(_ context.Context, qs []mealy.Word) ([]oracle.Answer, error) {
	out := make([]oracle.Answer, len(qs))
	for k, q := range qs {
		d.ran = append(d.ran, q)
		out[k] = oracle.Answer{Outputs: append(mealy.Word(nil), q...), ErrAt: -1, Device: "sim-0"}
		for j := range q {
			out[k].Steps = append(out[k].Steps, time.Duration(j+1)*1500*time.Microsecond)
		}
	}
	return out, nil
}

// storedBucket stores recs under key in a new store and opens the bucket
// again, as a later run finds it.
func storedBucket(t *testing.T, recs []Record) *Bucket {
	t.Helper()
	st, _, err := Open(filepath.Join(t.TempDir(), "queries.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	b, _, err := st.Bucket(key, false, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Append(recs); err != nil {
		t.Fatal(err)
	}
	if b, _, err = st.Bucket(key, false, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	return b
}

// A stored answer stands in for running a query, but not for a re-run that
// checks that answer: the check would compare the answer with itself.
func TestStageRunsRerunsAgain(t *testing.T) {
	b := storedBucket(t, []Record{{Query: []string{"a", "b"}, Outputs: []string{"a", "b"}, ErrAt: -1, Device: "sim-0"}})
	ab := mealy.MustAlphabet("a", "b")
	next := &devices{}
	stage, err := NewStage(next, b, ab, ab, mealy.Semantics{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	q := []mealy.Word{{0, 1}}
	if _, err := stage.Ask(context.Background(), q); err != nil || len(next.ran) != 0 {
		t.Fatalf("a stored query ran %v (%v)", next.ran, err)
	}
	if _, err := stage.Ask(oracle.AsRerun(context.Background()), q); err != nil || !reflect.DeepEqual(next.ran, q) {
		t.Fatalf("a re-run of a stored query ran %v, want %v (%v)", next.ran, q, err)
	}
}

// What each input took is stored with the answer (for `store export`; a
// resumed run answers from the store and needs no timings).
func TestStageKeepsStepTimes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "queries.db")
	ab := mealy.MustAlphabet("a", "b")
	q := []mealy.Word{{0, 1, 1}}
	run := func() (*devices, []oracle.Answer, []Record) {
		st, _, err := Open(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		b, _, err := st.Bucket(key, false, time.Unix(0, 0))
		if err != nil {
			t.Fatal(err)
		}
		next := &devices{}
		stage, err := NewStage(next, b, ab, ab, mealy.Semantics{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := stage.Ask(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		var recs []Record
		if err := st.Each(b.Fingerprint(), func(_ Summary, r Record) error { recs = append(recs, r); return nil }); err != nil {
			t.Fatal(err)
		}
		return next, got, recs
	}
	want := []time.Duration{1500 * time.Microsecond, 3 * time.Millisecond, 4500 * time.Microsecond}
	next, got, recs := run()
	if len(next.ran) != 1 || !reflect.DeepEqual(got[0].Steps, want) {
		t.Fatalf("first run: ran %v, steps %v", next.ran, got[0].Steps)
	}
	if len(recs) != 1 || !reflect.DeepEqual(recs[0].MS, []float64{1.5, 3, 4.5}) {
		t.Fatalf("stored %+v, want ms [1.5 3 4.5]", recs)
	}
	next, _, recs = run()
	if len(next.ran) != 0 || len(recs) != 1 || !reflect.DeepEqual(recs[0].MS, []float64{1.5, 3, 4.5}) {
		t.Fatalf("resumed run: ran %v, stored %+v", next.ran, recs)
	}
}

// A stored answer that later stored answers contradict (a flaky answer
// and the re-runs that outvoted it) is not trusted: the query runs again.
func TestStageRunsDisputedQueriesAgain(t *testing.T) {
	b := storedBucket(t, []Record{
		{Query: []string{"a", "b"}, Outputs: []string{"a", "a"}, ErrAt: -1, Device: "sim-0"}, // the flaky answer
		{Query: []string{"a", "b"}, Outputs: []string{"a", "b"}, ErrAt: -1, Device: "sim-0"},
		{Query: []string{"a", "b"}, Outputs: []string{"a", "b"}, ErrAt: -1, Device: "sim-0"},
		{Query: []string{"b"}, Outputs: []string{"b"}, ErrAt: -1, Device: "sim-0"},
	})
	ab := mealy.MustAlphabet("a", "b")
	next := &devices{}
	stage, err := NewStage(next, b, ab, ab, mealy.Semantics{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := stage.Ask(context.Background(), []mealy.Word{{0, 1, 0}, {1}, {0}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []mealy.Word{{0, 1, 0}}; !reflect.DeepEqual(next.ran, want) {
		t.Errorf("ran %v, want %v (only the query through the disputed a·b)", next.ran, want)
	}
	if want := (mealy.Word{0, 1, 0}); !reflect.DeepEqual(got[0].Outputs, want) {
		t.Errorf("answer %v, want the device's %v", got[0].Outputs, want)
	}
}

// quietDevices answers every wait quiet, under the timeout given, and
// every other input ok.
type quietDevices struct {
	timeout time.Duration
	ran     []mealy.Word
}

func (d *quietDevices) Ask(_ context.Context, qs []mealy.Word) ([]oracle.Answer, error) {
	out := make([]oracle.Answer, len(qs))
	for k, q := range qs {
		d.ran = append(d.ran, q)
		a := oracle.Answer{ErrAt: -1, Device: "sim-0", Quiescence: d.timeout}
		for _, in := range q {
			o, step := 0, time.Duration(0) // ok
			if in == 2 {
				o, step = 1, d.timeout // quiet
			}
			a.Outputs, a.Steps = append(a.Outputs, o), append(a.Steps, step)
		}
		out[k] = a
	}
	return out, nil
}

// quietTimeouts is a calibration whose every wait needs the same timeout.
type quietTimeouts struct {
	needed time.Duration
	raises int
}

func (q *quietTimeouts) Needed(mealy.Word) time.Duration { return q.needed }
func (q *quietTimeouts) Raises() int                     { return q.raises }

// A resumed calibrated run (--timeout auto) never reuses a stored quiet
// that waited less than its current timeout: the query runs again, as do
// the stored quiets the timeout leaves behind when it rises.
func TestStageCalibratedRerunsStaleQuiets(t *testing.T) {
	const ms = time.Millisecond
	b := storedBucket(t, []Record{
		{Query: []string{"go", "wait"}, Outputs: []string{"ok", "quiet"}, ErrAt: -1, Device: "sim-0", MS: []float64{0, 100}},
		{Query: []string{"stop", "wait"}, Outputs: []string{"ok", "quiet"}, ErrAt: -1, Device: "sim-0", MS: []float64{0, 400}},
	})
	in, out := mealy.MustAlphabet("go", "stop", mealy.Wait), mealy.MustAlphabet("ok", mealy.Quiet, mealy.Err)
	next := &quietDevices{timeout: 200 * ms}
	stage, err := NewStage(next, b, in, out, mealy.ClosureSemantics(in, out), nil)
	if err != nil {
		t.Fatal(err)
	}
	current := &quietTimeouts{needed: 200 * ms}
	if err := stage.Calibrate(current); err != nil {
		t.Fatal(err)
	}
	goWait, stopWait := in.MustWord("go", mealy.Wait), in.MustWord("stop", mealy.Wait)
	got, err := stage.Ask(context.Background(), []mealy.Word{goWait, stopWait})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(next.ran, []mealy.Word{goWait}) {
		t.Errorf("under 200ms ran %v, want only go wait (its stored quiet waited 100ms)", next.ran)
	}
	if got[0].Quiescence != 200*ms || got[1].Steps[1] != 400*ms {
		t.Errorf("the answers say they waited %v and %v, want 200ms (run now) and 400ms (stored)", got[0].Quiescence, got[1].Steps[1])
	}
	// The timeout rises past the stored 400ms: stop wait runs again too.
	current.needed, current.raises, next.timeout, next.ran = 800*ms, 1, 800*ms, nil
	if _, err := stage.Ask(context.Background(), []mealy.Word{stopWait}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(next.ran, []mealy.Word{stopWait}) {
		t.Errorf("under 800ms ran %v, want stop wait", next.ran)
	}
}

// spareDevices is devices that also runs every spare (oracle.Spares) of a
// batch, and remembers those apart.
type spareDevices struct {
	devices
	spares []mealy.Word
}

func (d *spareDevices) Ask(ctx context.Context, qs []mealy.Word) ([]oracle.Answer, error) {
	if sp, ok := oracle.SparesOf(ctx); ok && sp.Answered != nil {
		for k, w := range sp.Words {
			d.spares = append(d.spares, w)
			sp.Answered(k, oracle.Answer{Outputs: append(mealy.Word(nil), w...), ErrAt: -1, Device: "sim-0"})
		}
	}
	return d.devices.Ask(ctx, qs)
}

// A spare that an earlier run stored is answered from the store and does
// not go down; one that runs is stored like the batch's queries.
func TestStageAnswersAndStoresSpares(t *testing.T) {
	b := storedBucket(t, []Record{{Query: []string{"a", "b"}, Outputs: []string{"a", "b"}, ErrAt: -1, Device: "sim-0"}})
	ab := mealy.MustAlphabet("a", "b")
	next := &spareDevices{}
	rec := &oracle.Recorder{}
	stage, err := NewStage(next, b, ab, ab, mealy.Semantics{}, rec)
	if err != nil {
		t.Fatal(err)
	}
	answered := map[int]string{}
	spares := []mealy.Word{{0, 1}, {1, 0}}
	ctx := oracle.WithSpares(context.Background(), oracle.Spares{Words: spares, Answered: func(k int, a oracle.Answer) {
		answered[k] = ab.Format(a.Outputs)
	}})
	if _, err := stage.Ask(ctx, []mealy.Word{{1}}); err != nil {
		t.Fatal(err)
	}
	if want := map[int]string{0: "a b", 1: "b a"}; !reflect.DeepEqual(answered, want) {
		t.Errorf("spares answered %v, want %v", answered, want)
	}
	if !reflect.DeepEqual(next.spares, []mealy.Word{{1, 0}}) {
		t.Errorf("spares ran %v, want only b a", next.spares)
	}
	if l, _ := rec.Snapshot(); l.Stored != 1 {
		t.Errorf("%d answers from the store, want 1 (the spare a b)", l.Stored)
	}
	var stored []string
	if err := b.s.Each(b.Fingerprint(), func(_ Summary, r Record) error {
		stored = append(stored, strings.Join(r.Query, " "))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"a b", "b", "b a"}; !reflect.DeepEqual(stored, want) {
		t.Errorf("stored %q, want %q", stored, want)
	}
}
