package main

import (
	"archive/zip"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// javac compiles Java sources (file name -> text) for a release and
// returns the classes folder.
func javac(t *testing.T, release string, sources map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("javac"); err != nil {
		t.Skip("no javac on PATH: these tests compile real class files")
	}
	dir := t.TempDir()
	src, out := filepath.Join(dir, "src"), filepath.Join(dir, "classes")
	args := []string{"-encoding", "UTF-8", "--release", release, "-Xlint:-options", "-d", out}
	for name, text := range sources {
		p := filepath.Join(src, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, p)
	}
	if b, err := exec.Command("javac", args...).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, b)
	}
	return out
}

// jar zips a classes folder.
func jar(t *testing.T, classes string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "lib.jar")
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	err := filepath.Walk(classes, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(classes, p)
		w, err := z.Create(filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	})
	if err == nil {
		err = z.Close()
	}
	if err == nil {
		err = os.WriteFile(path, buf.Bytes(), 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// tricky is a method body whose instructions have every kind of operand a
// naive byte search or a wrong length table would trip over: 0xba as an
// operand (bipush -70, sipush 186), a tableswitch and a lookupswitch at
// each padding, and wide loads and iinc (more than 256 locals).
func tricky(name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "    static int %s(int x) {\n        int r = -70;\n        r += 186;\n", name)
	for i := 0; i < 4; i++ {
		fmt.Fprintf(&b, "        switch (x + %d) { case 1: r++; break; case 2: r--; break; case 3: r += 2; break; default: r = 0; }\n", i)
		fmt.Fprintf(&b, "        switch (x) { case 10: r++; break; case 1000: r--; break; case 100000: r += 3; break; }\n")
		fmt.Fprintf(&b, "        int pad%d = r;\n", i)
	}
	for i := 0; i < 260; i++ {
		fmt.Fprintf(&b, "        int v%d = x;\n", i)
	}
	b.WriteString("        v259 += 1000;\n        return r + v259;\n    }\n")
	return b.String()
}

var sources = map[string]string{
	"p/Lambdas.java": "package p;\n\npublic class Lambdas {\n" + tricky("before") +
		"    public Runnable make(final String s) {\n        before(1);\n        return () -> System.out.println(s);\n    }\n" +
		"    public static Runnable ref() {\n        return System.out::println;\n    }\n" +
		"    static final Runnable R = () -> { };\n" +
		tricky("after") + "}\n",
	"p/Plain.java": "package p;\n\n/** Java 7 level: an anonymous class instead of a lambda. */\npublic class Plain {\n" + tricky("body") +
		"    public Runnable make(final String s) {\n        return new Runnable() {\n            public void run() {\n                System.out.println(s);\n            }\n        };\n    }\n}\n",
}

func TestLambdasAreRefusedWithClassAndMethod(t *testing.T) {
	classes := javac(t, "8", sources)
	lib := jar(t, classes)
	for _, in := range []string{lib, classes} {
		var stderr bytes.Buffer
		code := run([]string{in}, &stderr)
		want := "dexcheck: " + in + " runs invokedynamic (Java 8 lambdas or method references) in 3 methods, which dx cannot turn into dex that runs on Android:\n" +
			"  p.Lambdas: make(java.lang.String)\n" +
			"  p.Lambdas: ref()\n" +
			"  p.Lambdas: static initialiser\n" +
			"dx refuses invokedynamic below --min-sdk-version 26; from 26 on it writes calls to LambdaMetafactory.metafactory,\n" +
			"which Android does not have (NoSuchMethodError at run time), in dex version 038, which Android 7 does not load.\n" +
			Fix + "\n"
		if code != 1 || stderr.String() != want {
			t.Errorf("%s: exit %d\n%s\nwant exit 1\n%s", in, code, stderr.String(), want)
		}
	}
}

// Java 7's constructs (an anonymous class for the lambda) pass. They are
// compiled with --release 8: javac 20 and later cannot write Java 7 class
// files, and what dx needs is the absence of invokedynamic, not the version.
func TestClassesWithoutInvokedynamicPass(t *testing.T) {
	classes := javac(t, "8", map[string]string{"p/Plain.java": sources["p/Plain.java"]})
	plain := filepath.Join(classes, "p", "Plain.class")
	for _, in := range []string{jar(t, classes), classes, plain} {
		var stderr bytes.Buffer
		if code := run([]string{in}, &stderr); code != 0 || stderr.Len() != 0 {
			t.Errorf("%s: exit %d: %s", in, code, stderr.String())
		}
	}
	// Several inputs: only the one with lambdas is named.
	lambdas := javac(t, "8", sources)
	var stderr bytes.Buffer
	if code := run([]string{plain, lambdas}, &stderr); code != 1 || !strings.HasPrefix(stderr.String(), "dexcheck: "+lambdas+" runs invokedynamic") {
		t.Errorf("exit %d: %s", code, stderr.String())
	}
}

func TestMoreThanTwelveMethodsAreCounted(t *testing.T) {
	var b strings.Builder
	b.WriteString("package q;\n\npublic class Many {\n")
	for i := 0; i < 14; i++ {
		fmt.Fprintf(&b, "    public Runnable m%02d() {\n        return () -> { };\n    }\n", i)
	}
	b.WriteString("}\n")
	classes := javac(t, "8", map[string]string{"q/Many.java": b.String()})
	var stderr bytes.Buffer
	code := run([]string{classes}, &stderr)
	lines := strings.Split(stderr.String(), "\n")
	if code != 1 || len(lines) < 15 || lines[0] != "dexcheck: "+classes+" runs invokedynamic (Java 8 lambdas or method references) in 14 methods, which dx cannot turn into dex that runs on Android:" ||
		lines[1] != "  q.Many: m00()" || lines[12] != "  q.Many: m11()" || lines[13] != "  ... and 2 more" {
		t.Errorf("exit %d:\n%s", code, stderr.String())
	}
}

func TestUnreadableInputs(t *testing.T) {
	dir := t.TempDir()
	notJar := filepath.Join(dir, "notes.txt")
	badClass := filepath.Join(dir, "Bad.class")
	os.WriteFile(notJar, []byte("hello"), 0o644)
	os.WriteFile(badClass, []byte{0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 52, 0, 3, 99}, 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "usage: go run ./internal/dexcheck JAR|CLASSES-DIR|FILE.class...\n"},
		{[]string{filepath.Join(dir, "none.jar")}, "dexcheck: stat " + filepath.Join(dir, "none.jar") + ": no such file or directory\n"},
		{[]string{notJar}, "dexcheck: " + notJar + ": not a jar, a folder or a .class file\n"},
		{[]string{badClass}, "dexcheck: " + badClass + ": unknown constant-pool tag 99 at entry 1\n"},
	} {
		var stderr bytes.Buffer
		if code := run(c.args, &stderr); code != 2 || stderr.String() != c.want {
			t.Errorf("%v: exit %d, %q; want exit 2, %q", c.args, code, stderr.String(), c.want)
		}
	}
}
