// Package dispatch is the pipeline's last stage: the Scheduler runs a
// batch of queries on executors (devices, harness JVMs, simulators), one
// query per executor at a time and in parallel across executors, and turns
// the output names they report into symbols of the output alphabet.
package dispatch

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/droidstar/droidstar/internal/backend"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/oracle"
)

// Scheduler spreads batches over its executors. It records, per executor,
// what ran and the assumption violations the executors report. Executors
// must answer in the output alphabet's names (a mapper in front of a
// backend translates the backend's own callback names).
type Scheduler struct {
	Executors []backend.Executor
	Inputs    *mealy.Alphabet
	Outputs   *mealy.Alphabet
	Sem       mealy.Semantics
	Recorder  *oracle.Recorder
	// serials names the executors, described once.
	serials []string
	once    sync.Once
}

// Ask implements oracle.Oracle.
func (s *Scheduler) Ask(ctx context.Context, queries []mealy.Word) ([]oracle.Answer, error) {
	if len(s.Executors) == 0 {
		return nil, errors.New("scheduler: no executors")
	}
	s.once.Do(func() {
		for _, ex := range s.Executors {
			s.serials = append(s.serials, ex.Describe().Serial)
		}
	})
	answers := make([]oracle.Answer, len(queries))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	errs := make(chan error, len(s.Executors))
	var wg sync.WaitGroup
	for k, ex := range s.Executors {
		wg.Add(1)
		go func(ex backend.Executor, serial string) {
			defer wg.Done()
			for q := range next {
				a, err := s.run(ctx, ex, serial, queries[q])
				if err != nil {
					errs <- err
					cancel()
					return
				}
				answers[q] = a
			}
		}(ex, s.serials[k])
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

func (s *Scheduler) run(ctx context.Context, ex backend.Executor, serial string, q mealy.Word) (oracle.Answer, error) {
	s.Recorder.Busy(serial, true)
	res, err := ex.Execute(ctx, s.Inputs.Strings(q))
	s.Recorder.Busy(serial, false)
	if err != nil {
		return oracle.Answer{}, fmt.Errorf("%s: query %s: %w", serial, s.Inputs.Format(q), err)
	}
	s.Recorder.Executed(ctx, serial, len(res.Outputs), res.Device)
	s.Recorder.Warn(res.Warnings...)
	a, err := s.convert(q, res)
	if err != nil {
		return oracle.Answer{}, fmt.Errorf("%s: query %s: %w", serial, s.Inputs.Format(q), err)
	}
	a.Device = serial
	return a, nil
}

// convert turns a result's output names into symbols; the outputs after
// the first err are err (the executor may stop there).
func (s *Scheduler) convert(q mealy.Word, res backend.Result) (oracle.Answer, error) {
	a := oracle.Answer{Outputs: make(mealy.Word, len(q)), ErrAt: -1}
	if len(res.Outputs) > len(q) {
		return a, fmt.Errorf("backend answered %d outputs for %d inputs", len(res.Outputs), len(q))
	}
	for k, name := range res.Outputs {
		o, ok := s.Outputs.Index(name)
		if !ok {
			return a, fmt.Errorf("backend answered %q, which is not an output (outputs: %s)", name, strings.Join(s.Outputs.Names(), ", "))
		}
		a.Outputs[k] = o
		if s.Sem.Closure && o == s.Sem.Err {
			a.ErrAt, a.Err = k, res.Err
			if a.Err == nil {
				a.Err = &model.ErrInfo{Kind: model.ErrUnknown}
			}
			s.Sem.ErrFrom(a.Outputs, k+1)
			return a, nil
		}
	}
	if len(res.Outputs) < len(q) {
		return a, fmt.Errorf("backend stopped after %d of %d inputs without an err", len(res.Outputs), len(q))
	}
	return a, nil
}
