package purpose

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"
)

func (d *decoder) target(p *Purpose, v value) *Target {
	m := d.mapping(v, targetKeys)
	if m == nil {
		return nil
	}
	d.where(p, v)
	t := &Target{}
	newF, factF := m.opt("new"), m.opt("factory")
	if newF != nil && factF != nil {
		d.errAt(factF.keyPos, factF.path, "give new or factory, not both (new is at %s)", newF.keyPos)
	}
	if newF != nil {
		t.New = d.args(p, newF.value)
		if t.New == nil {
			t.New = []Arg{}
		}
	}
	if factF != nil {
		fm := d.mapping(factF.value, factoryKeys)
		if fm != nil {
			d.where(p, factF.value)
			c := &Factory{}
			// The factory's class defaults to the target class.
			if f := fm.opt("class"); f != nil {
				c.Class = d.javaName(p, f.value, "class")
			}
			if f := d.req(fm, "method"); f != nil {
				c.Method = d.javaName(p, f.value, "method")
			}
			if f := fm.opt("args"); f != nil {
				c.Args = d.args(p, f.value)
			}
			t.Factory = c
		}
	}
	if f := m.opt("shim"); f != nil {
		t.Shim = d.shimOptions(p, f.value)
	}
	if f := m.opt("listeners"); f != nil {
		items, _ := d.list(f.value, "listeners")
		for _, item := range items {
			lm := d.mapping(item, listenerKeys)
			if lm == nil {
				continue
			}
			d.where(p, item)
			var l Listener
			if tf := d.req(lm, "type"); tf != nil {
				l.Type = d.javaName(p, tf.value, "class")
			}
			if rf := lm.opt("register"); rf != nil {
				l.Register = d.javaName(p, rf.value, "method")
			}
			if nf := lm.opt("name"); nf != nil {
				d.where(p, nf.value)
				if s, ok := d.str(nf.value); ok {
					if !javaIdent(s) {
						d.errAt(nf.pos, nf.path, "invalid listener name %s: want a Java identifier such as second", quoteShort(s))
					}
					l.Name = s
				}
			}
			for _, prev := range t.Listeners {
				switch {
				case l.Name != "" && prev.Name == l.Name:
					nf := lm.opt("name")
					d.errAt(nf.pos, nf.path, "listener %s is declared twice", quoteShort(l.Name))
				case l.Name == "" && prev.Name == "" && l.Type != "" && prev.Type == l.Type:
					tf := lm.opt("type")
					d.errAt(tf.pos, tf.path, "listener type %s is declared twice: give each listener of a type a name (name: NAME) to tell them apart", l.Type)
				}
			}
			t.Listeners = append(t.Listeners, l)
		}
	}
	if f := m.opt("init"); f != nil {
		items, _ := d.list(f.value, "calls")
		for _, item := range items {
			if c := d.call(p, item, initKeys); c != nil {
				t.Init = append(t.Init, *c)
			}
		}
	}
	if f := m.opt("dispose"); f != nil {
		t.Dispose = d.call(p, f.value, disposeKeys)
	}
	return t
}

// call reads a method call: a bare method name or {call: NAME, args: [...]},
// whose keys are those of its place (init's items or dispose).
func (d *decoder) call(p *Purpose, v value, keys []string) *Call {
	if !v.ok {
		return nil
	}
	d.where(p, v)
	if _, isStr := stringValue(v.node); isStr {
		return &Call{Method: d.javaName(p, v, "method")}
	}
	m := d.mapping(v, keys)
	if m == nil {
		return nil
	}
	c := &Call{}
	if f := d.req(m, "call"); f != nil {
		c.Method = d.javaName(p, f.value, "method")
	}
	if f := m.opt("args"); f != nil {
		c.Args = d.args(p, f.value)
	}
	return c
}

func (d *decoder) shimOptions(p *Purpose, v value) map[string]string {
	m := d.mapping(v, nil)
	if m == nil {
		return nil
	}
	d.where(p, v)
	out := map[string]string{}
	for _, f := range m.order {
		if !f.ok {
			continue
		}
		d.where(p, f.value)
		switch n := f.node.(type) {
		case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode:
			out[f.key] = tokenText(nodeToken(n))
		default:
			s, ok := d.str(f.value)
			if !ok {
				continue
			}
			// A duration option is sent in milliseconds, the harness's unit.
			if strings.HasSuffix(f.key, "_ms") {
				if dur, err := time.ParseDuration(s); err == nil {
					s = strconv.FormatInt(dur.Milliseconds(), 10)
				}
			}
			out[f.key] = s
		}
	}
	return out
}

// instanceAtReset checks what needs the instance at the reset when a
// callin makes it (result: target) and the target says neither new nor
// factory: then a query starts without an instance, and nothing can be
// registered on it or called on it before that callin.
func (d *decoder) instanceAtReset(p *Purpose) {
	t := p.Target
	if t == nil || t.New != nil || t.Factory != nil {
		return
	}
	for k, c := range p.Callins {
		if !c.MakesTarget() {
			continue
		}
		made := fmt.Sprintf("callins[%d] (%s) makes it (result: target)", k, c.Symbol)
		for i, l := range t.Listeners {
			if l.Register != "" {
				path := fmt.Sprintf("target.listeners[%d].register", i)
				d.errAt(p.Where[path], path, "no instance exists at the reset to register the listener on: %s; pass the listener to a callin as an argument instead", made)
			}
		}
		for i := range t.Init {
			path := fmt.Sprintf("target.init[%d]", i)
			d.errAt(p.Where[path], path, "no instance exists at the reset to call init on: %s", made)
		}
		return
	}
}
