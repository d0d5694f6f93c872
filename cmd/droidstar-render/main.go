// Command droidstar-render turns Graphviz DOT into SVG with Graphviz
// compiled to WebAssembly, so that droidstar draws typestates on machines
// without Graphviz. droidstar runs it for 'export --format svg' and
// 'learn --svg'; it is a separate program so that go-graphviz's start-up
// work (compiling its WebAssembly module at package init) is paid only by
// the commands that render.
//
// Usage:
//
//	droidstar-render [-o out.svg] [in.dot]
//
// It reads the DOT from in.dot (default stdin) and writes the SVG to out.svg
// (default stdout).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/droidstar/droidstar/internal/render/gvwasm"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("droidstar-render", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "write the SVG to this file (default stdout)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: droidstar-render [-o out.svg] [in.dot]\n\n"+
			"Renders Graphviz DOT as SVG with Graphviz %s compiled to WebAssembly\n"+
			"(no system Graphviz needed). droidstar runs it for 'export --format svg'\n"+
			"and 'learn --svg'.\n\n", gvwasm.GraphvizVersion)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if fs.NArg() > 1 {
		fs.Usage()
		return 2
	}
	var dot []byte
	var err error
	if fs.NArg() == 1 && fs.Arg(0) != "-" {
		dot, err = os.ReadFile(fs.Arg(0))
	} else {
		dot, err = io.ReadAll(stdin)
	}
	if err != nil {
		fmt.Fprintf(stderr, "droidstar-render: %v\n", err)
		return 1
	}
	svg, err := gvwasm.SVG(context.Background(), dot)
	if err != nil {
		fmt.Fprintf(stderr, "droidstar-render: %v\n", err)
		return 1
	}
	if *out == "" || *out == "-" {
		_, err = stdout.Write(svg)
	} else {
		err = os.WriteFile(*out, svg, 0o644)
	}
	if err != nil {
		fmt.Fprintf(stderr, "droidstar-render: %v\n", err)
		return 1
	}
	return 0
}
