package store

import (
	"context"
	"path/filepath"
	"reflect"
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
	}
	return out, nil
}

// A stored answer stands in for running a query, but not for a re-run that
// checks that answer: the check would compare the answer with itself.
func TestStageRunsRerunsAgain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "queries.db")
	st, _, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	b, _, err := st.Bucket(key, false, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Append([]Record{{Query: []string{"a", "b"}, Outputs: []string{"a", "b"}, ErrAt: -1, Device: "sim-0"}}); err != nil {
		t.Fatal(err)
	}
	if b, _, err = st.Bucket(key, false, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
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
