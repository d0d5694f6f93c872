package render_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/render"
	"github.com/droidstar/droidstar/internal/render/gvwasm"
	"github.com/droidstar/droidstar/internal/render/rendertest"
)

const dot = `digraph T { rankdir=LR; a -> b [label="x"]; b -> a [label="y", color="blue:invis:blue"]; }`

// The helper droidstar runs gives exactly the bytes of an in-process
// rendering, so the golden SVGs of internal/export (rendered in-process)
// are what users get.
func TestHelperRendersLikeInProcess(t *testing.T) {
	helper := rendertest.Helper(t)
	t.Setenv(render.EnvHelper, helper)
	if p, err := render.Find(); err != nil || p != helper {
		t.Fatalf("Find = %q, %v; want %q", p, err, helper)
	}
	got, err := render.SVG(context.Background(), []byte(dot))
	if err != nil {
		t.Fatal(err)
	}
	want, err := gvwasm.SVG(context.Background(), []byte(dot))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the helper's SVG differs from the in-process one:\n%s\n---\n%s", got, want)
	}
	_, err = render.SVG(context.Background(), []byte("digraph { a -> "))
	if err == nil || !strings.HasPrefix(err.Error(), "droidstar-render: droidstar-render: reading DOT: syntax error") {
		t.Fatalf("bad DOT: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := render.SVG(ctx, []byte(dot)); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}

func TestFind(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses a shell script as the helper")
	}
	dir := t.TempDir()
	fake := filepath.Join(dir, render.Helper)
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho 'no good' >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}

	// $DROIDSTAR_RENDER wins, and must exist.
	t.Setenv(render.EnvHelper, filepath.Join(dir, "missing"))
	if _, err := render.Find(); !errors.Is(err, render.ErrNoHelper) || !strings.Contains(err.Error(), "$DROIDSTAR_RENDER") {
		t.Fatalf("missing $DROIDSTAR_RENDER: %v", err)
	}
	t.Setenv(render.EnvHelper, fake)
	if p, err := render.Find(); err != nil || p != fake {
		t.Fatalf("Find = %q, %v", p, err)
	}
	// The helper's complaint is the error.
	if _, err := render.SVG(context.Background(), []byte(dot)); err == nil || err.Error() != "droidstar-render: no good" {
		t.Fatalf("failing helper: %v", err)
	}

	// Then $PATH (the test binary's directory has no helper).
	t.Setenv(render.EnvHelper, "")
	t.Setenv("PATH", dir)
	if p, err := render.Find(); err != nil || p != fake {
		t.Fatalf("Find on $PATH = %q, %v", p, err)
	}
	t.Setenv("PATH", t.TempDir())
	_, err := render.Find()
	if !errors.Is(err, render.ErrNoHelper) || !strings.Contains(err.Error(), "go install github.com/droidstar/droidstar/cmd/droidstar-render") {
		t.Fatalf("no helper: %v", err)
	}
}
