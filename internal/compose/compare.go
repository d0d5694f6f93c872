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
	if plan.Model == nil {
		return nil, false, fmt.Errorf("the plan has no simulated model to compare with")
	}
	t := plan.Job.Target
	target := plan.Model.Machine
	closure := t.Semantics == model.SemanticsClosure
	// Stated here on its own on purpose (not with mealy.Semantics), so that
	// a mistake in the pipeline's statement of the rules shows up as a
	// disagreement instead of being repeated.
	wait := -1
	if closure {
		wait, _ = t.Inputs.Index(mealy.Wait)
	}
	filter := plan.Rules
	inMap := make([]int, t.Inputs.Size())
	for i := range inMap {
		j, ok := target.Inputs.Index(t.Inputs.Name(i))
		if !ok {
			return nil, false, fmt.Errorf("the model has no input %q", t.Inputs.Name(i))
		}
		inMap[i] = j
	}
	if !learned.Inputs.Equal(t.Inputs) {
		return nil, false, fmt.Errorf("the learned machine's inputs differ from the target's")
	}
	// A product state; filter names a restriction state kept in filters,
	// so that the state stays comparable.
	type state struct {
		q, s       int
		afterQuiet bool
		dead       bool
		filter     string
	}
	filters := map[string]restrict.State{}
	fsKey := func(fs restrict.State) string {
		parts := make([]string, len(fs))
		for k, n := range fs {
			parts[k] = strconv.Itoa(n)
		}
		key := strings.Join(parts, ",")
		filters[key] = fs
		return key
	}
	// expect is what the purpose sees from the model on input i in x.
	expect := func(x state, i int) (out string, next state, err error) {
		next = x
		if x.dead {
			return mealy.Err, next, nil
		}
		if closure {
			fs, ok, _ := filter.Step(filters[x.filter], i)
			if !ok {
				next.dead = true
				return mealy.Err, next, nil
			}
			next.filter = fsKey(fs)
			if i == wait && x.afterQuiet {
				return mealy.Quiet, next, nil
			}
		}
		mi := inMap[i]
		name := target.Outputs.Name(target.Out[x.s][mi])
		next.s = target.Next[x.s][mi]
		if !closure {
			return name, next, nil
		}
		next.afterQuiet = i == wait && name == mealy.Quiet
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
	start := state{q: learned.Initial, s: target.Initial, filter: fsKey(filter.Start())}
	return mealy.ShortestDifference(start, t.Inputs.Size(), func(x state, i int) (state, bool, error) {
		want, next, err := expect(x, i)
		if err != nil {
			return x, false, err
		}
		if learned.Outputs.Name(learned.Out[x.q][i]) != want {
			return x, true, nil
		}
		next.q = learned.Next[x.q][i]
		if next.dead {
			// After an err only the learned side matters.
			next.s, next.afterQuiet, next.filter = 0, false, ""
		}
		return next, false, nil
	})
}
