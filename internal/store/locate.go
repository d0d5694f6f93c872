package store

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// Env is the environment variable that names the default query store
// (Off runs without one).
const Env = "DROIDSTAR_STORE"

// Off, as a store's path, runs without one.
const Off = "off"

// Locate is the store a command uses: flag (--store), else $DROIDSTAR_STORE,
// else DefaultFile under the user's cache folder. An empty path with no
// error means none (--store off or $DROIDSTAR_STORE=off, or no cache
// folder: the note says which). A store file really named off is ./off.
// getenv reads the environment, so that a test's run has its own.
func Locate(flag string, getenv func(string) string) (path, note string, err error) {
	switch flag {
	case Off:
		return "", "", nil
	case "":
	default:
		return flag, "", nil
	}
	switch v := getenv(Env); v {
	case Off:
		return "", "", nil
	case "":
	default:
		return v, "", nil
	}
	dir, err := userCacheDir(getenv)
	if err != nil {
		return "", fmt.Sprintf("no query store: %v; answers are not kept (pass --store PATH)", err), nil
	}
	return filepath.Join(dir, "droidstar", DefaultFile), "", nil
}

// userCacheDir is os.UserCacheDir reading the environment through getenv.
func userCacheDir(getenv func(string) string) (string, error) {
	switch runtime.GOOS {
	case "windows", "darwin", "ios", "plan9", "android":
		return os.UserCacheDir()
	}
	if dir := getenv("XDG_CACHE_HOME"); dir != "" {
		if !filepath.IsAbs(dir) {
			return "", fmt.Errorf("$XDG_CACHE_HOME is the relative path %q", dir)
		}
		return dir, nil
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, ".cache"), nil
	}
	return "", fmt.Errorf("no cache folder ($XDG_CACHE_HOME and $HOME are unset)")
}
