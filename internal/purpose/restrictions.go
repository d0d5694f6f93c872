package purpose

import (
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
)

// restrictions reads the restriction list. inputs is nil when the callins
// were broken, to avoid a wave of follow-on "unknown symbol" messages.
func (d *decoder) restrictions(v value, inputs []string, cbs []Callback) []Restriction {
	items, ok := d.list(v, "restrictions")
	if !ok {
		return nil
	}
	var out []Restriction
	for _, item := range items {
		if !item.ok {
			continue
		}
		if _, isMap := item.node.(*ast.MappingNode); !isMap {
			d.errAt(item.pos, item.path, "want a map such as {at_most: 1, of: [start]}, got %s", kindOf(item.node))
			continue
		}
		m := d.mapping(item, restrictionKeys)
		if m == nil {
			continue
		}
		var kinds []*field
		for _, f := range m.order {
			if f.key != "of" {
				kinds = append(kinds, f)
			}
		}
		if len(kinds) == 0 {
			if m.get("of") != nil {
				d.errAt(m.pos, join(m.path, "at_most"), "required field is missing: of only lists the symbols that at_most counts")
			} else {
				d.errAt(m.pos, m.path, "no restriction given: want one of at_most (with of), first, followed_by_wait")
			}
			continue
		}
		for _, f := range kinds[1:] {
			d.errAt(f.keyPos, f.path, "one restriction per item, but %s is also given (at %s): write two items", kinds[0].key, kinds[0].keyPos)
		}
		kind := kinds[0]
		if !kind.ok {
			continue
		}
		r := Restriction{Kind: RestrictionKind(kind.key), Pos: item.pos}
		good := len(kinds) == 1
		switch r.Kind {
		case AtMost:
			n, ok := d.integer(kind.value)
			if ok && n < 0 {
				d.errAt(kind.pos, kind.path, "must not be negative, got %d", n)
				ok = false
			}
			r.Count = n
			good = good && ok
			of := d.req(m, "of", "it lists the symbols that at_most counts")
			if of == nil {
				good = false
				break
			}
			syms, ok := d.symbolList(of.value, inputs, cbs)
			r.Symbols = syms
			good = good && ok
		default:
			if of := m.get("of"); of != nil {
				d.errAt(of.keyPos, of.path, "of belongs to at_most, not %s", kind.key)
				good = false
			}
			syms, ok := d.symbolList(kind.value, inputs, cbs)
			r.Symbols = syms
			good = good && ok
		}
		if good {
			out = append(out, r)
		}
	}
	return out
}

// symbolList reads the symbols of a restriction: callins or wait.
func (d *decoder) symbolList(v value, inputs []string, cbs []Callback) ([]string, bool) {
	items, ok := d.list(v, "symbols")
	if !ok {
		return nil, false
	}
	if len(items) == 0 {
		d.errAt(v.pos, v.path, "empty list: name at least one symbol")
		return nil, false
	}
	seen := map[string]Pos{}
	var out []string
	for _, item := range items {
		s, ok1 := d.str(item)
		if !ok1 {
			ok = false
			continue
		}
		if prev, dup := seen[s]; dup {
			d.errAt(item.pos, item.path, "duplicate symbol %s (first defined at %s)", strconv.Quote(s), prev)
			ok = false
			continue
		}
		seen[s] = item.pos
		if inputs != nil && !slices.Contains(inputs, s) {
			isCallback := false
			for _, c := range cbs {
				isCallback = isCallback || c.Symbol == s
			}
			if isCallback {
				d.errAt(item.pos, item.path, "unknown symbol %s: it is a callback, and restrictions name inputs (callins: %s)", quoteShort(s), strings.Join(inputs, ", "))
			} else {
				d.errAt(item.pos, item.path, "unknown symbol %s (callins: %s)", quoteShort(s), strings.Join(inputs, ", "))
			}
			ok = false
			continue
		}
		out = append(out, s)
	}
	return out, ok
}
