package export

import (
	"strconv"
	"strings"
)

// BundleMin is the fewest source states whose edges (same kind, same
// labels, same target) are drawn as one bundle. Below it the separate
// arrows are clearer than a "from" list; from it up they run as long
// parallel curves across the picture (MediaPlayer's release and reset from
// eight states each).
const BundleMin = 4

// bundle is the edges of one kind with the same labels into one state
// from several states, drawn as one labelled arrow from a small node that
// lists the source states.
type bundle struct {
	to     int
	kind   edgeKind
	labels []string
	from   []int // machine states, in the graph's node order
}

// loop is a self-loop drawn as a line of its state's label instead of an
// arrow, whose label Graphviz would place over neighbouring edges.
type loop struct {
	kind   edgeKind
	labels []string
}

// bundleEdges rewrites g for the picture: edges of one kind with the same
// labels into one state from BundleMin states or more become one bundle
// (a self-loop among them included), and the self-loops left become lines
// of their states' labels. Every transition stays in the picture: each is
// an edge, a bundle's member or a loop line.
func (g *graph) bundleEdges() {
	type key struct {
		to     int
		kind   edgeKind
		labels string
	}
	members := map[key][]int{} // key -> indexes in g.edges
	var order []key
	for k, e := range g.edges {
		kk := key{e.to, e.kind, strings.Join(e.labels, "\n")}
		if _, seen := members[kk]; !seen {
			order = append(order, kk)
		}
		members[kk] = append(members[kk], k)
	}
	pos := make(map[int]int, len(g.nodes))
	for k, n := range g.nodes {
		pos[n.q] = k
	}
	bundled := make([]bool, len(g.edges))
	for _, kk := range order {
		list := members[kk]
		if len(list) < BundleMin {
			continue
		}
		b := bundle{to: kk.to, kind: kk.kind, labels: g.edges[list[0]].labels}
		for _, k := range list {
			bundled[k] = true
			b.from = append(b.from, g.edges[k].from)
		}
		sortByPos(b.from, pos)
		g.bundles = append(g.bundles, b)
	}
	loops := map[int][]loop{}
	var kept []mergedEdge
	for k, e := range g.edges {
		switch {
		case bundled[k]:
		case e.from == e.to:
			loops[e.from] = append(loops[e.from], loop{kind: e.kind, labels: e.labels})
		default:
			kept = append(kept, e)
		}
	}
	g.edges = kept
	for k := range g.nodes {
		g.nodes[k].loops = loops[g.nodes[k].q]
	}
}

// sortByPos sorts states by their position in the graph's node order
// (an insertion sort: a bundle has a few dozen states at most in any
// picture droidstar draws).
func sortByPos(qs []int, pos map[int]int) {
	for k := 1; k < len(qs); k++ {
		for j := k; j > 0 && pos[qs[j]] < pos[qs[j-1]]; j-- {
			qs[j], qs[j-1] = qs[j-1], qs[j]
		}
	}
}

// fromText lists a bundle's source states by name, a run of three or more
// names that differ only in consecutive trailing numbers (s6, s7, s8)
// written as a range (s6–s8), perLine names to a line.
func fromText(names []string, perLine int) []string {
	var items []string
	for k := 0; k < len(names); {
		j := k
		for j+1 < len(names) && consecutive(names[j], names[j+1]) {
			j++
		}
		if j-k >= 2 {
			items = append(items, names[k]+"–"+names[j])
		} else {
			j = k
			items = append(items, names[k])
		}
		k = j + 1
	}
	var lines []string
	for k := 0; k < len(items); k += perLine {
		end := min(k+perLine, len(items))
		line := strings.Join(items[k:end], ", ")
		if end < len(items) {
			line += ","
		}
		lines = append(lines, line)
	}
	return lines
}

// consecutive reports whether b is a's name with its trailing number one
// more (s6, s7).
func consecutive(a, b string) bool {
	pa, na, ok1 := trailingNumber(a)
	pb, nb, ok2 := trailingNumber(b)
	return ok1 && ok2 && pa == pb && nb == na+1
}

func trailingNumber(s string) (prefix string, n int, ok bool) {
	k := len(s)
	for k > 0 && s[k-1] >= '0' && s[k-1] <= '9' {
		k--
	}
	if k == len(s) || len(s)-k > 9 || (s[k] == '0' && len(s)-k > 1) {
		return "", 0, false
	}
	n, err := strconv.Atoi(s[k:])
	return s[:k], n, err == nil
}

// loopText is a self-loop as a line of its state's label: ↻ and its
// labels, marked as the edges of its kind are in node paths.
func loopText(l loop) string {
	parts := make([]string, len(l.labels))
	for k, s := range l.labels {
		parts[k] = pathText([]step{{s, l.kind}})
	}
	return "↻ " + strings.Join(parts, " · ")
}
