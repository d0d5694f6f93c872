package diff

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/iterator"
	"gonum.org/v1/gonum/graph/path"
	"gonum.org/v1/gonum/graph/simple"
)

// maxWeightMatching returns a matching of rows to columns of maximum total
// weight, using only pairs of positive weight: match[r] is r's column or
// -1. It is the successive-shortest-path algorithm for the assignment
// problem (the Hungarian method as a min-cost flow): while the residual
// graph has a path from the source to the sink of negative cost (a free
// row, then alternately an unused pair forwards at cost -weight and a
// matched pair backwards at cost +weight, ending in a free column), augment
// along the cheapest one. Each cheapest path is found by gonum's
// Bellman-Ford (the residual costs are negative); the matching after k
// augmentations is a heaviest one of size k, and the gains shrink, so the
// first path that does not gain ends the search at a heaviest matching.
//
// Ties are broken deterministically: the residual graph lists its nodes in
// a fixed order, so the same weights always give the same matching.
func maxWeightMatching(weight [][]int64) ([]int, error) {
	rows := len(weight)
	cols := 0
	if rows > 0 {
		cols = len(weight[0])
	}
	match := make([]int, rows)
	owner := make([]int, cols) // column -> row, or -1
	for r := range match {
		match[r] = -1
	}
	for c := range owner {
		owner[c] = -1
	}
	// Node IDs: 0 the source, 1..rows the rows, then the columns, then the sink.
	source, sink := int64(0), int64(rows+cols+1)
	rowID := func(r int) int64 { return int64(1 + r) }
	colID := func(c int) int64 { return int64(1 + rows + c) }
	for round := 0; round <= rows; round++ {
		g := newResidual(rows + cols + 2)
		for r := 0; r < rows; r++ {
			if match[r] < 0 {
				g.add(source, rowID(r), 0)
			}
			for c := 0; c < cols; c++ {
				switch {
				case match[r] == c:
					g.add(colID(c), rowID(r), float64(weight[r][c]))
				case weight[r][c] > 0:
					g.add(rowID(r), colID(c), -float64(weight[r][c]))
				}
			}
		}
		for c := 0; c < cols; c++ {
			if owner[c] < 0 {
				g.add(colID(c), sink, 0)
			}
		}
		tree, ok := path.BellmanFordFrom(simple.Node(source), g)
		if !ok {
			return nil, fmt.Errorf("state matching: negative cycle in the residual graph")
		}
		nodes, cost := tree.To(sink)
		if len(nodes) == 0 || cost >= 0 {
			return match, nil
		}
		// nodes: source, r1, c1, r2, c2, ..., rk, ck, sink.
		for k := 1; k+1 < len(nodes)-1; k += 2 {
			r := int(nodes[k].ID() - 1)
			c := int(nodes[k+1].ID()) - 1 - rows
			match[r] = c
			owner[c] = r
		}
	}
	return nil, fmt.Errorf("state matching: no optimum after %d augmentations", rows+1)
}

// residual is a small weighted digraph whose adjacency lists keep the
// order edges were added in, so gonum's searches over it are deterministic
// (gonum's simple graphs iterate over maps).
type residual struct {
	n      int
	out    [][]graph.Node
	weight []float64 // n×n, NaN where there is no edge
}

func newResidual(n int) *residual {
	r := &residual{n: n, out: make([][]graph.Node, n), weight: make([]float64, n*n)}
	for k := range r.weight {
		r.weight[k] = math.NaN()
	}
	return r
}

func (r *residual) add(from, to int64, w float64) {
	r.out[from] = append(r.out[from], simple.Node(to))
	r.weight[int(from)*r.n+int(to)] = w
}

// From implements traverse.Graph.
func (r *residual) From(id int64) graph.Nodes {
	if id < 0 || int(id) >= r.n || len(r.out[id]) == 0 {
		return graph.Empty
	}
	return iterator.NewOrderedNodes(r.out[id])
}

// Edge implements traverse.Graph.
func (r *residual) Edge(uid, vid int64) graph.Edge {
	if w, ok := r.Weight(uid, vid); ok && uid != vid {
		return simple.WeightedEdge{F: simple.Node(uid), T: simple.Node(vid), W: w}
	}
	return nil
}

// Weight implements path.Weighted.
func (r *residual) Weight(xid, yid int64) (float64, bool) {
	if xid == yid {
		return 0, true
	}
	if xid < 0 || yid < 0 || int(xid) >= r.n || int(yid) >= r.n {
		return 0, false
	}
	w := r.weight[int(xid)*r.n+int(yid)]
	return w, !math.IsNaN(w)
}
