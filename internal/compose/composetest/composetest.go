// Package composetest learns the embedded examples for other packages'
// tests: on the simulator, with a virtual clock and a fixed date, so that
// golden files of exports and reports stay put.
package composetest

import (
	"context"
	"time"

	"github.com/droidstar/droidstar/examples"
	"github.com/droidstar/droidstar/internal/compose"
	"github.com/droidstar/droidstar/internal/engine"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/purpose"
)

// LearnedAt is the date every model learned here carries.
var LearnedAt = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

// LearnExample learns an embedded example on its sim backend, as
// 'droidstar learn --example NAME' does, with tool version "test". The
// purpose's fingerprint, which changes with every edit of the purpose, is
// replaced by a placeholder.
func LearnExample(name string) (*model.Document, error) {
	p, err := examples.Purpose(name)
	if err != nil {
		return nil, err
	}
	if err := p.Backend.Use(purpose.BackendSim); err != nil {
		return nil, err
	}
	ctx := context.Background()
	plan, err := compose.FromPurpose(ctx, p, examples.ReadFile, compose.BackendOptions{})
	if err != nil {
		return nil, err
	}
	defer plan.Close()
	res, err := engine.Run(ctx, plan.Job, engine.Options{
		VirtualClock: true, ToolVersion: "test",
		Now: func() time.Time { return LearnedAt },
	})
	if err != nil {
		return nil, err
	}
	d := res.Document
	d.Purpose.Fingerprint = "sha256:(the purpose's)"
	return d, nil
}
