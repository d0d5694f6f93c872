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

	harnessapk "github.com/droidstar/droidstar/harness-apk"
	"github.com/droidstar/droidstar/internal/backend/jvm"
	"github.com/droidstar/droidstar/internal/resolve"
	"github.com/droidstar/droidstar/internal/shimgen"
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
	shims, cleanup, err := shimOptions(*root, *java, cp)
	if err != nil {
		fmt.Fprintln(stderr, "checkexamples:", err)
		return 1
	}
	defer cleanup()
	outcomes, err := resolve.CheckExamples(ctx, *root, resolve.CheckOptions{
		Options:     resolve.Options{Java: *java, Classpath: cp},
		Unavailable: resolve.Unavailable,
		Getenv:      os.Getenv,
		Shims:       shims,
	})
	if err != nil {
		fmt.Fprintln(stderr, "checkexamples:", err)
		return 1
	}
	return report(outcomes, stdout)
}

// shimOptions say how to generate the shims of the examples' abstract
// listener classes as the adb backend does: the harness jar (embedded in
// this program) in a cache folder of its own, the resolver's android.jar,
// and d8 or dx from ANDROID_HOME (or ANDROID_SDK_ROOT), PATH, else the
// Debian SDK tree that `make -C harness-apk android-tools` unpacked.
func shimOptions(root, java, classpath string) (*shimgen.Options, func(), error) {
	cache, err := os.MkdirTemp("", "droidstar-checkexamples-")
	if err != nil {
		return nil, nil, err
	}
	cleanup := func() { os.RemoveAll(cache) }
	jar, err := jvm.UnpackJar(harnessapk.JVMJar, filepath.Join(cache, "droidstar"))
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	if java == "" {
		java = "java"
	}
	var androidJar string
	for _, e := range filepath.SplitList(classpath) {
		if filepath.Base(e) == "android.jar" {
			androidJar = e
		}
	}
	sdk := os.Getenv("ANDROID_HOME")
	if sdk == "" {
		sdk = os.Getenv("ANDROID_SDK_ROOT")
	}
	_, dexer := shimgen.FindAndroidSDK(sdk)
	if dexer == nil {
		_, dexer = shimgen.FindAndroidSDK(filepath.Join(root, "harness-apk", "build", "android", "root", "usr", "lib", "android-sdk"))
	}
	return &shimgen.Options{Java: java, HarnessJar: jar, CacheDir: filepath.Join(cache, "droidstar"),
		Platform: shimgen.Android, AndroidJar: androidJar, Dexer: dexer}, cleanup, nil
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
