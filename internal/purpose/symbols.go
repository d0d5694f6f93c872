package purpose

import (
	"sort"
	"strconv"

	"github.com/goccy/go-yaml/ast"
)

// symDef is a place where a symbol or callback name is defined, kept to
// report duplicates at the later definition and point to the earlier one.
type symDef struct {
	name  string
	pos   Pos
	path  string
	owner int // callback index for callback names, -1 for callins
	self  bool
}

// symbolItem reads a list item that is either a bare symbol or a map with a
// symbol key; it returns the symbol's value for positions and messages.
func (d *decoder) symbolItem(item value, keys []string, what string) (sym string, symVal value, m *mapping, ok bool) {
	if !item.ok {
		return "", item, nil, false
	}
	switch item.node.(type) {
	case *ast.StringNode, *ast.LiteralNode:
		s, _ := stringValue(item.node)
		return s, item, nil, true
	case *ast.MappingNode:
		m = d.mapping(item, keys)
		f := d.req(m, "symbol")
		if f == nil {
			return "", item, m, false
		}
		s, ok := d.str(f.value)
		return s, f.value, m, ok
	}
	d.errAt(item.pos, item.path, "want a %s symbol or a map with symbol, got %s", what, kindOf(item.node))
	return "", item, nil, false
}

// duplicates reports symbols defined twice among callins and callbacks
// together: input and output names share one namespace in queries, models
// and reports.
func (d *decoder) duplicates(defs []symDef) {
	sortDefs(defs)
	first := map[string]symDef{}
	for _, s := range defs {
		if prev, seen := first[s.name]; seen {
			d.errAt(s.pos, s.path, "duplicate symbol %s (first defined at %s)", strconv.Quote(s.name), prev.pos)
			continue
		}
		first[s.name] = s
	}
}

func sortDefs(defs []symDef) {
	sort.SliceStable(defs, func(i, j int) bool { return defs[i].pos.before(defs[j].pos) })
}
