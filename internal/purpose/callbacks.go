package purpose

import (
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
)

// Symbols the synchronous closure adds to every model. A callin may not be
// called wait (the closure's own input); a callback may not take any of the
// names, or its outputs could not be told apart from the closure's.
var reservedOutputs = []string{"ok", "quiet", "err", "wait"}

func (d *decoder) callbacks(p *Purpose, v value, defs []symDef) ([]Callback, []symDef) {
	items, ok := d.list(v, "callbacks")
	if !ok {
		return nil, defs
	}
	out := make([]Callback, 0, len(items))
	var names []symDef
	for _, item := range items {
		sym, sv, m, ok := d.symbolItem(item, callbackKeys, "callback")
		if ok && !d.checkSymbol(sym, sv) {
			ok = false
		}
		if ok && slices.Contains(reservedOutputs, sym) {
			d.errAt(sv.pos, sv.path, "reserved symbol %s: ok, quiet, err and wait are built into every model", strconv.Quote(sym))
			ok = false
		}
		cb := Callback{Symbol: sym, Pos: item.pos}
		owner := len(out)
		if item.ok {
			d.where(p, item)
		}
		if f := m.opt("from"); f != nil {
			cb.From = d.fromList(f.value, owner, &names)
		}
		if f := m.opt("error"); f != nil {
			d.where(p, f.value)
			cb.Error, cb.Environment = d.errorRole(f.value)
		}
		d.behaviour(p, &cb, m)
		if !ok {
			continue
		}
		names = append(names, symDef{name: sym, pos: sv.pos, path: sv.path, owner: owner, self: true})
		defs = append(defs, symDef{name: sym, pos: sv.pos, path: sv.path, owner: owner})
		out = append(out, cb)
	}
	d.callbackNameClashes(names, out)
	for _, n := range names {
		d.where(p, value{pos: n.pos, path: n.path})
	}
	return out, defs
}

// fromList reads the callback names merged into one symbol. These are
// names the harness reports (onEvent/MODIFY, Listener$onDone), not
// symbols, so they are only required to be free of spaces.
func (d *decoder) fromList(v value, owner int, names *[]symDef) []string {
	items, ok := d.list(v, "callback names")
	if !ok {
		return nil
	}
	if len(items) == 0 {
		d.errAt(v.pos, v.path, "empty list: leave from out to use the symbol itself")
		return nil
	}
	var out []string
	for _, item := range items {
		s, ok := d.str(item)
		if !ok {
			continue
		}
		if s == "" || strings.IndexFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
			d.errAt(item.pos, item.path, "invalid callback name %s: must be non-empty, without spaces", quoteShort(s))
			continue
		}
		out = append(out, s)
		*names = append(*names, symDef{name: s, pos: item.pos, path: item.path, owner: owner})
	}
	return out
}

// callbackNameClashes checks that every callback name a backend may report
// maps to one symbol: a symbol maps to itself, and each from name to its
// callback. Two callbacks with the same symbol are left to duplicates.
func (d *decoder) callbackNameClashes(names []symDef, cbs []Callback) {
	sortDefs(names)
	first := map[string]symDef{}
	for _, n := range names {
		prev, seen := first[n.name]
		if !seen {
			first[n.name] = n
			continue
		}
		switch {
		case prev.owner == n.owner && (prev.self || n.self):
			// A callback may list its own symbol among its names.
		case prev.owner == n.owner:
			d.errAt(n.pos, n.path, "duplicate name %s (first defined at %s)", strconv.Quote(n.name), prev.pos)
		case prev.self && n.self:
			// Same symbol twice: reported as a duplicate symbol.
		default:
			sym := n.name
			if prev.owner >= 0 && prev.owner < len(cbs) {
				sym = cbs[prev.owner].Symbol
			}
			d.errAt(n.pos, n.path, "callback name %s already maps to %s (at %s)", strconv.Quote(n.name), strconv.Quote(sym), prev.pos)
		}
	}
}

// callbackNames lists the names a latency may be keyed by: every callback
// symbol and every from name, without repeats.
func callbackNames(cbs []Callback) []string {
	var names []string
	for _, c := range cbs {
		for _, n := range append([]string{c.Symbol}, c.From...) {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	return names
}

// behaviour reads a callback's returns, throws and sleep_ms: what proxy
// listeners do on its calls. Which methods they act on, and whether the
// values fit, only the harness can tell.
func (d *decoder) behaviour(p *Purpose, cb *Callback, m *mapping) {
	returns, throws := m.opt("returns"), m.opt("throws")
	if returns != nil && throws != nil {
		d.errAt(throws.pos, throws.path, "give returns or throws, not both")
	}
	if returns != nil {
		cb.Returns = d.literal(p, returns.value)
	}
	if throws != nil {
		cb.Throws = d.literal(p, throws.value)
	}
	if f := m.opt("sleep_ms"); f != nil {
		d.where(p, f.value)
		if n, ok := d.integer(f.value); ok {
			if n < 0 {
				d.errAt(f.pos, f.path, "must be at least 0, got %d", n)
			}
			cb.SleepMs = int64(n)
		}
	}
}

// errorRole reads a callback's error: true (an error callback), false, or
// environment (the environment failed; the query fails).
func (d *decoder) errorRole(v value) (isError, environment bool) {
	if b, ok := v.node.(*ast.BoolNode); ok {
		return b.Value, false
	}
	if s, ok := stringValue(v.node); ok && s == ErrorEnvironment {
		return false, true
	}
	d.errAt(v.pos, v.path, "want true, false or environment, got %s", kindOf(v.node))
	return false, false
}
