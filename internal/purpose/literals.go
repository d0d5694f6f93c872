package purpose

import (
	"math"
	"slices"
	"strings"

	"github.com/goccy/go-yaml/ast"
)

// args reads a list of argument literals.
func (d *decoder) args(p *Purpose, v value) []Arg {
	items, ok := d.list(v, "arguments")
	if !ok {
		return nil
	}
	d.where(p, v)
	out := make([]Arg, 0, len(items))
	for _, item := range items {
		out = append(out, d.literal(p, item))
	}
	return out
}

// literal converts one argument literal to its wire form.
func (d *decoder) literal(p *Purpose, v value) Arg {
	if !v.ok {
		return nil
	}
	d.where(p, v)
	switch n := v.node.(type) {
	case *ast.NullNode:
		return nil
	case *ast.BoolNode:
		return n.Value
	case *ast.IntegerNode:
		i, _ := d.integer(v)
		return int64(i)
	case *ast.FloatNode:
		if math.IsInf(n.Value, 0) || math.IsNaN(n.Value) {
			d.errAt(v.pos, v.path, "want a finite number, got %s", kindOf(n))
		}
		return n.Value
	case *ast.MappingNode:
		m := d.mapping(v, literalKeys)
		if m == nil {
			return nil
		}
		if n := rawLen(v); n != 1 {
			d.errAt(v.pos, v.path, "an argument map has exactly one key (%s), got %d", strings.Join(literalKeys, ", "), n)
			return nil
		}
		if len(m.order) != 1 {
			return nil // an unknown key, reported
		}
		f := m.order[0]
		switch f.key {
		case "file", "path", "string":
			s, _ := d.str(f.value)
			if f.key != "string" {
				d.fileName(f.value, s)
			}
			return map[string]any{f.key: s}
		case "new", "call":
			return map[string]any{f.key: d.made(p, f.key, f.value)}
		case "result":
			d.where(p, f.value)
			s, ok := d.str(f.value)
			if ok {
				calls, declared := d.returning[s]
				switch {
				case !declared:
					d.errAt(f.pos, f.path, "no callin %s is declared before this literal: {result: SYMBOL} names an earlier callin", quoteShort(s))
				case !calls:
					d.errAt(f.pos, f.path, "callin %s calls no method, so it has no result to pass", quoteShort(s))
				}
			}
			return map[string]any{f.key: s}
		case "param":
			return map[string]any{f.key: d.param(f)}
		case "callback":
			return map[string]any{f.key: d.callbackArg(p, f)}
		case "listener":
			return map[string]any{f.key: d.javaName(p, f.value, "class")}
		case "target", "context":
			b, ok := d.boolean(f.value)
			if ok && !b {
				d.errAt(f.pos, f.path, "write %s: true (or leave the argument out)", f.key)
			}
			return map[string]any{f.key: true}
		case "constant":
			if _, isList := f.node.(*ast.SequenceNode); isList {
				items, _ := d.list(f.value, "constants")
				var names []any
				for _, item := range items {
					names = append(names, d.constant(p, item))
				}
				return map[string]any{"constant": names}
			}
			return map[string]any{"constant": d.constant(p, f.value)}
		case "int", "long":
			i, _ := d.integer(f.value)
			return map[string]any{f.key: int64(i)}
		default: // float, double
			switch n := f.node.(type) {
			case *ast.IntegerNode:
				i, _ := d.integer(f.value)
				return map[string]any{f.key: float64(i)}
			case *ast.FloatNode:
				return map[string]any{f.key: n.Value}
			}
			d.errAt(f.pos, f.path, "want a number, got %s", kindOf(f.node))
			return nil
		}
	}
	s, ok := d.str(v)
	if !ok {
		return nil
	}
	return s
}

// made reads the list of {new: [CLASS, ARGS...]} or {call: [CLASS,
// METHOD, ARGS...]}: the names first, then argument literals.
func (d *decoder) made(p *Purpose, key string, v value) []any {
	items, ok := d.list(v, "a class name and arguments")
	if !ok {
		return nil
	}
	d.where(p, v)
	names, shape := 1, "new: [CLASS, ARGS...] needs a class name first"
	if key == "call" {
		names, shape = 2, "call: [CLASS, METHOD, ARGS...] needs a class and a method name first"
	}
	if len(items) < names {
		d.errAt(v.pos, v.path, "%s, got %d items", shape, len(items))
		return nil
	}
	out := []any{d.javaName(p, items[0], "class")}
	if names == 2 {
		out = append(out, d.javaName(p, items[1], "method"))
	}
	for _, item := range items[names:] {
		out = append(out, d.literal(p, item))
	}
	return out
}

