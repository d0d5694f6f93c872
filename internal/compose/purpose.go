package compose

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/droidstar/droidstar/internal/engine"
	"github.com/droidstar/droidstar/internal/harness"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/purpose"
	"github.com/droidstar/droidstar/internal/store"
)

// fromPurpose plans a run of a parsed purpose; read fetches the files it
// names (the sim model, at Backend.Sim.ModelPath), from disk or from the
// embedded examples. Backends that run the harness are started here, and
// a purpose the harness cannot resolve fails here, before any query runs.
func fromPurpose(ctx context.Context, p *purpose.Purpose, read ReadFunc, o BackendOptions) (*Plan, error) {
	if err := bound(p); err != nil {
		return nil, err
	}
	inputs, outputs, err := p.Alphabets()
	if err != nil {
		return nil, err
	}
	t := engine.Target{
		Name: p.Name, Class: p.Class, Inputs: inputs, Outputs: outputs,
		Semantics: model.SemanticsClosure, Callins: p.CallinSymbols(), Callbacks: p.OutputCallbacks(),
		Bound: p.Bound, BoundAuto: p.BoundAuto, BoundMax: engine.DefaultAutoMax, BoundCountsEvery: p.BoundCountsEvery,
		Purpose:    &model.PurposeInfo{Name: p.Name, Class: p.Class, File: p.File, Fingerprint: p.Fingerprint(), Parameters: p.Values},
		RestrictAt: restrictAt(p),
	}
	b, err := startBackend(ctx, p, read, o)
	if err != nil {
		return nil, err
	}
	t.Backend = b.info
	plan, err := NewPlan(t, Rules(p.Restrictions), Mapping(p), b.executors)
	if err != nil {
		closeAll(b.executors)
		return nil, err
	}
	plan.Model, plan.Virtual = b.model, b.virtual
	plan.sched.Virtual = plan.Virtual
	if p.Target != nil && p.Target.Dispose != nil {
		plan.sched.Dispose = p.Target.Dispose.Method
	}
	plan.sched.Ignore = p.Ignores
	plan.keyParts = purposeKeyParts(p, b, o)
	plan.quiescence, plan.backend, plan.quiescenceFrom = p.Timeouts.Quiescence, p.Backend.Kind, "the purpose's timeouts.quiescence"
	return plan, nil
}

// restrictAt says where in the purpose file a restriction goes: under
// its restrictions, or in a new list before backend (a key every purpose
// has); "" for a purpose read from no file.
func restrictAt(p *purpose.Purpose) string {
	switch {
	case p.File == "":
		return ""
	case p.RestrictionsPos.Line > 0:
		return fmt.Sprintf("under restrictions: at %s:%d", p.File, p.RestrictionsPos.Line)
	case p.BackendPos.Line > 0:
		return fmt.Sprintf("in a new top-level restrictions: list in %s (before backend:, line %d)", p.File, p.BackendPos.Line)
	}
	return "in a new top-level restrictions: list in " + p.File
}

// bound refuses a purpose whose parameters have no values yet: its
// {param: NAME} literals would reach a harness, which knows no such
// literal, or a resolver. The callers bind first (run, check); this is the
// one place that every purpose passes on its way to a backend.
func bound(p *purpose.Purpose) error {
	if p.Unbound() {
		return fmt.Errorf("%s: the purpose's parameters (%s) have no values: bind them first (purpose.Bind)", p.File, strings.Join(p.ParamNames(), ", "))
	}
	return nil
}

// purposeKeyParts are the store key's parts a purpose determines. The
// bound and the restrictions are left out: they choose which queries run,
// not what a query answers.
func purposeKeyParts(p *purpose.Purpose, b started, o BackendOptions) map[string]string {
	q := *p.Unbind()
	q.Bound, q.BoundAuto, q.BoundCountsEvery, q.Restrictions = 0, false, false, nil
	parts := map[string]string{
		store.PartPurpose:  q.Fingerprint(),
		store.PartTimeouts: fmt.Sprintf("quiescence %s, settle %s, post-reset %s", p.Timeouts.Quiescence, p.Timeouts.Settle, p.Timeouts.PostReset),
		store.PartModel:    b.modelDigest,
	}
	if len(p.Values) > 0 {
		// Apart from the purpose's part, so that the store can say it is
		// the values that differ (another paired device, another URL).
		var vals []string
		for _, name := range slices.Sorted(maps.Keys(p.Values)) {
			vals = append(vals, fmt.Sprintf("%s=%q", name, p.Values[name]))
		}
		parts[store.PartParameters] = strings.Join(vals, " ")
	}
	if s := p.Backend.Sim; p.Backend.Kind == purpose.BackendSim && o.LatencySeed != 0 && (len(s.LatencyMax) > 0 || s.DefaultLatencyMax > 0) {
		// The draws decide which callbacks come too late, so what a query
		// answers (the ranges themselves are in the purpose's part).
		parts[store.PartTimeouts] += fmt.Sprintf(", latency seed %d", o.LatencySeed)
	}
	switch p.Backend.Kind {
	case purpose.BackendJVM:
		parts[store.PartHarness] = fmt.Sprintf("protocol %d, jar %s", harness.ProtocolVersion, store.Digest(o.JVM.Jar))
	case purpose.BackendADB:
		parts[store.PartHarness] = fmt.Sprintf("protocol %d, apk %s", harness.ProtocolVersion, store.Digest(o.ADB.APK))
	}
	return parts
}
