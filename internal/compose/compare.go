package compose

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/oracle/mapper"
	"github.com/droidstar/droidstar/internal/oracle/restrict"
)

// Disagreement compares a learned machine with the simulated model a plan
// runs on, as the purpose sees that model: restrictions answer err, a wait
// right after a quiet answers quiet, callbacks are mapped to the purpose's
// symbols and error callbacks answer err, and everything after an err is
// err. It explores the product of the learned machine, the model and the
// restrictions breadth-first and returns a shortest input word on which they
// differ, or differ=false. This is an independent statement of the pipeline's
// semantics, so tests can check a learning run against its target exactly.
func Disagreement(learned *mealy.Machine, plan *Plan) (w mealy.Word, differ bool, err error) {
	v, err := newPurposeView(plan)
	if err != nil {
		return nil, false, err
	}
	t := plan.Job.Target
	if !learned.Inputs.Equal(t.Inputs) {
		return nil, false, fmt.Errorf("the learned machine's inputs differ from the target's")
	}
	type state struct {
		q int
		x viewState
	}
	start := state{q: learned.Initial, x: v.start()}
	return mealy.ShortestDifference(start, t.Inputs.Size(), func(x state, i int) (state, bool, error) {
		want, next, err := v.expect(x.x, i)
		if err != nil {
			return x, false, err
		}
		if learned.Outputs.Name(learned.Out[x.q][i]) != want {
			return x, true, nil
		}
		return state{q: learned.Next[x.q][i], x: next}, false, nil
	})
}

// viewState is a state of the model as the purpose sees it; filter names
// a restriction state kept in purposeView.filters, so that the state stays
// comparable.
type viewState struct {
	s          int
	afterQuiet bool
	dead       bool
	filter     string
}

// purposeView is a plan's simulated model as the purpose sees it.
type purposeView struct {
	plan    *Plan
	target  *mealy.Machine
	closure bool
	wait    int
	inMap   []int
	filters map[string]restrict.State
}

func newPurposeView(plan *Plan) (*purposeView, error) {
	if plan.Model == nil {
		return nil, fmt.Errorf("the plan has no simulated model to compare with")
	}
	t := plan.Job.Target
	v := &purposeView{plan: plan, target: plan.Model.Machine, closure: t.Semantics == model.SemanticsClosure,
		wait: -1, filters: map[string]restrict.State{}}
	// Stated here on its own on purpose (not with mealy.Semantics), so that
	// a mistake in the pipeline's statement of the rules shows up as a
	// disagreement instead of being repeated.
	if v.closure {
		v.wait, _ = t.Inputs.Index(mealy.Wait)
	}
	v.inMap = make([]int, t.Inputs.Size())
	for i := range v.inMap {
		j, ok := v.target.Inputs.Index(t.Inputs.Name(i))
		if !ok {
			return nil, fmt.Errorf("the model has no input %q", t.Inputs.Name(i))
		}
		v.inMap[i] = j
	}
	return v, nil
}

func (v *purposeView) fsKey(fs restrict.State) string {
	parts := make([]string, len(fs))
	for k, n := range fs {
		parts[k] = strconv.Itoa(n)
	}
	key := strings.Join(parts, ",")
	v.filters[key] = fs
	return key
}

func (v *purposeView) start() viewState {
	return viewState{s: v.target.Initial, filter: v.fsKey(v.plan.Rules.Start())}
}

// expect is what the purpose sees from the model on input i in x. After an
// err every state is the same dead one.
func (v *purposeView) expect(x viewState, i int) (out string, next viewState, err error) {
	out, next, err = v.step(x, i)
	if next.dead {
		next = viewState{dead: true}
	}
	return out, next, err
}

func (v *purposeView) step(x viewState, i int) (out string, next viewState, err error) {
	next = x
	if x.dead {
		return mealy.Err, next, nil
	}
	target, plan := v.target, v.plan
	if v.closure {
		fs, ok, _ := plan.Rules.Step(v.filters[x.filter], i)
		if !ok {
			next.dead = true
			return mealy.Err, next, nil
		}
		next.filter = v.fsKey(fs)
		if i == v.wait && x.afterQuiet {
			return mealy.Quiet, next, nil
		}
	}
	mi := v.inMap[i]
	name := target.Outputs.Name(target.Out[x.s][mi])
	next.s = target.Next[x.s][mi]
	if !v.closure {
		return name, next, nil
	}
	next.afterQuiet = i == v.wait && name == mealy.Quiet
	switch name {
	case mealy.OK, mealy.Quiet:
		return name, next, nil
	case mealy.Err:
		next.dead = true
		return name, next, nil
	}
	sym, kind, ok := name, mapper.Output, true
	if plan.Map != nil {
		sym, kind, ok = plan.Map(name)
	}
	if !ok {
		return "", next, fmt.Errorf("the model emits %q, which the purpose does not declare", name)
	}
	switch kind {
	case mapper.Error:
		next.dead = true
		return mealy.Err, next, nil
	case mapper.Environment:
		// Learning stops at such a query: no answer to compare.
		return "", next, fmt.Errorf("the model emits %q, which the purpose declares error: environment", name)
	}
	return sym, next, nil
}
