// Package jvmtest holds what tests that run the real Java harness need,
// so each is written once. It does not import package jvm, whose own
// tests use it.
package jvmtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Java is the java command the jvm backend runs when none is configured
// (as jvm.FindJava finds it: JAVA_HOME's bin/java, else java on PATH). It
// skips the test when there is none: the real harness cannot run. CI
// installs Java, so there these tests always run.
func Java(t testing.TB) string {
	t.Helper()
	if home := os.Getenv("JAVA_HOME"); home != "" {
		p := filepath.Join(home, "bin", "java")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	p, err := exec.LookPath("java")
	if err != nil {
		t.Skip("no JVM here: java is not on PATH and JAVA_HOME has no bin/java; the jvm harness tests need Java 8 or later")
	}
	return p
}

// Jar compiles the Java sources under src (for Java 8, with the javac
// beside Java's java, else on PATH) into a jar named name in a fresh
// temporary folder, and returns that folder. It skips the test when there
// is no javac.
func Jar(t testing.TB, src, name string) string {
	t.Helper()
	javac := filepath.Join(filepath.Dir(Java(t)), "javac")
	if _, err := os.Stat(javac); err != nil {
		if javac, err = exec.LookPath("javac"); err != nil {
			t.Skip("no javac here: this test compiles its own class")
		}
	}
	var sources []string
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(path) == ".java" {
			sources = append(sources, path)
		}
		return err
	})
	if err != nil || len(sources) == 0 {
		t.Fatalf("no Java sources under %s (%v)", src, err)
	}
	dir := t.TempDir()
	classes := filepath.Join(dir, "classes")
	args := append([]string{"--release", "8", "-d", classes}, sources...)
	if out, err := exec.Command(javac, args...).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	jar := filepath.Join(filepath.Dir(javac), "jar")
	if out, err := exec.Command(jar, "cf", filepath.Join(dir, name), "-C", classes, ".").CombinedOutput(); err != nil {
		t.Fatalf("jar: %v\n%s", err, out)
	}
	return dir
}
