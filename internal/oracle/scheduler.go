package oracle

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/droidstar/droidstar/internal/backend"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
)

// OutputMap turns an output name reported by a backend into an output
// symbol. isErr marks an error callback (answered err). ok is false for a
// name the purpose does not know.
type OutputMap func(name string) (symbol string, isErr, ok bool)

// Scheduler runs a batch of queries on its executors, one query per
// executor at a time, in parallel across executors, and turns their named
// outputs into symbols of the output alphabet.
type Scheduler struct {
	Executors []backend.Executor
	Inputs    *mealy.Alphabet
	Outputs   *mealy.Alphabet
	Sem       Semantics
	Map       OutputMap // nil: names must be output symbols
	Stats     *Stats

	mu       sync.Mutex
	warnings []string
}

// Warnings returns the distinct assumption violations the executors reported.
func (s *Scheduler) Warnings() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.warnings...)
}

// Ask implements Oracle.
func (s *Scheduler) Ask(ctx context.Context, queries []mealy.Word) ([]Answer, error) {
	if len(s.Executors) == 0 {
		return nil, errors.New("scheduler: no executors")
	}
	answers := make([]Answer, len(queries))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	errs := make(chan error, len(s.Executors))
	var wg sync.WaitGroup
	for _, ex := range s.Executors {
		wg.Add(1)
		go func(ex backend.Executor) {
			defer wg.Done()
			for k := range next {
				a, err := s.run(ctx, ex, queries[k])
				if err != nil {
					errs <- err
					cancel()
					return
				}
				answers[k] = a
			}
		}(ex)
	}
feed:
	for k := range queries {
		select {
		case next <- k:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	select {
	case err := <-errs:
		return nil, err
	default:
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return answers, nil
}

func (s *Scheduler) run(ctx context.Context, ex backend.Executor, q mealy.Word) (Answer, error) {
	serial := ex.Describe().Serial
	s.Stats.device(serial, func(d *DeviceStats) { d.Busy = true })
	res, err := ex.Execute(ctx, s.Inputs.Strings(q))
	s.Stats.device(serial, func(d *DeviceStats) {
		d.Busy = false
		if err == nil {
			d.Executed++
			d.DeviceSecs += res.Device.Seconds()
		}
	})
	if err != nil {
		return Answer{}, fmt.Errorf("%s: query %s: %w", serial, s.Inputs.Format(q), err)
	}
	s.Stats.update(ctx, func(p *model.PhaseStats) {
		p.Executed++
		p.Symbols += len(res.Outputs)
		addDevice(p, res.Device)
	})
	if len(res.Warnings) > 0 {
		s.addWarnings(res.Warnings)
	}
	a, err := s.convert(q, res)
	if err != nil {
		return Answer{}, fmt.Errorf("%s: query %s: %w", serial, s.Inputs.Format(q), err)
	}
	a.Device = serial
	return a, nil
}

func (s *Scheduler) convert(q mealy.Word, res backend.Result) (Answer, error) {
	a := Answer{Outputs: make(mealy.Word, len(q)), ErrAt: -1}
	if len(res.Outputs) > len(q) {
		return a, fmt.Errorf("backend answered %d outputs for %d inputs", len(res.Outputs), len(q))
	}
	for k, name := range res.Outputs {
		sym, isErr := name, false
		if s.Map != nil && name != mealy.OK && name != mealy.Quiet && name != mealy.Err {
			var ok bool
			if sym, isErr, ok = s.Map(name); !ok {
				return a, fmt.Errorf("backend reported callback %q, which the purpose does not declare", name)
			}
		}
		if isErr {
			a.Outputs[k] = s.Sem.Err
			a.ErrAt, a.Err = k, &model.ErrInfo{Kind: model.ErrErrorCallback, Detail: name}
			break
		}
		o, ok := s.Outputs.Index(sym)
		if !ok {
			return a, fmt.Errorf("backend answered %q, which is not an output (outputs: %s)", name, strings.Join(s.Outputs.Names(), ", "))
		}
		a.Outputs[k] = o
		if s.Sem.Closure && o == s.Sem.Err {
			a.ErrAt, a.Err = k, res.Err
			if a.Err == nil {
				a.Err = &model.ErrInfo{Kind: model.ErrUnknown}
			}
			break
		}
	}
	if a.ErrAt >= 0 {
		for j := a.ErrAt + 1; j < len(q); j++ {
			a.Outputs[j] = s.Sem.Err
		}
		return a, nil
	}
	if len(res.Outputs) < len(q) {
		return a, fmt.Errorf("backend stopped after %d of %d inputs without an err", len(res.Outputs), len(q))
	}
	return a, nil
}

func (s *Scheduler) addWarnings(ws []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
next:
	for _, w := range ws {
		for _, have := range s.warnings {
			if have == w {
				continue next
			}
		}
		s.warnings = append(s.warnings, w)
	}
}
