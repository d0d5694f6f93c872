package purpose

import (
	"strings"

	"github.com/goccy/go-yaml/ast"
)

// details reads where the detail of each callback method comes from:
// METHOD: PART, or METHOD: [PART, ...], a PART being {arg: N} with at
// most one of call: METHOD and extra: KEY. The harness gets the long form
// (always a list, arg written out), so a single part is recorded at
// METHOD[0], the path the harness names. When the callbacks were read
// without trouble, a method that no callback name uses with a detail is
// reported: its detail could never matter.
func (d *decoder) details(p *Purpose, v value, cbs []Callback, checkNames bool) Details {
	m := d.mapping(v, nil)
	if m == nil {
		return nil
	}
	d.where(p, v)
	var out Details
	for _, f := range m.order {
		if !f.ok {
			continue
		}
		if !javaIdent(f.key) {
			d.errAt(f.keyPos, f.path, "invalid method name %s: want the name of a callback method such as onReceive", quoteShort(f.key))
			continue
		}
		d.where(p, value{path: f.path, pos: f.keyPos})
		entry := Detail{Method: f.key, Pos: f.keyPos}
		var items []value
		switch f.node.(type) {
		case *ast.SequenceNode:
			items, _ = d.list(f.value, "detail parts")
			if len(items) == 0 {
				d.errAt(f.pos, f.path, "empty list: give at least one part, such as {arg: 0}")
			}
		case *ast.MappingNode:
			items = []value{{node: f.node, pos: f.pos, path: index(f.path, 0), ok: true}}
		default:
			d.errAt(f.pos, f.path, "want a part such as {arg: 1, extra: KEY}, or a list of parts, got %s", kindOf(f.node))
		}
		good := len(items) > 0
		for _, item := range items {
			part, ok := d.detailPart(p, item)
			good = good && ok
			entry.Parts = append(entry.Parts, part)
		}
		if checkNames && !usesDetail(cbs, f.key) {
			d.errAt(f.keyPos, f.path, "no callback name is %s/DETAIL, so this detail is never used: name one in a callback's from, such as %s/VALUE", f.key, f.key)
			good = false
		}
		if good {
			out = append(out, entry)
		}
	}
	return out
}

func (d *decoder) detailPart(p *Purpose, item value) (DetailPart, bool) {
	var part DetailPart
	if !item.ok {
		return part, false
	}
	if _, isMap := item.node.(*ast.MappingNode); !isMap {
		d.errAt(item.pos, item.path, "want a part such as {arg: 1, extra: KEY}, got %s", kindOf(item.node))
		return part, false
	}
	pm := d.mapping(item, detailKeys)
	if pm == nil {
		return part, false
	}
	d.where(p, item)
	ok := true
	if f := pm.opt("arg"); f != nil {
		d.where(p, f.value)
		n, good := d.integer(f.value)
		if good && n < 0 {
			d.errAt(f.pos, f.path, "must not be negative, got %d", n)
			good = false
		}
		part.Arg, ok = n, good
	}
	cf, ef := pm.opt("call"), pm.opt("extra")
	if cf != nil {
		part.Call = d.javaName(p, cf.value, "method")
	}
	if ef != nil {
		d.where(p, ef.value)
		s, good := d.str(ef.value)
		if good && s == "" {
			d.errAt(ef.pos, ef.path, "must not be empty")
			good = false
		}
		part.Extra, ok = s, ok && good
	}
	if cf != nil && ef != nil {
		d.errAt(ef.keyPos, ef.path, "give call or extra, not both (call is at %s)", cf.keyPos)
		ok = false
	}
	return part, ok
}

// usesDetail says whether a callback name is method/DETAIL.
func usesDetail(cbs []Callback, method string) bool {
	for _, c := range cbs {
		for _, n := range c.Sources() {
			if strings.HasPrefix(n, method+"/") {
				return true
			}
		}
	}
	return false
}
