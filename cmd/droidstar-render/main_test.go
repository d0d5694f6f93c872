package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const dot = "digraph { a -> b [label=\"x\"]; }\n"

func TestRun(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(nil, strings.NewReader(dot), &out, &errb); code != 0 || !strings.Contains(out.String(), "<svg") || errb.Len() != 0 {
		t.Fatalf("stdin to stdout: exit %d, stderr %q", code, errb.String())
	}
	dir := t.TempDir()
	in, svg := filepath.Join(dir, "g.dot"), filepath.Join(dir, "g.svg")
	os.WriteFile(in, []byte(dot), 0o644)
	if code := run([]string{"-o", svg, in}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("file to file: exit %d: %s", code, errb.String())
	}
	if data, _ := os.ReadFile(svg); !bytes.Equal(data, out.Bytes()) {
		t.Fatalf("file output differs from stdout output")
	}
	errb.Reset()
	if code := run(nil, strings.NewReader("digraph {"), &out, &errb); code != 1 || !strings.HasPrefix(errb.String(), "droidstar-render: reading DOT:") {
		t.Fatalf("bad DOT: exit %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	if code := run([]string{"a", "b"}, nil, &out, &errb); code != 2 || !strings.Contains(errb.String(), "usage: droidstar-render") {
		t.Fatalf("two files: exit %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	if code := run([]string{"-h"}, nil, &out, &errb); code != 0 || !strings.Contains(errb.String(), "Graphviz 12.1.2") {
		t.Fatalf("-h: exit %d, stderr %q", code, errb.String())
	}
}
