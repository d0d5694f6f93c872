// Command dexcheck refuses JVM class files that dx would turn into dex
// that cannot run on Android: code that runs invokedynamic (Java 8 lambdas
// and method references). Below --min-sdk-version 26 dx refuses it with a
// stack of translation errors; from 26 on it writes invoke-custom calls to
// java.lang.invoke.LambdaMetafactory.metafactory, which Android's core
// library lacks (NoSuchMethodError at the first lambda), into dex version
// 038, which Android 7 does not load at all. d8 desugars lambdas instead,
// for every API level. examples/adapter.mk runs this before dx:
//
//	go run ./internal/dexcheck JAR|CLASSES-DIR|FILE.class...
//
// It prints nothing and exits 0 when no input runs invokedynamic; else it
// names each class and method that does, says how to fix it and exits 1
// (2 for an unreadable input).
package main

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

// maxListed caps the methods named per input; the rest are counted.
const maxListed = 12

// Fix is what the refusal advises, in examples/adapter.mk's terms.
const Fix = `Fix: dex it with d8, which desugars lambdas for every API level: install an Android SDK's build-tools
and set ANDROID_HOME (examples/adapter.mk then uses the newest $ANDROID_HOME/build-tools/*/d8), or run
make D8=/path/to/d8; or use a version of the library compiled for Java 7 (no lambdas).`

func run(args []string, stderr io.Writer) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintln(stderr, "usage: go run ./internal/dexcheck JAR|CLASSES-DIR|FILE.class...")
		return 2
	}
	found := false
	for _, in := range args {
		uses, err := scan(in)
		if err != nil {
			fmt.Fprintf(stderr, "dexcheck: %v\n", err)
			return 2
		}
		if len(uses) == 0 {
			continue
		}
		found = true
		fmt.Fprintf(stderr, "dexcheck: %s runs invokedynamic (Java 8 lambdas or method references) in %d %s, which dx cannot turn into dex that runs on Android:\n",
			in, len(uses), plural(len(uses), "method", "methods"))
		for i, u := range uses {
			if i == maxListed {
				fmt.Fprintf(stderr, "  ... and %d more\n", len(uses)-maxListed)
				break
			}
			fmt.Fprintf(stderr, "  %s: %s\n", u.Class, u.Method)
		}
	}
	if !found {
		return 0
	}
	fmt.Fprintln(stderr, "dx refuses invokedynamic below --min-sdk-version 26; from 26 on it writes calls to LambdaMetafactory.metafactory,")
	fmt.Fprintln(stderr, "which Android does not have (NoSuchMethodError at run time), in dex version 038, which Android 7 does not load.")
	fmt.Fprintln(stderr, Fix)
	return 1
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// scan reads a jar (or zip), a folder of class files or one class file,
// and returns its methods that run invokedynamic, by class name, then in
// declaration order.
func scan(path string) ([]Use, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	var uses []Use
	add := func(name string, data []byte) error {
		_, u, err := scanClass(data)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", path, name, err)
		}
		uses = append(uses, u...)
		return nil
	}
	switch {
	case fi.IsDir():
		err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".class") {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return add(p, data)
		})
	case strings.HasSuffix(path, ".class"):
		var data []byte
		if data, err = os.ReadFile(path); err == nil {
			if _, uses, err = scanClass(data); err != nil {
				err = fmt.Errorf("%s: %w", path, err)
			}
		}
	default:
		err = scanZip(path, add)
	}
	if err != nil {
		return nil, err
	}
	sort.SliceStable(uses, func(i, j int) bool { return uses[i].Class < uses[j].Class })
	return uses, nil
}

func scanZip(path string, add func(string, []byte) error) error {
	z, err := zip.OpenReader(path)
	if err != nil {
		if errors.Is(err, zip.ErrFormat) {
			return fmt.Errorf("%s: not a jar, a folder or a .class file", path)
		}
		return err
	}
	defer z.Close()
	for _, f := range z.File {
		if !strings.HasSuffix(f.Name, ".class") || f.FileInfo().IsDir() {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return fmt.Errorf("%s: %s: %w", path, f.Name, err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return fmt.Errorf("%s: %s: %w", path, f.Name, err)
		}
		if err := add(f.Name, data); err != nil {
			return err
		}
	}
	return nil
}
