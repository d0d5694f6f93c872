package adb

import (
	"context"

	"github.com/droidstar/droidstar/internal/adbclient"
	"github.com/droidstar/droidstar/internal/harness"
)

// StartHarness starts the harness on a device as Start does (installed
// when missing or different, the runtime permissions among perms granted,
// files staged in a fresh run folder, the instrumentation started, hello
// said) but configures no purpose: droidstar doctor probes the device
// with it. Close ends it as it ends a learning run.
func StartHarness(ctx context.Context, dev *adbclient.Device, o Options, perms []string, files []harness.StagedFile) (*Executor, error) {
	return open(ctx, dev, o, perms, files, nil, budget{})
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
