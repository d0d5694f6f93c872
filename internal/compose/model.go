package compose

import (
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/droidstar/droidstar/internal/backend/sim"
	"github.com/droidstar/droidstar/internal/engine"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/purpose"
	"github.com/droidstar/droidstar/internal/store"
)

// ModelSource is a model file learned directly, with no purpose, as AALpy
// and LearnLib users learn a DOT file: the alphabet comes from the model.
type ModelSource struct {
	// File names the model (its base name names the target); Data is its
	// content.
	File   string
	Data   []byte
	Format string
	// Bound is the distinguisher bound, as a purpose's bound is (a
	// Pipeline's BoundChoice replaces it).
	Bound      int
	Quiescence time.Duration
	Reset      time.Duration
	// Settle is the part of Reset after the last symbol, which only a
	// query that ended waiting quiet spends (sim.Timing.Settle); at most
	// Reset.
	Settle  time.Duration
	Latency time.Duration
	// Callins, when set, fixes the callins and their order; a callin the
	// model never shows throws everywhere (DroidStar's diagrams omit such
	// inputs, e.g. SQLiteOpenHelper's openHV).
	Callins []string
	// Restrictions exclude queries as a purpose's would (the DroidStar
	// benchmarks learn their diagrams under DroidStar's restrictions).
	Restrictions []purpose.Restriction
	// Latencies, when set, replaces Latency by per-callback latencies and
	// ranges, as a purpose's backend.sim.latency gives them (the bench
	// gives DroidStar's diagrams the bundled examples' latencies).
	Latencies *purpose.SimBackend
}

// fromModel plans learning a model file on sim lanes as bo configures them.
func fromModel(o ModelSource, bo BackendOptions) (*Plan, error) {
	file, data := o.File, o.Data
	if o.Settle > o.Reset {
		return nil, fmt.Errorf("the settle time %s is more than the reset %s it is part of", o.Settle, o.Reset)
	}
	m, err := sim.ParseModel(file, data, o.Format)
	if err != nil {
		return nil, err
	}
	if len(o.Callins) > 0 {
		if m, err = m.WithCallins(o.Callins); err != nil {
			return nil, err
		}
	}
	name := strings.TrimSuffix(path.Base(file), path.Ext(file))
	t := engine.Target{
		Name: name, Inputs: m.Machine.Inputs, Outputs: m.Machine.Outputs,
		Semantics: m.Semantics, Bound: o.Bound,
		Backend: model.BackendInfo{Kind: purpose.BackendSim, Model: file, Options: map[string]string{
			"quiescence": o.Quiescence.String(), "reset": o.Reset.String(), "settle": o.Settle.String(),
		}},
	}
	if m.Semantics == model.SemanticsClosure {
		for _, in := range m.Machine.Inputs.Names() {
			if in != mealy.Wait {
				t.Callins = append(t.Callins, in)
			}
		}
		for _, out := range m.Machine.Outputs.Names() {
			if !mealy.IsClosureOutput(out) {
				t.Callbacks = append(t.Callbacks, out)
			}
		}
	}
	timing := sim.Timing{Quiescence: o.Quiescence, Reset: o.Reset, Settle: o.Settle, DefaultLatency: o.Latency, Realtime: bo.Realtime}
	if l := o.Latencies; l != nil {
		timing.Latency, timing.DefaultLatency, timing.LatencyMax, timing.DefaultLatencyMax = l.Latency, l.DefaultLatency, l.LatencyMax, l.DefaultLatencyMax
		timing.Seed = bo.LatencySeed
	}
	plan, err := NewPlan(t, Rules(o.Restrictions), nil, simLanes(m, timing, bo.Lanes, bo.Flaky))
	if err != nil {
		return nil, err
	}
	plan.Model, plan.Virtual = m, !timing.Realtime
	plan.sched.Virtual = plan.Virtual
	plan.keyParts = map[string]string{
		store.PartModel:    store.Digest(data),
		store.PartTimeouts: fmt.Sprintf("quiescence %s, reset %s, latency %s", o.Quiescence, o.Reset, o.Latency),
	}
	if l := o.Latencies; l != nil {
		plan.keyParts[store.PartTimeouts] = fmt.Sprintf("quiescence %s, reset %s, latencies %v default %s..%s %v, seed %d",
			o.Quiescence, o.Reset, l.Latency, l.DefaultLatency, l.DefaultLatencyMax, l.LatencyMax, bo.LatencySeed)
	}
	plan.quiescence, plan.backend, plan.quiescenceFrom = o.Quiescence, purpose.BackendSim, "--quiescence"
	return plan, nil
}
