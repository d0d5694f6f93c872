// Package refdata finds the shared reference data that lives beside the
// checkout (../shared: DroidStar's 2016 typestates and numbers, the public
// Mealy benchmarks with AALpy's counts). The data is not part of the
// repository and is never copied into it; tests and benchmarks read it in
// place when it is there and say clearly when it is not.
package refdata

import (
	"os"
	"path/filepath"
)

// Env overrides where the data is looked for.
const Env = "DROIDSTAR_SHARED"

// Dir returns the shared directory: $DROIDSTAR_SHARED, else the first
// "shared" folder holding models/droidstar-2016 found walking up from the
// working directory. It returns "" when there is none.
func Dir() string {
	if env := os.Getenv(Env); env != "" {
		return env
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for d := wd; ; d = filepath.Dir(d) {
		cand := filepath.Join(d, "shared")
		if st, err := os.Stat(filepath.Join(cand, "models", "droidstar-2016")); err == nil && st.IsDir() {
			return cand
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// Skipper is the part of testing.TB that Require uses; the package does
// not import testing, which would link it into the droidstar binary.
type Skipper interface {
	Helper()
	Skipf(format string, args ...any)
}

// Require returns Dir joined with parts, or skips the test with a message
// saying the data is absent and why it cannot be in the repository.
func Require(t Skipper, parts ...string) string {
	t.Helper()
	dir := Dir()
	if dir == "" {
		t.Skipf("the shared reference data (../shared beside the checkout, or $%s) is not here; "+
			"it is not part of the repository, so this test cannot run", Env)
	}
	p := filepath.Join(append([]string{dir}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("the shared reference data has no %s: %v", filepath.Join(parts...), err)
	}
	return p
}
