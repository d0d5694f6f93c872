package purpose

import (
	"strconv"
	"strings"
)

// ignore reads the callback names the purpose drops on purpose: the
// harness drops every call that matches no declared callback, and the run
// reports those so that no answer is changed without a word; the names
// listed here are not reported. A name is METHOD (every call of it that
// no declared name matches) or METHOD/DETAIL, as from names are written.
// Naming a declared callback is a contradiction, so it is refused;
// declared says whether the callbacks were read without faults (if not,
// that check is skipped, the faults are reported already).
func (d *decoder) ignore(v value, cbs []Callback, declared bool) []string {
	items, ok := d.list(v, "callback names")
	if !ok {
		return nil
	}
	owner := map[string]string{}
	if declared {
		for _, c := range cbs {
			names := c.From
			if len(names) == 0 {
				names = []string{c.Symbol}
			}
			for _, n := range names {
				owner[n] = c.Symbol
			}
		}
	}
	var out []string
	first := map[string]Pos{}
	for _, item := range items {
		s, ok := d.str(item)
		if !ok {
			continue
		}
		method, _, _ := strings.Cut(s, "/")
		if method == "" || strings.IndexFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
			d.errAt(item.pos, item.path, "invalid callback name %s: want METHOD or METHOD/DETAIL, without spaces", quoteShort(s))
			continue
		}
		if prev, dup := first[s]; dup {
			d.errAt(item.pos, item.path, "duplicate name %s (first at %s)", strconv.Quote(s), prev)
			continue
		}
		first[s] = item.pos
		if sym, ok := owner[s]; ok {
			d.errAt(item.pos, item.path, "callback name %s is declared (callback %s): ignore lists only callbacks the purpose does not declare",
				strconv.Quote(s), strconv.Quote(sym))
			continue
		}
		out = append(out, s)
	}
	return out
}

// Ignores says whether the purpose drops an undeclared callback on
// purpose: callback (METHOD or METHOD/DETAIL, as the harness reports it)
// is in its ignore list, or its method is.
func (p *Purpose) Ignores(callback string) bool {
	method, _, _ := strings.Cut(callback, "/")
	for _, n := range p.Ignore {
		if n == callback || n == method {
			return true
		}
	}
	return false
}
