package compose

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/droidstar/droidstar/internal/backend/jvm"
	"github.com/droidstar/droidstar/internal/purpose"
	"github.com/droidstar/droidstar/internal/shimgen"
)

// deviceShims generates the shims of an adb purpose's abstract listener
// classes on this host (internal/shimgen): javac against android.jar, then
// d8 or dx, the jar staged and configured as one more jar and adapter of
// the purpose. Which listeners need one only android.jar can tell, so a
// host without java or without android.jar (ANDROID_HOME's
// platforms/android-23, or androidJar) leaves the purpose as it is, and
// says why in skipped: the device then refuses a listener that needed a
// shim (withShimHint adds the why). A host with both but with no dexer is
// an error at the listener, as is any other refusal of the generator.
func deviceShims(ctx context.Context, p *purpose.Purpose, o BackendOptions, androidJar string) (q *purpose.Purpose, skipped string, err error) {
	if !shimgen.Needed(p) {
		return p, "", nil
	}
	sdk := o.getenv("ANDROID_HOME")
	if sdk == "" {
		sdk = o.getenv("ANDROID_SDK_ROOT")
	}
	found, dexer := shimgen.FindAndroidSDK(sdk)
	if androidJar == "" {
		androidJar = found
	}
	if androidJar == "" {
		return p, "it found no android.jar to read the listener classes from (set ANDROID_HOME to an Android SDK with platforms/android-23)", nil
	}
	java, err := jvm.FindJava(o.JVM.Java, o.getenv("JAVA_HOME"))
	if err != nil {
		return p, "it found no JDK to compile them with (install one, e.g. apt-get install default-jdk-headless)", nil
	}
	cache := o.JVM.CacheDir
	if cache == "" {
		cache = jvm.DefaultCacheDir()
	}
	jar, err := jvm.UnpackJar(o.JVM.Jar, cache)
	if err != nil {
		return nil, "", err
	}
	r, err := shimgen.Generate(ctx, p, shimgen.Options{Java: java, HarnessJar: jar, CacheDir: cache,
		Platform: shimgen.Android, AndroidJar: androidJar, Dexer: dexer})
	if err != nil {
		return nil, "", err
	}
	return shimgen.With(p, r), "", nil
}

// withShimHint adds to a device's refusal of a listener class that has no
// shim why droidstar did not generate one on this host.
func withShimHint(err error, skipped string) error {
	var el purpose.ErrorList
	if skipped == "" || !errors.As(err, &el) {
		return err
	}
	for _, e := range el {
		if strings.HasSuffix(e.Msg, "is neither an interface nor a class with a shim") {
			e.Msg += "; droidstar generates shims for abstract listener classes on this host, but " + skipped
		}
	}
	return err
}

// resolverAndroidJar is the android.jar on the resolver's class path (as
// `make -C harness-apk resolver` prints it), or "".
func resolverAndroidJar(classpath string) string {
	for _, e := range filepath.SplitList(classpath) {
		if filepath.Base(e) == "android.jar" {
			return e
		}
	}
	return ""
}
