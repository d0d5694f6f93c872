package compose

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/droidstar/droidstar/internal/backend/jvm"
	"github.com/droidstar/droidstar/internal/draft"
)

// DraftOptions say where droidstar init finds the class it drafts a
// purpose for.
type DraftOptions struct {
	// Jars are libraries on the class path (--jar).
	Jars []string
	// PurposeDir is the folder the draft will be in: its jars are named
	// relative to it.
	PurposeDir string
	// AndroidJar is android.jar (--android-jar); empty: the SDK's
	// platforms/android-23/android.jar under ANDROID_HOME or
	// ANDROID_SDK_ROOT, when there is one.
	AndroidJar string
}

// DraftPurpose reads class on the host JVM with the harness jar's class
// reader and returns a purpose draft for it (see internal/draft).
func DraftPurpose(ctx context.Context, class string, o BackendOptions, d DraftOptions) ([]byte, error) {
	for _, j := range d.Jars {
		if _, err := os.Stat(j); err != nil {
			return nil, fmt.Errorf("--jar %s: %w", j, err)
		}
	}
	androidJar := d.AndroidJar
	if androidJar != "" {
		if _, err := os.Stat(androidJar); err != nil {
			return nil, fmt.Errorf("--android-jar %s: %w", androidJar, err)
		}
	} else {
		for _, key := range []string{"ANDROID_HOME", "ANDROID_SDK_ROOT"} {
			if sdk := o.getenv(key); sdk != "" {
				p := filepath.Join(sdk, "platforms", "android-23", "android.jar")
				if _, err := os.Stat(p); err == nil {
					androidJar = p
					break
				}
			}
		}
	}
	java, err := findJava(o)
	if err != nil {
		return nil, err
	}
	cache := o.JVM.CacheDir
	if cache == "" {
		cache = jvm.DefaultCacheDir()
	}
	jar, err := jvm.UnpackJar(o.JVM.Jar, cache)
	if err != nil {
		return nil, err
	}
	desc, err := draft.Describe(ctx, class, draft.Options{Java: java, HarnessJar: jar, Jars: d.Jars, AndroidJar: androidJar})
	if err != nil {
		return nil, err
	}
	// Jar files only: a purpose's jars are staged files, not class folders.
	var jars []string
	for _, j := range d.Jars {
		if info, err := os.Stat(j); err != nil || info.IsDir() {
			continue
		}
		rel, err := relativeTo(d.PurposeDir, j)
		if err != nil {
			return nil, fmt.Errorf("--jar %s: %w", j, err)
		}
		jars = append(jars, rel)
	}
	return draft.Render(desc, jars), nil
}

// findJava is the java command of o, as the jvm backend finds it, with
// what to do when there is none said for init.
func findJava(o BackendOptions) (string, error) {
	if o.JVM.Java == "" && o.getenv("JAVA_HOME") == "" {
		if _, err := exec.LookPath("java"); errors.Is(err, exec.ErrNotFound) {
			return "", errors.New("droidstar init reads the class by reflection on a JVM, but there is no java on PATH and JAVA_HOME is not set (install a JDK or JRE, e.g. apt-get install default-jre-headless)")
		}
	}
	return jvm.FindJava(o.JVM.Java, o.getenv("JAVA_HOME"))
}

// relativeTo is path as seen from dir, with slashes.
func relativeTo(dir, path string) (string, error) {
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(absDir, abs)
	if err != nil {
		return "", err
	}
	return filepath.ToSlash(rel), nil
}
