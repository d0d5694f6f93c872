package purpose

import (
	"math"
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
