package purpose

func (d *decoder) timeouts(p *Purpose, v value) {
	t := &p.Timeouts
	m := d.mapping(v, timeoutKeys)
	if m != nil {
		d.where(p, v)
		for _, f := range m.order {
			d.where(p, f.value)
		}
	}
	if f := m.opt("quiescence"); f != nil {
		if dur, text, ok := d.duration(f.value); ok {
			if dur <= 0 {
				d.errAt(f.pos, f.path, "must be positive, got %s", shorten(text))
			}
			t.Quiescence = dur
		}
	}
	if f := m.opt("settle"); f != nil {
		t.Settle, _ = d.nonNegDuration(f.value)
	}
	if f := m.opt("post_reset"); f != nil {
		t.PostReset, _ = d.nonNegDuration(f.value)
	}
}
