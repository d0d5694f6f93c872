// Command checkexamples resolves the device purposes of examples/ on the
// host JVM against android.jar (API 23) and their jars' class files
// (package resolve), one line per purpose, and exits 1 when one fails. A
// purpose's parameters take their values from DROIDSTAR_SET_NAME, as
// learn's do.
// `make check-device-purposes` runs it from the repository's root:
//
//	go run ./internal/resolve/checkexamples [-root DIR]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/droidstar/droidstar/internal/resolve"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("checkexamples", flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("root", ".", "the repository's root")
	java := fs.String("java", "", "the java command (default: java on PATH)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cp, err := resolve.Build(ctx, filepath.Join(*root, "harness-apk"))
	if err != nil {
		fmt.Fprintln(stderr, "checkexamples:", err)
		return 1
	}
	outcomes, err := resolve.CheckExamples(ctx, *root, resolve.CheckOptions{
		Options:     resolve.Options{Java: *java, Classpath: cp},
		Unavailable: resolve.Unavailable,
		Getenv:      os.Getenv,
	})
	if err != nil {
		fmt.Fprintln(stderr, "checkexamples:", err)
		return 1
	}
	return report(outcomes, stdout)
}

// report prints one line per purpose (the errors in full) and a total, and
// returns the exit code.
func report(outcomes []resolve.Outcome, w io.Writer) int {
	var resolved, skipped, failed int
	for _, o := range outcomes {
		switch {
		case o.Err != nil:
			failed++
			fmt.Fprintf(w, "FAIL %s\n%s\n", o.File, o.Err)
		case o.Skipped != "":
			skipped++
			fmt.Fprintf(w, "skip %s: %s\n", o.File, o.Skipped)
		default:
			resolved++
			shims := ""
			if len(o.Shims) > 0 {
				shims = " (shims: " + strings.Join(o.Shims, ", ") + ")"
			}
			fmt.Fprintf(w, "ok   %s%s\n", o.File, shims)
		}
	}
	fmt.Fprintf(w, "device purposes against android.jar (API 23): %d resolved, %d skipped, %d failed\n", resolved, skipped, failed)
	if failed > 0 {
		return 1
	}
	return 0
}
