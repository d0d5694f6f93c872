package purpose

import (
	"slices"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"
)

// Formats of the sim backend's model file.
var simFormats = []string{"auto", "droidstar-dot", "mealy-dot", "json"}

func (d *decoder) backend(p *Purpose, v value, cbNames []string, checkNames bool) Backend {
	if !v.ok {
		return Backend{}
	}
	available := strings.Join(backendKinds, ", ")
	if _, ok := v.node.(*ast.MappingNode); !ok {
		d.errAt(v.pos, v.path, "want a map such as {sim: {model: model.dot}}, got %s", kindOf(v.node))
		return Backend{}
	}
	m := d.mapping(v, nil)
	if m == nil {
		return Backend{}
	}
	if len(m.order) == 0 {
		d.errAt(m.pos, m.path, "no backend given (available: %s)", available)
		return Backend{}
	}
	var b Backend
	for _, kind := range m.order {
		switch {
		case kind.key == BackendSim:
			b.Sim = d.sim(kind.value, cbNames, checkNames)
		case kind.key == BackendJVM || kind.key == BackendADB:
			if kind.key == BackendJVM {
				b.JVM = d.jvm(kind.value)
			} else {
				d.mapping(kind.value, adbKeys)
				b.ADB = &ADBBackend{}
			}
			if p.Class == "" {
				d.errAt(kind.keyPos, m.path, "backend %s runs the harness, which needs class: the class to learn", kind.key)
			}
		default:
			d.errAt(kind.keyPos, m.path, "unknown backend %s (available: %s)", quoteShort(kind.key), available)
			continue
		}
		b.Kinds = append(b.Kinds, kind.key)
	}
	if len(b.Kinds) > 0 {
		b.Kind = b.Kinds[0]
	}
	return b
}

func (d *decoder) jvm(v value) *JVMBackend {
	m := d.mapping(v, jvmKeys)
	if m == nil {
		return nil
	}
	j := &JVMBackend{}
	if f := m.opt("java"); f != nil {
		j.Java, _ = d.str(f.value)
	}
	if f := m.opt("options"); f != nil {
		items, _ := d.list(f.value, "JVM options")
		for _, item := range items {
			if s, ok := d.str(item); ok {
				j.Options = append(j.Options, s)
			}
		}
	}
	return j
}

func (d *decoder) sim(v value, cbNames []string, checkNames bool) *SimBackend {
	m := d.mapping(v, simKeys)
	if m == nil {
		return nil
	}
	sim := &SimBackend{Format: "auto", DefaultLatency: DefaultLatency}
	if f := d.req(m, "model"); f != nil {
		if s, ok := d.str(f.value); ok {
			if strings.TrimSpace(s) == "" {
				d.errAt(f.pos, f.path, "must not be empty")
			}
			sim.Model = s
			sim.ModelPos = f.pos
			sim.ModelPath = resolvePath(d.file, s)
		}
	}
	if f := m.opt("format"); f != nil {
		if s, ok := d.str(f.value); ok {
			if !slices.Contains(simFormats, s) {
				d.errAt(f.pos, f.path, "unknown format %s (allowed: %s)", quoteShort(s), strings.Join(simFormats, ", "))
			}
			sim.Format = s
		}
	}
	if f := m.opt("latency"); f != nil {
		lm := d.mapping(f.value, nil)
		for _, lf := range lmOrder(lm) {
			dur, most, ok := d.latencyRange(lf.value)
			if lf.key == "default" {
				if ok {
					sim.DefaultLatency, sim.DefaultLatencyMax = dur, 0
					if most > dur {
						sim.DefaultLatencyMax = most
					}
				}
				continue
			}
			if checkNames && !slices.Contains(cbNames, lf.key) {
				known := "none declared"
				if len(cbNames) > 0 {
					known = strings.Join(cbNames, ", ")
				}
				d.errAt(lf.keyPos, lf.path, "unknown symbol %s (callbacks: %s)", quoteShort(lf.key), known)
				continue
			}
			if ok {
				if sim.Latency == nil {
					sim.Latency = map[string]time.Duration{}
				}
				sim.Latency[lf.key] = dur
				if most > dur {
					if sim.LatencyMax == nil {
						sim.LatencyMax = map[string]time.Duration{}
					}
					sim.LatencyMax[lf.key] = most
				}
			}
		}
	}
	if f := m.opt("realtime"); f != nil {
		sim.Realtime, _ = d.boolean(f.value)
	}
	return sim
}

// latencyRange reads a sim latency: a duration (80ms), or a uniform range
// MIN..MAX (80ms..400ms) that the simulator draws each callback's latency
// from. A plain duration is its own range.
func (d *decoder) latencyRange(v value) (least, most time.Duration, ok bool) {
	if !v.ok {
		return 0, 0, false
	}
	s, isStr := stringValue(v.node)
	lo, hi, isRange := strings.Cut(s, "..")
	if !isStr || !isRange {
		dur, ok := d.nonNegDuration(v)
		return dur, dur, ok
	}
	lo, hi = strings.TrimSpace(lo), strings.TrimSpace(hi)
	a, err1 := time.ParseDuration(lo)
	b, err2 := time.ParseDuration(hi)
	switch {
	case err1 != nil || err2 != nil:
		d.errAt(v.pos, v.path, "bad latency range %s: want MIN..MAX with units, e.g. 80ms..400ms", quoteShort(strings.TrimSpace(s)))
		return 0, 0, false
	case a < 0:
		d.errAt(v.pos, v.path, "must not be negative, got %s", shorten(lo))
		return 0, 0, false
	case b < a:
		d.errAt(v.pos, v.path, "the range %s ends below its start", quoteShort(strings.TrimSpace(s)))
		return 0, 0, false
	}
	return a, b, true
}

func lmOrder(m *mapping) []*field {
	if m == nil {
		return nil
	}
	return m.order
}
