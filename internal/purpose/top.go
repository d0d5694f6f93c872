package purpose

import (
	"slices"

	"github.com/goccy/go-yaml/ast"
)

// purpose decodes the top-level map.
func (d *decoder) purpose(body ast.Node) *Purpose {
	top := d.val(body, "", Pos{1, 1})
	if !top.ok {
		return nil
	}
	if _, ok := top.node.(*ast.MappingNode); !ok {
		d.errAt(top.pos, "", "want a map at the top level (name, callins, backend, ...), got %s", kindOf(top.node))
		return nil
	}
	m := d.mapping(top, topKeys)
	if m == nil {
		return nil
	}
	p := &Purpose{
		File:  d.file,
		Bound: DefaultBound,
		Timeouts: Timeouts{
			Quiescence: DefaultQuiescence,
			Settle:     DefaultSettle,
			PostReset:  DefaultPostReset,
		},
	}

	// The fields the harness is sent: a complaint about one of them, or
	// about a field the host filled in under it, points here.
	for _, key := range harnessKeys {
		if f := m.get(key); f != nil && f.ok {
			d.where(p, f.value)
		}
	}
	if f := d.req(m, "name"); f != nil {
		if s, ok := d.str(f.value); ok {
			if msg := checkName(s); msg != "" {
				d.errAt(f.pos, f.path, "invalid name %s: %s", quoteShort(s), msg)
			}
			p.Name = s
		}
	}
	if f := m.opt("class"); f != nil {
		p.Class, _ = d.str(f.value)
	}
	if f := m.opt("description"); f != nil {
		p.Description, _ = d.str(f.value)
	}
	// Before the literals that may use them.
	if f := m.opt("parameters"); f != nil {
		d.parameters(p, f.value)
	}
	if f := m.opt("target"); f != nil {
		p.Target = d.target(p, f.value)
	}
	if f := m.opt("setup"); f != nil {
		p.Setup = d.actions(p, f.value)
	}
	if f := m.opt("files"); f != nil {
		p.Files = d.files(p, f.value, fileKeys)
	}
	if f := m.opt("permissions"); f != nil {
		p.Permissions = d.permissions(p, f.value)
	}
	if f := m.opt("jars"); f != nil {
		p.Jars = d.files(p, f.value, jarKeys)
	}
	if f := m.opt("adapters"); f != nil {
		p.Adapters = d.adapters(p, f.value)
	}

	var defs []symDef
	callinsOK := false
	if f := d.req(m, "callins"); f != nil {
		before := d.found
		p.Callins, defs = d.callins(p, f.value, defs)
		callinsOK = d.found == before
	}
	callbacksOK := true
	if f := m.opt("callbacks"); f != nil {
		before := d.found
		p.Callbacks, defs = d.callbacks(p, f.value, defs)
		callbacksOK = d.found == before
	}
	d.duplicates(defs)
	if callbacksOK {
		d.checkCallbackUses(p.Callbacks)
	}
	if f := m.opt("ignore"); f != nil {
		p.Ignore = d.ignore(f.value, p.Callbacks, callbacksOK)
	}
	if f := m.opt("details"); f != nil {
		p.Details = d.details(p, f.value, p.Callbacks, callbacksOK)
	}
	if callinsOK {
		d.instanceAtReset(p)
	}

	if f := m.opt("timeouts"); f != nil {
		d.timeouts(p, f.value)
	}
	if f := m.opt("bound"); f != nil {
		_, isInteger := f.value.node.(*ast.IntegerNode)
		if s, _ := stringValue(f.value.node); f.value.ok && !isInteger {
			if s != "auto" {
				d.errAt(f.pos, f.path, "want an integer or auto, got %s", kindOf(f.value.node))
			}
			p.BoundAuto = s == "auto"
		} else if b, ok := d.integer(f.value); ok {
			if b < 1 {
				d.errAt(f.pos, f.path, "must be at least 1, got %d", b)
			}
			p.Bound = b
		}
	}
	if f := m.opt("bound_counts"); f != nil {
		switch s, _ := stringValue(f.value.node); {
		case !f.value.ok:
		case s == "every":
			p.BoundCountsEvery = true
		case s != "free":
			d.errAt(f.pos, f.path, "want free or every, got %s", kindOf(f.value.node))
		}
	}
	if f := m.opt("restrictions"); f != nil {
		var inputs []string
		if callinsOK {
			// A duplicate callin is reported where it is defined; the
			// lists of known symbols name it once.
			for _, s := range append(p.CallinSymbols(), "wait") {
				if !slices.Contains(inputs, s) {
					inputs = append(inputs, s)
				}
			}
		}
		p.Restrictions = d.restrictions(f.value, inputs, p.Callbacks)
		p.RestrictionsPos = f.keyPos
	}
	if f := d.req(m, "backend"); f != nil {
		p.BackendPos = f.keyPos
		var names []string
		if callbacksOK {
			names = callbackNames(p.Callbacks)
		}
		p.Backend = d.backend(p, f.value, names, callbacksOK)
	}
	d.unusedParams(p)
	return p
}
