package matrix

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/oracle"
	"github.com/droidstar/droidstar/internal/purpose"
	"github.com/droidstar/droidstar/internal/run"
)

// Runs learns each target of a matrix as one run of Spec in Session, the
// run 'droidstar learn' makes of the same options: its Learn is a
// LearnFunc. One Stop reaches every target learning and every one that
// would start after it.
type Runs struct {
	Session *run.Session
	// Spec is the run every target learns; a target replaces its Purpose
	// (with the target's sim model or java command) and its Device.
	Spec run.Spec
	// Log gets a line as each target starts learning.
	Log io.Writer

	stops    stopGroup
	executed atomic.Int64
	mu       sync.Mutex
	votes    map[string]error // the targets' unsettled votes, by name
}

// Learn learns target t of purpose p: a LearnFunc.
func (m *Runs) Learn(ctx context.Context, p *purpose.Purpose, t Target) (*model.Document, error) {
	spec := m.Spec
	spec.Purpose, spec.Device = p, t.Device
	r, err := m.Session.Start(ctx, spec, t.Name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	leave := m.stops.join(r.Stop)
	defer leave()
	// After joining: a stop from now on ends this target gently.
	if m.Log != nil {
		fmt.Fprintf(m.Log, "droidstar: %s: learning\n", t.Name)
	}
	out, err := r.Learn(ctx, nil)
	m.executed.Add(int64(r.Executed()))
	var ve *oracle.VoteError
	if errors.As(err, &ve) {
		m.mu.Lock()
		if m.votes == nil {
			m.votes = map[string]error{}
		}
		m.votes[t.Name] = err
		m.mu.Unlock()
	}
	return out.Document, err
}

// Stop stops every target learning, and those that would start after it.
func (m *Runs) Stop() { m.stops.stop() }

// Stopped says whether Stop was called (Spec.Stopped).
func (m *Runs) Stopped() bool { return m.stops.isStopped() }

// Executed is how many queries the targets' devices ran.
func (m *Runs) Executed() int { return int(m.executed.Load()) }

// Unsettled is the error of target name's vote that re-running could not
// settle, nil when it had none.
func (m *Runs) Unsettled(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.votes[name]
}

// stopGroup carries one stop to runs that start one after another or side
// by side (a matrix's targets): those running stop dispatching, and one
// that joins after the stop is stopped as it joins.
type stopGroup struct {
	mu      sync.Mutex
	stopped bool
	next    int
	runs    map[int]func()
}

// stop stops every run of the group, and those that join later.
func (g *stopGroup) stop() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.stopped = true
	for _, stop := range g.runs {
		stop()
	}
}

// join adds a run that stop stops; leave takes it out once it is over.
func (g *stopGroup) join(stop func()) (leave func()) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopped {
		stop()
		return func() {}
	}
	if g.runs == nil {
		g.runs = map[int]func(){}
	}
	id := g.next
	g.next++
	g.runs[id] = stop
	return func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		delete(g.runs, id)
	}
}

// isStopped says whether stop was called.
func (g *stopGroup) isStopped() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.stopped
}
