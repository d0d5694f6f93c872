package purpose

import (
	"math"

	"github.com/goccy/go-yaml/ast"
)

func (d *decoder) callins(p *Purpose, v value, defs []symDef) ([]Callin, []symDef) {
	items, ok := d.list(v, "callins")
	if !ok {
		return nil, defs
	}
	if len(items) == 0 {
		d.errAt(v.pos, v.path, "want at least one callin")
		return nil, defs
	}
	out := make([]Callin, 0, len(items))
	for _, item := range items {
		sym, sv, m, ok := d.symbolItem(item, callinKeys, "callin")
		c := Callin{Symbol: sym, Pos: item.pos}
		if m != nil {
			d.callinCall(p, &c, m)
		}
		if !ok || !d.checkSymbol(sym, sv) {
			continue
		}
		if sym == "wait" {
			d.errAt(sv.pos, sv.path, "reserved symbol \"wait\": it is the built-in input that delivers callbacks")
			continue
		}
		d.where(p, item)
		out = append(out, c)
		defs = append(defs, symDef{name: sym, pos: sv.pos, path: sv.path, owner: -1})
		if d.returning == nil {
			d.returning = map[string]bool{}
		}
		d.returning[sym] = c.Call != ""
	}
	return out, defs
}

// callinCall reads a callin's harness fields: call, on, args, do.
func (d *decoder) callinCall(p *Purpose, c *Callin, m *mapping) {
	if f := m.opt("call"); f != nil {
		c.Call = d.javaName(p, f.value, "method")
	}
	if f := m.opt("on"); f != nil {
		c.On = d.literal(p, f.value)
	}
	if f := m.opt("args"); f != nil {
		c.Args = d.args(p, f.value)
	}
	if f := m.opt("do"); f != nil {
		c.Do = d.actions(p, f.value)
	}
	if f := m.opt("result"); f != nil {
		d.where(p, f.value)
		if s, ok := d.str(f.value); ok {
			if s != ResultTarget {
				d.errAt(f.pos, f.path, "unknown result %s: the one place a result can go is target (the call's result becomes the instance under test)", quoteShort(s))
			}
			c.Result = s
		}
	}
	// error_if: null is a value (err when the method returns null), so
	// the field counts when it is present, null or not.
	if f := m.get("error_if"); f != nil && f.ok {
		c.ErrorIf = d.errorValue(p, f.value)
	}
	// Without call the method is named like the symbol, unless the callin
	// only runs actions; then args, on, result and error_if have nothing
	// to go to.
	if c.Call == "" && len(c.Do) > 0 {
		hasArgs := c.On != nil || c.Args != nil
		for _, key := range []string{"args", "on", "result", "error_if"} {
			f := m.get(key)
			if f == nil || (key == "args" || key == "on") && !hasArgs {
				continue
			}
			d.errAt(f.keyPos, f.path, "a callin with do calls no method unless it says which: add call: METHOD")
			break
		}
	}
}

// errorValue reads a callin's error_if: the result that counts as err.
func (d *decoder) errorValue(p *Purpose, v value) *ErrorValue {
	d.where(p, v)
	switch n := v.node.(type) {
	case *ast.NullNode:
		return &ErrorValue{}
	case *ast.BoolNode:
		return &ErrorValue{Value: n.Value}
	case *ast.IntegerNode:
		if i, ok := d.integer(v); ok {
			return &ErrorValue{Value: int64(i)}
		}
		return nil
	case *ast.FloatNode:
		if math.IsInf(n.Value, 0) || math.IsNaN(n.Value) {
			d.errAt(v.pos, v.path, "want a finite number, got %s", kindOf(n))
			return nil
		}
		return &ErrorValue{Value: n.Value}
	}
	if s, ok := stringValue(v.node); ok {
		return &ErrorValue{Value: s}
	}
	d.errAt(v.pos, v.path, "want the result that counts as err: null, true, false, a number or a string, got %s", kindOf(v.node))
	return nil
}
