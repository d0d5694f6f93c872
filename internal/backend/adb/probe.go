package adbclient

import (
	"context"
	"fmt"

	"github.com/droidstar/droidstar/internal/adbclient"
	"github.com/droidstar/droidstar/internal/harness"
)

// StartHarness starts the harness on a device as Start does (installed
// when missing or different, the runtime permissions among perms granted,
// files staged in a fresh run folder, the instrumentation started, hello
// said) but configures no purpose: droidstar doctor probes the device
// with it. Close ends it as it ends a learning run.
func StartHarness(ctx context.Context, dev *adbclient.Device, o Options, perms []string, files []harness.StagedFile) (_ *Executor, err error) {
	serial := dev.Serial()
	props, err := dev.Properties(ctx)
	if err != nil {
		return nil, fmt.Errorf("device %s: read its properties: %w", serial, err)
	}
	e := &Executor{dev: dev, info: Describe(serial, props), opts: o}
	if e.user, err = CurrentUser(ctx, dev, e.info.SDK); err != nil {
		return nil, err
	}
	e.info.User = &e.user
	if _, err := EnsureHarness(ctx, dev, o.APK, o.Log); err != nil {
		return nil, err
	}
	if err := e.grant(ctx, perms); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			if e.client != nil {
				e.client.Close()
			}
			e.cleanup()
		}
	}()
	if err := e.stage(ctx, files); err != nil {
		return nil, err
	}
	if err := e.start(ctx, e.socket); err != nil {
		return nil, err
	}
	return e, nil
}

// Probe asks the harness what the device lets it do (PROTOCOL.md, probe).
func (e *Executor) Probe(ctx context.Context, req harness.ProbeRequest) (harness.ProbeResult, error) {
	r, err := e.client.Probe(ctx, req)
	if err != nil && ctx.Err() == nil {
		return r, e.explain(ctx, err)
	}
	return r, err
}

// Hello is what the harness said it is.
func (e *Executor) Hello() harness.Hello { return e.hello }
