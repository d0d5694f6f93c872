package examples

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The dexing rules of adapter.mk, run by make on a throwaway example: dx
// after dexcheck without an SDK, the newest d8 of ANDROID_HOME with one.
// They use the real android.jar and dx (make fetches them when missing,
// as `make test` has done already).

// writeFile writes text to dir/name, making its folders.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// libJar compiles one Java class for Java 8 into a jar and returns its path.
func libJar(t *testing.T, name, class, source string) string {
	t.Helper()
	dir := t.TempDir()
	src := writeFile(t, dir, "src/"+class+".java", source)
	classes := filepath.Join(dir, "classes")
	if b, err := exec.Command("javac", "--release", "8", "-d", classes, src).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, b)
	}
	jar := filepath.Join(dir, name)
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	data, err := os.ReadFile(filepath.Join(classes, class+".class"))
	if err != nil {
		t.Fatal(err)
	}
	w, _ := z.Create(class + ".class")
	w.Write(data)
	z.Close()
	if err := os.WriteFile(jar, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return jar
}

// example makes an example folder whose Makefile includes adapter.mk and
// dexes LIB into libs/lib.jar beside a one-class adapter.
func example(t *testing.T) string {
	t.Helper()
	mk, err := filepath.Abs("adapter.mk")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFile(t, dir, "Makefile", "ADAPTER_JAR := adapter/x-adapter.jar\nLIB_JARS := libs/lib.jar\ninclude "+mk+
		"\n\nlibs/lib.jar: $(LIB)\n\t$(call dex,$<,$@)\n")
	writeFile(t, dir, "adapter/src/x/A.java", "package x;\n\npublic final class A {\n    public static String name() {\n        return \"a\";\n    }\n}\n")
	return dir
}

// makeIn runs make in dir with the environment's SDK variables replaced.
func makeIn(t *testing.T, dir, sdk string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("make", append([]string{"-C", dir, "--no-print-directory"}, args...)...)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ANDROID_HOME=") && !strings.HasPrefix(kv, "ANDROID_SDK_ROOT=") &&
			!strings.HasPrefix(kv, "D8=") && !strings.HasPrefix(kv, "MAKEFLAGS=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "ANDROID_HOME="+sdk, "GO="+filepath.Join(runtime.GOROOT(), "bin", "go"))
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func needTools(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"make", "javac", "java", "jar"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s on PATH: adapter.mk's rules need make and a JDK", tool)
		}
	}
}

// dexMagic is the first 8 bytes of classes.dex in a dex jar.
func dexMagic(t *testing.T, jar string) string {
	t.Helper()
	z, err := zip.OpenReader(jar)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	for _, f := range z.File {
		if f.Name == "classes.dex" {
			rc, _ := f.Open()
			head := make([]byte, 8)
			io.ReadFull(rc, head)
			rc.Close()
			return string(head)
		}
	}
	t.Fatalf("%s holds no classes.dex", jar)
	return ""
}

const lambdaSource = "public class Lambda {\n    public static Runnable make() {\n        return () -> { };\n    }\n}\n"
const plainSource = "public class Plain {\n    public static Runnable make() {\n        return new Runnable() {\n            public void run() {\n            }\n        };\n    }\n}\n"

