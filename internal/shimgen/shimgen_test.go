package shimgen_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	harnessapk "github.com/droidstar/droidstar/harness-apk"
	"github.com/droidstar/droidstar/internal/backend/jvm"
	"github.com/droidstar/droidstar/internal/backend/jvm/jvmtest"
	"github.com/droidstar/droidstar/internal/purpose"
	"github.com/droidstar/droidstar/internal/shimgen"
)

// loggerPurpose is a jvm purpose with a Handler listener (abstract: a
// shim to generate) and a Runnable one (an interface: none), and the
// callbacks given.
func loggerPurpose(t *testing.T, dir, listener string, callbacks ...string) *purpose.Purpose {
	t.Helper()
	var cbs strings.Builder
	for _, c := range callbacks {
		fmt.Fprintf(&cbs, "  - symbol: %s\n", c)
	}
	src := `name: Logger
class: java.util.logging.Logger
target:
  factory: {method: getAnonymousLogger}
  listeners:
    - type: java.lang.Runnable
    - type: ` + listener + `
      register: addHandler
callins:
  - info
callbacks:
` + cbs.String() + `timeouts: {quiescence: 100ms}
backend:
  jvm: {}
`
	file := filepath.Join(dir, "logger.yaml")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := purpose.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// countingJava is a java command that notes each run in a file before it
// runs java with extra flags in front: the tests' way to see whether the
// generator ran or the cache answered.
func countingJava(t *testing.T, flags string) (java, runs string) {
	t.Helper()
	real := jvmtest.Java(t)
	dir := t.TempDir()
	runs = filepath.Join(dir, "runs")
	java = filepath.Join(dir, "java")
	script := fmt.Sprintf("#!/bin/sh\necho run >>%q\nexec %q %s \"$@\"\n", runs, real, flags)
	if err := os.WriteFile(java, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return java, runs
}

// writeJar writes a jar holding one text file of content.
func writeJar(t *testing.T, path, content string) {
	t.Helper()
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	w, err := z.Create("note.txt")
	if err == nil {
		_, err = w.Write([]byte(content))
	}
	if err == nil {
		err = z.Close()
	}
	if err == nil {
		err = os.WriteFile(path, b.Bytes(), 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func runCount(t *testing.T, runs string) int {
	data, err := os.ReadFile(runs)
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(data), "run\n")
}

func options(t *testing.T, java string) shimgen.Options {
	t.Helper()
	cache := filepath.Join(t.TempDir(), "cache")
	jar, err := jvm.UnpackJar(harnessapk.JVMJar, cache)
	if err != nil {
		t.Fatal(err)
	}
	return shimgen.Options{Java: java, HarnessJar: jar, CacheDir: cache, Platform: shimgen.JVM}
}

// TestGenerateCachesByItsInputs: the shim of an abstract class is made
// once per inputs; the same purpose again is answered from the cache
// without running java, and a change of any input (a callback name, a
// purpose jar's content) makes it anew.
func TestGenerateCachesByItsInputs(t *testing.T) {
	java, runs := countingJava(t, "")
	o := options(t, java)
	dir := t.TempDir()
	p := loggerPurpose(t, dir, "java.util.logging.Handler", "publish")
	ctx := context.Background()
	r, err := shimgen.Generate(ctx, p, o)
	if err != nil {
		t.Fatal(err)
	}
	want := []shimgen.Shim{{Index: 1, Type: "java.util.logging.Handler",
		Class: "org.droidstar.harness.generated.java_util_logging_HandlerShim", Methods: []string{"close", "flush", "publish"}}}
	if r.Adapter != "org.droidstar.harness.generated.ShimAdapter" || !reflect.DeepEqual(r.Shims, want) {
		t.Errorf("result = %+v, want adapter ShimAdapter and %+v", r, want)
	}
	if !strings.HasPrefix(r.Jar, filepath.Join(o.CacheDir, "shims")+string(filepath.Separator)) {
		t.Errorf("jar %s is not in the cache %s", r.Jar, o.CacheDir)
	}
	if _, err := os.Stat(r.Jar); err != nil {
		t.Fatal(err)
	}
	if n := runCount(t, runs); n != 1 {
		t.Fatalf("java ran %d times, want 1", n)
	}

	again, err := shimgen.Generate(ctx, p, o)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again, r) || runCount(t, runs) != 1 {
		t.Errorf("the same inputs again: %+v after %d runs, want %+v from the cache", again, runCount(t, runs), r)
	}

	// another callback name: another key
	p2 := loggerPurpose(t, t.TempDir(), "java.util.logging.Handler", "publish", "flush")
	r2, err := shimgen.Generate(ctx, p2, o)
	if err != nil {
		t.Fatal(err)
	}
	if runCount(t, runs) != 2 || r2.Jar == r.Jar {
		t.Errorf("a new callback: %d runs, jar %s (was %s)", runCount(t, runs), r2.Jar, r.Jar)
	}

	// a purpose jar's content is an input
	lib := filepath.Join(dir, "lib.jar")
	for i, content := range []string{"one", "two"} {
		writeJar(t, lib, content)
		q := *p
		q.Jars = []purpose.File{{Name: "lib.jar", Path: lib}}
		if _, err := shimgen.Generate(ctx, &q, o); err != nil {
			t.Fatal(err)
		}
		if n := runCount(t, runs); n != 3+i {
			t.Errorf("jar content %q: java ran %d times, want %d", content, n, 3+i)
		}
	}

	// the purpose the backend configures has the jar and adapter at the end
	w := shimgen.With(p, r)
	if len(w.Jars) != 1 || w.Jars[0].Name != shimgen.JarName || w.Jars[0].Path != r.Jar ||
		!reflect.DeepEqual(w.Adapters, []string{r.Adapter}) || len(p.Jars) != 0 || len(p.Adapters) != 0 {
		t.Errorf("With: jars %+v adapters %v (the purpose's own: %+v %v)", w.Jars, w.Adapters, p.Jars, p.Adapters)
	}
}

// TestInterfacesNeedNoShim: a purpose whose listeners are interfaces or
// built-in shims gets no jar, and With leaves it as it is.
func TestInterfacesNeedNoShim(t *testing.T) {
	java, _ := countingJava(t, "")
	p := loggerPurpose(t, t.TempDir(), "java.util.TimerTask")
	r, err := shimgen.Generate(context.Background(), p, options(t, java))
	if err != nil {
		t.Fatal(err)
	}
	if r.Jar != "" || r.Adapter != "" || len(r.Shims) != 0 {
		t.Errorf("result = %+v, want none", r)
	}
	if shimgen.With(p, r) != p {
		t.Error("With changed a purpose that needs no shim")
	}
}

// TestGenerateErrorsAtTheListenerLine: what the generator refuses is told
// at the line of the listener's type, with why and what to do.
func TestGenerateErrorsAtTheListenerLine(t *testing.T) {
	real := jvmtest.Java(t)
	out, err := exec.Command(real, "-XshowSettings:properties", "-version").CombinedOutput()
	if err != nil {
		t.Fatal(err)
	}
	var home string
	for _, line := range strings.Split(string(out), "\n") {
		if h, ok := strings.CutPrefix(strings.TrimSpace(line), "java.home = "); ok {
			home = h
		}
	}
	// a java without the jdk.compiler module is a JRE to the generator
	jre, _ := countingJava(t, "--limit-modules java.se")
	cases := []struct {
		name, java, listener, callback, want string
	}{
		{"final class", real, "java.lang.String", "publish",
			"target.listeners[1].type: java.lang.String is final: no subclass of it can report its calls"},
		{"final callback", real, "java.lang.Thread", "getName",
			"target.listeners[1].type: java.lang.Thread.getName() is final: it cannot be overridden, so a shim cannot report its calls"},
		{"no class", real, "no.such.Handler", "publish",
			"target.listeners[1].type: no class no.such.Handler on the class path"},
		{"constructor with arguments", real, "java.util.logging.LogRecord", "publish",
			"target.listeners[1].type: java.util.logging.LogRecord has no public or protected constructor without parameters, which a generated shim calls, and droidstar does not guess arguments for the others: LogRecord(Level, String) (write a shim in an adapter jar that passes them)"},
		{"no compiler", jre, "java.util.logging.Handler", "publish",
			"target.listeners[1].type: java.util.logging.Handler is an abstract class, and droidstar generates a shim for it with the JDK's compiler, which this java (" + home + ", a JRE) does not have: install a JDK (on Debian or Ubuntu: apt-get install default-jdk-headless) and point JAVA_HOME or backend.jvm.java at it"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			p := loggerPurpose(t, dir, c.listener, c.callback)
			_, err := shimgen.Generate(context.Background(), p, options(t, c.java))
			want := filepath.Join(dir, "logger.yaml") + ":7:13: " + c.want
			var el purpose.ErrorList
			if !errors.As(err, &el) || err.Error() != want {
				t.Errorf("error = %v\nwant    %s", err, want)
			}
		})
	}
}

// TestAndroidShimsAreDexed: for a device, the shim compiles against
// android.jar and its jar holds classes.dex beside the class files; a host
// with no d8 and no dx is told what to install, at the listener's line.
func TestAndroidShimsAreDexed(t *testing.T) {
	java := jvmtest.Java(t)
	sdk, _ := filepath.Abs(filepath.Join("..", "..", "harness-apk", "build", "android", "root", "usr", "lib", "android-sdk"))
	androidJar, dexer := shimgen.FindAndroidSDK(sdk)
	if androidJar == "" || dexer == nil || dexer.Kind != "dx.jar" {
		t.Skipf("no Debian Android SDK tree under %s (make -C harness-apk android-tools): %q %v", sdk, androidJar, dexer)
	}
	dir := t.TempDir()
	p := loggerPurpose(t, dir, "android.animation.AnimatorListenerAdapter", "onAnimationEnd")
	o := options(t, java)
	o.Platform, o.AndroidJar = shimgen.Android, androidJar
	_, err := shimgen.Generate(context.Background(), p, o)
	want := filepath.Join(dir, "logger.yaml") + ":7:13: target.listeners[1].type: android.animation.AnimatorListenerAdapter" +
		" is an abstract class, and droidstar generates a shim for it, which a device loads as dex: that needs d8 (an" +
		" Android SDK's build-tools, found through ANDROID_HOME or ANDROID_SDK_ROOT) or Debian's dx (apt-get install" +
		" dalvik-exchange), and this host has neither"
	if err == nil || err.Error() != want {
		t.Errorf("without a dexer: %v\nwant %s", err, want)
	}

	o.Dexer = dexer
	r, err := shimgen.Generate(context.Background(), p, o)
	if err != nil {
		t.Fatal(err)
	}
	z, err := zip.OpenReader(r.Jar)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	var names []string
	for _, f := range z.File {
		names = append(names, f.Name)
	}
	wantNames := []string{"org/droidstar/harness/generated/ShimAdapter.class",
		"org/droidstar/harness/generated/android_animation_AnimatorListenerAdapterShim.class", "classes.dex"}
	if !reflect.DeepEqual(names, wantNames) {
		t.Errorf("jar entries %v, want %v", names, wantNames)
	}
	wantShims := []shimgen.Shim{{Index: 1, Type: "android.animation.AnimatorListenerAdapter",
		Class:   "org.droidstar.harness.generated.android_animation_AnimatorListenerAdapterShim",
		Methods: []string{"onAnimationCancel", "onAnimationEnd", "onAnimationPause", "onAnimationRepeat", "onAnimationResume", "onAnimationStart"}}}
	if !reflect.DeepEqual(r.Shims, wantShims) {
		t.Errorf("shims %+v, want %+v", r.Shims, wantShims)
	}
}
