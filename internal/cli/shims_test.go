package cli

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/droidstar/droidstar/internal/fake/adbd"
	"github.com/droidstar/droidstar/internal/fake/adbserver"
	"github.com/droidstar/droidstar/internal/resolve"
)

// androidSDK is an Android SDK folder for the shim generator: ANDROID_HOME
// when it has platforms/android-23, else the Debian tree that `make -C
// harness-apk android-tools` unpacks (android.jar and dx, laid out as an
// SDK). Skipped without either, as androidJar is.
func androidSDK(t *testing.T) string {
	t.Helper()
	if sdk := os.Getenv("ANDROID_HOME"); sdk != "" {
		if _, err := os.Stat(filepath.Join(sdk, "platforms", "android-23", "android.jar")); err == nil {
			return sdk
		}
	}
	androidJar(t)
	sdk, _ := filepath.Abs(repoPath("harness-apk", "build", "android", "root", "usr", "lib", "android-sdk"))
	if _, err := os.Stat(filepath.Join(sdk, "build-tools", "debian", "lib", "dx.jar")); err != nil {
		t.Skipf("no Android SDK with dx: android-tools came from an SDK, and ANDROID_HOME is not set to it (%v)", err)
	}
	return sdk
}

// sniffer keeps what the host sent the harness.
type sniffer struct {
	io.ReadWriteCloser
	mu   *sync.Mutex
	sent *bytes.Buffer
}

func (s sniffer) Read(p []byte) (int, error) {
	n, err := s.ReadWriteCloser.Read(p)
	s.mu.Lock()
	s.sent.Write(p[:n])
	s.mu.Unlock()
	return n, err
}

// TestGeneratedShimOnFakeDevice learns examples/valueanimator/animator.yaml, whose
// listener is an abstract class that no built-in shim covers, through the
// real adb server on a fake device: droidstar generates the shim on the
// host (javac against android.jar, dx), pushes the jar with the class
// files and their dex, and configures it as an adapter. The simulated
// harness answers from the example's model (no ART here), so the learned
// typestate is the model's.
func TestGeneratedShimOnFakeDevice(t *testing.T) {
	needJava(t)
	sdk := androidSDK(t)
	s := adbserver.NewT(t)
	file := repoPath("examples", "valueanimator", "animator.yaml")
	props := adbserver.Props("Pixel 8", "14", 34)
	h := simHarnessFrom(t, file, "")(props)
	var mu sync.Mutex
	var sent bytes.Buffer
	var jar []byte
	harness := func(ctx context.Context, run adbd.HarnessRun) (func(context.Context, io.ReadWriteCloser) bool, error) {
		data, err := os.ReadFile(filepath.Join(run.Staging, "jars", "droidstar-shims.jar"))
		mu.Lock()
		jar = data
		mu.Unlock()
		if err != nil {
			return nil, err
		}
		serve, err := h(ctx, run)
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, conn io.ReadWriteCloser) bool {
			return serve(ctx, sniffer{conn, &mu, &sent})
		}, nil
	}
	if _, err := s.Attach(context.Background(), adbd.Config{Props: props, Harness: harness}); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runEnv(t, map[string]string{"ANDROID_HOME": sdk}, "learn", file, "--backend", "adb", "-P", port(s), "-o", t.TempDir())
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	// Worked out from the Android reference in the purpose: start's
	// onAnimationStart comes during the call (s1), the 200 ms run ends
	// with onAnimationEnd (s4 to s6); cancel of a started animation sends
	// onAnimationCancel then onAnimationEnd during the call, delivered
	// after a start not yet delivered (s3, s5, s7); cancel does nothing
	// to an animation that is not running.
	want := `s0 --start--> s1
s0 --cancel--> s0
s1 --cancel--> s3
s1 ==started==> s4
s3 --cancel--> s3
s3 ==started==> s5
s4 --cancel--> s5
s4 ==ended==> s6
s5 --cancel--> s5
s5 ==cancelled==> s7
s6 --cancel--> s6
s7 --cancel--> s7
s7 ==ended==> s6`
	if got := typestateLines(stdout); got != want {
		t.Errorf("typestate:\n%s\nwant:\n%s", got, want)
	}
	mu.Lock()
	defer mu.Unlock()
	z, err := zip.NewReader(bytes.NewReader(jar), int64(len(jar)))
	if err != nil {
		t.Fatalf("the pushed shim jar: %v", err)
	}
	var names []string
	for _, f := range z.File {
		names = append(names, f.Name)
	}
	wantNames := []string{"org/droidstar/harness/generated/ShimAdapter.class",
		"org/droidstar/harness/generated/android_animation_AnimatorListenerAdapterShim.class", "classes.dex"}
	if !slices.Equal(names, wantNames) {
		t.Errorf("the pushed shim jar holds %v, want %v", names, wantNames)
	}
	if !strings.Contains(sent.String(), `"jars":["jars/droidstar-shims.jar"]`) ||
		!strings.Contains(sent.String(), `"adapters":["org.droidstar.harness.generated.ShimAdapter"]`) {
		t.Errorf("configure named no shim jar and adapter:\n%s", sent.String())
	}
}

