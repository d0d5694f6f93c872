package modeltest

import (
	"bytes"
	"testing"

	"github.com/droidstar/droidstar/internal/model"
)

func TestRandom(t *testing.T) {
	for _, c := range []struct{ states, inputs, outputs int }{{1, 1, 1}, {7, 2, 3}, {1000, 10, 4}} {
		d, err := Random(c.states, c.inputs, c.outputs, 42)
		if err != nil {
			t.Fatal(err)
		}
		if len(d.States) != c.states || len(d.Transitions) != c.states*c.inputs {
			t.Fatalf("%+v: %d states, %d transitions", c, len(d.States), len(d.Transitions))
		}
		data, err := d.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		back, err := model.Unmarshal(data)
		if err != nil {
			t.Fatal(err)
		}
		m, _, err := back.Machine()
		if err != nil {
			t.Fatal(err)
		}
		if _, reachable := m.AccessWords(); len(reachable) != c.states {
			t.Fatalf("%+v: machine of %d states", c, len(reachable))
		}
		again, _ := Random(c.states, c.inputs, c.outputs, 42)
		if data2, _ := again.Marshal(); !bytes.Equal(data, data2) {
			t.Fatalf("%+v: the same seed gave another model", c)
		}
	}
	if _, err := Random(0, 1, 1, 1); err == nil || err.Error() != "modeltest: need at least one state, input and output (got 0, 1, 1)" {
		t.Fatalf("error %v", err)
	}
}
