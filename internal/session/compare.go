package session

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/oracle"
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
	t := plan.Target
	target := plan.Model.Machine
	closure := t.Semantics == model.SemanticsClosure
	sem := oracle.PlainSemantics()
	if closure {
		sem = oracle.ClosureSemantics(t.Inputs, t.Outputs)
	}
	filter, err := oracle.NewFilter(nil, t.Inputs, sem, t.Restrictions, &oracle.Stats{})
	if err != nil {
		return nil, false, err
	}
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
	type state struct {
		q, s       int
		afterQuiet bool
		dead       bool
		filter     string
		fs         oracle.FilterState
	}
	key := func(x state) string {
		return fmt.Sprintf("%d/%d/%t/%t/%s", x.q, x.s, x.afterQuiet, x.dead, x.filter)
	}
	fsKey := func(fs oracle.FilterState) string {
		parts := make([]string, len(fs))
		for k, n := range fs {
			parts[k] = strconv.Itoa(n)
		}
		return strings.Join(parts, ",")
	}
	// expect is what the purpose sees from the model on input i in x.
	expect := func(x state, i int) (out string, next state, err error) {
		next = x
		if x.dead {
			return mealy.Err, next, nil
		}
		if closure {
			fs, ok, _ := filter.Step(x.fs, i)
			if !ok {
				next.dead = true
				return mealy.Err, next, nil
			}
			next.fs, next.filter = fs, fsKey(fs)
			if i == sem.Wait && x.afterQuiet {
				return mealy.Quiet, next, nil
			}
		}
		mi := inMap[i]
		name := target.Outputs.Name(target.Out[x.s][mi])
		next.s = target.Next[x.s][mi]
		if !closure {
			return name, next, nil
		}
		next.afterQuiet = i == sem.Wait && name == mealy.Quiet
		switch name {
		case mealy.OK, mealy.Quiet:
			return name, next, nil
		case mealy.Err:
			next.dead = true
			return name, next, nil
		}
		sym, isErr, ok := name, false, true
		if t.Map != nil {
			sym, isErr, ok = t.Map(name)
		}
		if !ok {
			return "", next, fmt.Errorf("the model emits %q, which the purpose does not declare", name)
		}
		if isErr {
			next.dead = true
			return mealy.Err, next, nil
		}
		return sym, next, nil
	}
	start := state{q: learned.Initial, s: target.Initial, fs: filter.Start()}
	start.filter = fsKey(start.fs)
	seen := visits{key(start): {in: -1}}
	queue := []state{start}
	path := func(x state, last int) mealy.Word {
		rev := mealy.Word{last}
		for k := key(x); seen[k].in >= 0; k = seen[k].from {
			rev = append(rev, seen[k].in)
		}
		for l, r := 0, len(rev)-1; l < r; l, r = l+1, r-1 {
			rev[l], rev[r] = rev[r], rev[l]
		}
		return rev
	}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		for i := 0; i < t.Inputs.Size(); i++ {
			want, next, err := expect(x, i)
			if err != nil {
				return nil, false, err
			}
			if got := learned.Outputs.Name(learned.Out[x.q][i]); got != want {
				return path(x, i), true, nil
			}
			next.q = learned.Next[x.q][i]
			if next.dead {
				next.s, next.afterQuiet, next.filter, next.fs = 0, false, "", nil
			}
			if k := key(next); !seen.has(k) {
				seen[k] = visit{from: key(x), in: i}
				queue = append(queue, next)
			}
		}
	}
	return nil, false, nil
}

// visits records how the product search first reached each state.
type visits map[string]visit

type visit struct {
	from string
	in   int
}

func (v visits) has(k string) bool {
	_, ok := v[k]
	return ok
}