// TestCheckResolvesGeneratedShims: check --resolve --resolver generates the
// shim of examples/valueanimator's abstract listener class as learn would
// and resolves the purpose with it against android.jar; with no d8 and no
// dx it says what to install, at the listener's line, with or without the
// resolver.
func TestCheckResolvesGeneratedShims(t *testing.T) {
	needJava(t)
	sdk := androidSDK(t)
	for _, tool := range []string{"d8", "dx"} {
		if _, err := exec.LookPath(tool); err == nil {
			t.Skipf("%s is on PATH: this test needs a host with no dexer but ANDROID_HOME's", tool)
		}
	}
	cp, err := resolve.Build(context.Background(), repoPath("harness-apk"))
	if err != nil {
		t.Fatal(err)
	}
	file := repoPath("examples", "valueanimator", "animator.yaml")
	code, stdout, stderr := runEnv(t, map[string]string{"ANDROID_HOME": sdk}, "check", "--resolve", "--resolver", cp, file)
	want := file + ": ok: ValueAnimator, 2 callins, 3 callbacks, bound 2, backends adb (resolved on this host against android.jar, API 23), sim (mealy-dot model, 8 states)\n"
	if code != ExitOK || stdout != want {
		t.Fatalf("exit %d\nstdout:\n%s\nwant:\n%s\nstderr:\n%s", code, stdout, want, stderr)
	}
	code, _, stderr = runEnv(t, nil, "check", "--resolve", "--resolver", cp, file)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	before, _, _ := strings.Cut(string(data), "- type: android.animation.AnimatorListenerAdapter")
	wantErr := file + ":" + strconv.Itoa(strings.Count(before, "\n")+1) + ":13: target.listeners[0].type:" +
		" android.animation.AnimatorListenerAdapter is an abstract class, and droidstar generates a shim for it, which a" +
		" device loads as dex: that needs d8 (an Android SDK's build-tools, found through ANDROID_HOME or ANDROID_SDK_ROOT)" +
		" or Debian's dx (apt-get install dalvik-exchange), and this host has neither\n" +
		"droidstar: 1 of 1 purpose files have errors\n"
	if code != ExitFail || stderr != wantErr {
		t.Fatalf("no dexer: exit %d\nstderr:\n%s\nwant:\n%s", code, stderr, wantErr)
	}
	// without the resolver too: the shims are generated before a device is
	// needed
	code, _, stderr = runEnv(t, map[string]string{"ANDROID_HOME": sdk}, "check", "--resolve", file)
	if code != ExitOK {
		t.Fatalf("with ANDROID_HOME, no resolver: exit %d\n%s", code, stderr)
	}
	noDexer := t.TempDir()
	if err := os.MkdirAll(filepath.Join(noDexer, "platforms", "android-23"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(sdk, "platforms", "android-23", "android.jar"), filepath.Join(noDexer, "platforms", "android-23", "android.jar")); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runEnv(t, map[string]string{"ANDROID_HOME": noDexer}, "check", "--resolve", file)
	if code != ExitFail || stderr != wantErr {
		t.Fatalf("no dexer, no resolver: exit %d\nstderr:\n%s\nwant:\n%s", code, stderr, wantErr)
	}
}
