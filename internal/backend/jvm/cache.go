package jvm

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// DefaultCacheDir is where the harness jar is unpacked: droidstar in the
// user's cache folder or, when the user has none (neither XDG_CACHE_HOME
// nor HOME set), a folder of the user's own in the temporary folder. The
// latter is named per user id so that users do not share it; since anyone
// can create that name first, unpackJar checks who owns it.
func DefaultCacheDir() string {
	if base, err := os.UserCacheDir(); err == nil {
		return filepath.Join(base, "droidstar")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("droidstar-%d", os.Getuid()))
}

// UnpackJar is unpackJar for the other host-side tools of the harness jar
// (droidstar init's class reader), which need its path too.
func UnpackJar(jar []byte, cacheDir string) (string, error) { return unpackJar(jar, cacheDir) }

// unpackJar writes the embedded harness jar once per content into the cache
// directory, where java can read it. The directory must be private to the
// user: whoever can write there could swap the jar between the check of
// its content and java's loading it.
func unpackJar(jar []byte, cacheDir string) (string, error) {
	if len(jar) == 0 {
		return "", errors.New("backend jvm: this droidstar was built without the harness jar")
	}
	if cacheDir == "" {
		return "", errors.New("backend jvm: no cache directory for the harness jar")
	}
	if err := privateDir(cacheDir, os.Getuid()); err != nil {
		return "", err
	}
	sum := sha256.Sum256(jar)
	path := filepath.Join(cacheDir, "droidstar-harness-"+hex.EncodeToString(sum[:6])+".jar")
	if have, err := os.ReadFile(path); err == nil && bytes.Equal(have, jar) {
		return path, nil
	}
	tmp, err := os.CreateTemp(cacheDir, ".harness-*.jar")
	if err != nil {
		return "", fmt.Errorf("backend jvm: harness cache: %w", err)
	}
	_, werr := tmp.Write(jar)
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("backend jvm: write %s: %w", tmp.Name(), errors.Join(werr, cerr))
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("backend jvm: harness cache: %w", err)
	}
	return path, nil
}

// privateDir creates dir with mode 0700 if it is missing, and refuses one
// that is not a folder of uid's own that only uid can write: a symbolic
// link, a folder another user made, or one the group or others can write.
func privateDir(dir string, uid int) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("backend jvm: harness cache: %w", err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("backend jvm: harness cache: %w", err)
	}
	info, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("backend jvm: harness cache: %w", err)
	}
	if !info.IsDir() {
		what := "is not a folder"
		if info.Mode()&fs.ModeSymlink != 0 {
			what = "is a symbolic link, which could be pointed elsewhere"
		}
		return fmt.Errorf("backend jvm: harness cache %s %s; remove it, or set XDG_CACHE_HOME to a folder of your own", dir, what)
	}
	if owner, known := ownerOf(info); known && owner != uid {
		return fmt.Errorf("backend jvm: harness cache %s belongs to user %d, not to you (user %d), who could swap the harness jar; remove it, or set XDG_CACHE_HOME to a folder of your own", dir, owner, uid)
	}
	if perm := info.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("backend jvm: harness cache %s can be written by group or others (mode %04o), who could swap the harness jar; run chmod go-w on it, or remove it", dir, perm)
	}
	return nil
}
