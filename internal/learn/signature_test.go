package learn

import "testing"

// Rows whose hashes collide stay apart: a signature is found by its ids,
// the hash only says where to look.
func TestClassesKeepCollidingRowsApart(t *testing.T) {
	tb := &table{rows: []row{
		{cells: []int32{0, 1}, hash: 7},
		{cells: []int32{1, 0}, hash: 7}, // same hash, other signature
		{cells: []int32{1, 0}, hash: 7}, // row 1's signature
		{cells: []int32{0, 0}, hash: 8}, // where row 1 went on the collision
	}}
	c := tb.classes(4)
	for _, step := range []struct {
		add  bool
		row  int32
		want int32 // find's answer before an add
	}{
		{add: true, row: 0, want: -1},
		{row: 1, want: -1},
		{add: true, row: 1, want: -1},
		{row: 2, want: 1},
		{row: 0, want: 0},
		{row: 3, want: -1},
		{add: true, row: 3, want: -1},
		{row: 3, want: 3},
		{row: 2, want: 1},
	} {
		if got := c.find(step.row); got != step.want {
			t.Fatalf("find(%d) = %d, want %d", step.row, got, step.want)
		}
		if step.add {
			c.add(step.row)
		}
	}
}

// A row's hash depends on the order of its ids.
func TestMixOrderMatters(t *testing.T) {
	if mix(mix(0, 0), 1) == mix(mix(0, 1), 0) {
		t.Fatal("cells 0,1 and 1,0 hash alike")
	}
}
