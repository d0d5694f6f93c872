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
