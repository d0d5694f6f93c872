package purpose

import "strings"

// actions reads a list of environment actions.
func (d *decoder) actions(p *Purpose, v value) []Action {
	items, ok := d.list(v, "actions")
	if !ok {
		return nil
	}
	var out []Action
	for _, item := range items {
		if a, ok := d.action(p, item); ok {
			out = append(out, a)
		}
	}
	return out
}

func (d *decoder) action(p *Purpose, v value) (Action, bool) {
	if !v.ok {
		return Action{}, false
	}
	d.where(p, v)
	m := d.mapping(v, actionKinds)
	if m == nil {
		return Action{}, false
	}
	if n := rawLen(v); n != 1 {
		d.errAt(v.pos, v.path, "one action per item (%s), got %d", strings.Join(actionKinds, ", "), n)
		return Action{}, false
	}
	if len(m.order) != 1 {
		return Action{}, false // an unknown action, reported
	}
	f := m.order[0]
	d.where(p, f.value)
	var a Action
	switch f.key {
	case "delete", "touch":
		s, ok := d.str(f.value)
		d.fileName(f.value, s)
		if f.key == "delete" {
			a.Delete = s
		} else {
			a.Touch = s
		}
		return a, ok
	case "sleep":
		dur, ok := d.nonNegDuration(f.value)
		ms := dur.Milliseconds()
		a.Sleep = &ms
		return a, ok
	case "sqlite":
		sm := d.mapping(f.value, actionKeys[f.key])
		sq := &SQLiteAction{}
		if sf := d.req(sm, "file"); sf != nil {
			d.where(p, sf.value)
			sq.File, _ = d.str(sf.value)
			d.fileName(sf.value, sq.File)
		}
		if vf := d.req(sm, "version"); vf != nil {
			d.where(p, vf.value)
			n, ok := d.integer(vf.value)
			if ok && n < 1 {
				d.errAt(vf.pos, vf.path, "must be at least 1, got %d", n)
			}
			sq.Version = n
		}
		a.SQLite = sq
		return a, true
	default: // write, append
		cm := d.mapping(f.value, actionKeys[f.key])
		w := &WriteAction{}
		if cf := d.req(cm, "file"); cf != nil {
			d.where(p, cf.value)
			w.File, _ = d.str(cf.value)
			d.fileName(cf.value, w.File)
		}
		if cf := cm.opt("content"); cf != nil {
			d.where(p, cf.value)
			w.Content, _ = d.str(cf.value)
		}
		if f.key == "write" {
			a.Write = w
		} else {
			a.Append = w
		}
		return a, true
	}
}
