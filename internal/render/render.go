// Package render turns DOT into SVG without a system Graphviz, by running
// the droidstar-render helper (cmd/droidstar-render), which holds Graphviz
// compiled to WebAssembly (github.com/goccy/go-graphviz, run by wazero).
//
// Why a separate program: go-graphviz compiles its 1.5 MB WebAssembly
// module in a package init function, and Go runs the init of every linked
// package at start-up, before main, whatever the command. Linked into
// droidstar, that cost every command, --help included, about 0.75 s on a
// fresh $TMPDIR and 35 ms with wazero's compilation cache warm (plus a
// 6 MB cache, which the helper keeps in the user's cache folder: package
// gvcache). This package imports none of it; only the helper does
// (package gvwasm), and a test checks that cmd/droidstar does not link it.
package render

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Helper is the name of the helper program.
const Helper = "droidstar-render"

// EnvHelper names an environment variable that, when set, is the path of
// the helper to run.
const EnvHelper = "DROIDSTAR_RENDER"

// ErrNoHelper is returned (wrapped) when the helper cannot be found.
var ErrNoHelper = errors.New(Helper + " not found")

// Find returns the helper's path: $DROIDSTAR_RENDER if set, else
// droidstar-render next to the running executable (where 'make build' and
// 'go install ./cmd/...' put it), else droidstar-render on $PATH.
func Find() (string, error) {
	exe := Helper
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	if p := os.Getenv(EnvHelper); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%w: $%s is %s: %v", ErrNoHelper, EnvHelper, p, err)
		}
		return p, nil
	}
	if self, err := os.Executable(); err == nil {
		if resolved, err := filepath.EvalSymlinks(self); err == nil {
			self = resolved
		}
		p := filepath.Join(filepath.Dir(self), exe)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	if p, err := exec.LookPath(exe); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("%w next to droidstar or on $PATH: SVG output needs it "+
		"(make build, or go install github.com/droidstar/droidstar/cmd/droidstar-render); "+
		"without it, write DOT and run Graphviz's dot -Tsvg", ErrNoHelper)
}

// SVG renders a DOT graph as SVG with the helper. The same DOT gives the
// same bytes (the helper's Graphviz is pinned by go.mod).
func SVG(ctx context.Context, dot []byte) ([]byte, error) {
	path, err := Find()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, path)
	cmd.Stdin = bytes.NewReader(dot)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("%s: %s", Helper, msg)
	}
	return stdout.Bytes(), nil
}