// constant reads CLASS.FIELD.
func (d *decoder) constant(p *Purpose, v value) string {
	s, ok := d.str(v)
	if !ok {
		return ""
	}
	d.where(p, v)
	dot := strings.LastIndex(s, ".")
	if dot <= 0 || !javaIdent(s[dot+1:]) {
		d.errAt(v.pos, v.path, "invalid constant %s: want CLASS.FIELD such as android.os.FileObserver.MODIFY", quoteShort(s))
	}
	return s
}

// callbackUse is a {callback: ...} literal whose method is checked once
// the callbacks are read (they come after the callins in a purpose).
type callbackUse struct {
	method string
	pos    Pos
	path   string
}

// callbackArg reads {callback: METHOD} or {callback: [METHOD, N]}:
// argument N (0 when left out) of the latest call of the callback METHOD
// that a wait of the query delivered. The harness gets the long form.
// Its value exists only once a wait has delivered the callback, so the
// literal stands only where a query has had waits: in callins and in
// dispose (the reset, with init, new and factory, runs before any wait).
func (d *decoder) callbackArg(p *Purpose, f *field) []any {
	d.where(p, f.value)
	if !strings.HasPrefix(f.path, "callins[") && !strings.HasPrefix(f.path, "target.dispose.") {
		d.errAt(f.pos, f.path, "a callback's argument exists only once a wait of the query has delivered the callback: {callback: ...} stands in callins and in target.dispose, not here")
	}
	method, n := value{}, value{}
	switch f.node.(type) {
	case *ast.SequenceNode:
		items, _ := d.list(f.value, "a callback method and an argument number")
		if len(items) != 2 {
			d.errAt(f.pos, f.path, "callback: [METHOD, N] needs a callback method and an argument number, got %d items", len(items))
			return nil
		}
		method, n = items[0], items[1]
	default:
		method = f.value
		// The short form is argument 0; the harness names the long
		// form's places, which are the short form's.
		d.where(p, value{pos: f.pos, path: index(f.path, 0)})
		d.where(p, value{pos: f.pos, path: index(f.path, 1)})
	}
	if _, isMap := method.node.(*ast.MappingNode); isMap {
		d.errAt(method.pos, method.path, "want METHOD or [METHOD, N] (argument N, from 0, of the callback's latest call), got %s", kindOf(method.node))
		return nil
	}
	s, ok := d.str(method)
	if !ok {
		return nil
	}
	d.where(p, method)
	if !callbackMethodName(s) {
		d.errAt(method.pos, method.path, "invalid callback method %s: want METHOD or NAME.METHOD as the harness reports it, such as onSubscribe", quoteShort(s))
		return nil
	}
	arg := 0
	if n.ok {
		d.where(p, n)
		i, ok := d.integer(n)
		if !ok {
			return nil
		}
		if i < 0 {
			d.errAt(n.pos, n.path, "must not be negative, got %d", i)
			return nil
		}
		arg = i
	}
	d.callbackUses = append(d.callbackUses, callbackUse{method: s, pos: method.pos, path: method.path})
	return []any{s, int64(arg)}
}

// callbackMethodName says whether s is a callback method as the harness
// reports it: METHOD, or NAME.METHOD for a named listener's.
func callbackMethodName(s string) bool {
	name, method, named := strings.Cut(s, ".")
	if !named {
		return javaIdent(s)
	}
	return javaIdent(name) && javaIdent(method)
}

// checkCallbackUses refuses {callback: ...} literals whose method no
// declared callback names: the harness drops the calls of an undeclared
// method, so no wait delivers one and the literal would never have a
// value.
func (d *decoder) checkCallbackUses(cbs []Callback) {
	var methods []string
	for _, c := range cbs {
		for _, n := range c.Sources() {
			m, _, _ := strings.Cut(n, "/")
			if !slices.Contains(methods, m) {
				methods = append(methods, m)
			}
		}
	}
	for _, u := range d.callbackUses {
		if !slices.Contains(methods, u.method) {
			d.errAt(u.pos, u.path, "no declared callback is %s: {callback: ...} takes an argument of a callback a wait delivers, one of %s",
				quoteShort(u.method), strings.Join(methods, ", "))
		}
	}
}