func TestDexRefusesInvokedynamicWithoutAnSDK(t *testing.T) {
	needTools(t)
	dir := example(t)
	lib := libJar(t, "lambda.jar", "Lambda", lambdaSource)
	out, err := makeIn(t, dir, "", "LIB="+lib)
	if err == nil {
		t.Fatalf("make dexed a jar with lambdas:\n%s", out)
	}
	want := "dx " + lib + " -> libs/lib.jar (--min-sdk-version=21)\n" +
		"dexcheck: " + lib + " runs invokedynamic (Java 8 lambdas or method references) in 1 method, which dx cannot turn into dex that runs on Android:\n" +
		"  Lambda: make()\n" +
		"dx refuses invokedynamic below --min-sdk-version 26; from 26 on it writes calls to LambdaMetafactory.metafactory,\n" +
		"which Android does not have (NoSuchMethodError at run time), in dex version 038, which Android 7 does not load.\n" +
		"Fix: dex it with d8, which desugars lambdas for every API level: install an Android SDK's build-tools\n" +
		"and set ANDROID_HOME (examples/adapter.mk then uses the newest $ANDROID_HOME/build-tools/*/d8), or run\n" +
		"make D8=/path/to/d8; or use a version of the library compiled for Java 7 (no lambdas).\n"
	if !strings.Contains(out, want) {
		t.Errorf("make's output lacks the refusal:\n%s\nwant\n%s", out, want)
	}
	// The adapter (Java 8, no lambdas) was dexed before; the library left nothing behind.
	if got := dexMagic(t, filepath.Join(dir, "adapter/x-adapter.jar")); got != "dex\n035\x00" {
		t.Errorf("adapter dex magic %q", got)
	}
	for _, p := range []string{"libs/lib.jar", "libs/lib.jar.tmp"} {
		if _, err := os.Stat(filepath.Join(dir, p)); !os.IsNotExist(err) {
			t.Errorf("%s exists after the refusal", p)
		}
	}
	// Raising dx's API level does not get past the check.
	if out, err := makeIn(t, dir, "", "LIB="+lib, "DX_MIN_SDK=26"); err == nil || !strings.Contains(out, want[strings.Index(want, "\n")+1:]) {
		t.Errorf("DX_MIN_SDK=26: %v\n%s", err, out)
	}
}

func TestDexWithDxWithoutLambdas(t *testing.T) {
	needTools(t)
	dir := example(t)
	lib := libJar(t, "plain.jar", "Plain", plainSource)
	out, err := makeIn(t, dir, "", "LIB="+lib)
	if err != nil {
		t.Fatalf("make: %v\n%s", err, out)
	}
	if !strings.Contains(out, "dx "+lib+" -> libs/lib.jar (--min-sdk-version=21)\n") || !strings.HasSuffix(out, "built adapter/x-adapter.jar\nbuilt libs/lib.jar\n") {
		t.Errorf("make's output:\n%s", out)
	}
	// dex 035: what Android 5.0 and later load.
	if got := dexMagic(t, filepath.Join(dir, "libs/lib.jar")); got != "dex\n035\x00" {
		t.Errorf("dex magic %q", got)
	}
}

// With an SDK, the newest build-tools' d8 dexes everything (a fake d8 that
// logs its arguments: there is no SDK here). 9.0.0 sorts after 34.0.0 as
// text, not as a version.
func TestDexPicksTheNewestD8OfTheSDK(t *testing.T) {
	needTools(t)
	dir := example(t)
	sdk := t.TempDir()
	for _, v := range []string{"9.0.0", "34.0.0", "30.0.3"} {
		writeFile(t, sdk, "build-tools/"+v+"/d8", "#!/bin/sh\n# a stand-in for d8: logs its arguments, writes a classes.dex\n"+
			"echo \"$0 $*\" >>"+filepath.Join(sdk, "d8.log")+"\n"+
			"while [ $# -gt 0 ]; do [ \"$1\" = --output ] && printf 'dex\\n035\\000' >\"$2/classes.dex\"; shift; done\n")
	}
	lib := libJar(t, "lambda.jar", "Lambda", lambdaSource)
	out, err := makeIn(t, dir, sdk, "LIB="+lib)
	if err != nil {
		t.Fatalf("make: %v\n%s", err, out)
	}
	d8 := filepath.Join(sdk, "build-tools/34.0.0/d8")
	androidJar, _ := filepath.Abs("../harness-apk/build/android/android.jar")
	log, _ := os.ReadFile(filepath.Join(sdk, "d8.log"))
	want := d8 + " --release --min-api 21 --lib " + androidJar + " --output adapter/x-adapter.jar.tmp adapter/build/classes/x/A.class\n" +
		d8 + " --release --min-api 21 --lib " + androidJar + " --output libs/lib.jar.tmp " + lib + "\n"
	if string(log) != want {
		t.Errorf("d8 calls:\n%s\nwant\n%s\nmake:\n%s", log, want, out)
	}
	if !strings.Contains(out, "d8 "+lib+" -> libs/lib.jar ("+d8+")\n") {
		t.Errorf("make's output:\n%s", out)
	}
	if got := dexMagic(t, filepath.Join(dir, "libs/lib.jar")); got != "dex\n035\x00" {
		t.Errorf("dex magic %q", got)
	}
}
