package resolve

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/droidstar/droidstar/internal/purpose"
	"github.com/droidstar/droidstar/internal/shimgen"
)

// Unavailable names the example folders whose libraries are neither in the
// tree nor in Debian's packages, so that CI cannot build them, with why.
// CheckExamples skips them when their Makefile cannot find the library,
// and resolves them like any other when a user has put it in place.
var Unavailable = map[string]string{
	"volley":      "Volley is published on Google's Maven repository only, not in Debian (examples/volley/README.md says how to get it)",
	"imageloader": "Universal Image Loader is published on Maven Central only, not in Debian (examples/imageloader/README.md says how to get it)",
}

// Outcome is what the check of one example purpose gave.
type Outcome struct {
	File string
	// Skipped says why the purpose was not resolved ("" when it was).
	Skipped string
	Shims   []string
	Err     error
}

// CheckOptions configure CheckExamples.
type CheckOptions struct {
	Options
	// Unavailable is the table of folders that may be skipped (see the
	// package's Unavailable).
	Unavailable map[string]string
	// Make is the make command (default make).
	Make string
	// Getenv gives the purposes' parameters their values, as learn's
	// environment would (DROIDSTAR_SET_NAME), else their defaults: a
	// parameter is a String whatever its value, so any value resolves the
	// same overloads; one without a value is the purpose's error.
	Getenv func(string) string
	// Shims, when set, generates the shims of the purposes' abstract
	// listener classes (the adb backend's way, internal/shimgen) for the
	// purposes without jars, which then resolve with them as a device
	// would. Platform, AndroidJar and the rest are the caller's.
	Shims *shimgen.Options
}

// CheckExamples resolves every purpose in examples/*/ (purpose.yaml and
// the variants beside it) under root whose backends include adb. A purpose with jars gets their JVM class path from
// its folder's Makefile (`make resolve-classpath`, examples/adapter.mk),
// which compiles the adapter's class files; a jar the Makefile does not
// build is an error at the purpose's jars entry. The outcomes come in the
// order of the file names.
func CheckExamples(ctx context.Context, root string, o CheckOptions) ([]Outcome, error) {
	files, err := filepath.Glob(filepath.Join(root, "examples", "*", "*.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var outcomes []Outcome
	var jobs []Job
	var jobOutcome []int
	for _, file := range files {
		out := Outcome{File: file}
		p, err := purpose.Load(file)
		if err == nil {
			p, err = p.Bind(p.ParamValues(nil, o.Getenv))
		}
		switch {
		case err != nil:
			out.Err = err
		case !p.Backend.Has(purpose.BackendADB):
			continue
		default:
			job := Job{Purpose: p}
			if len(p.Jars) > 0 {
				job.Classpath, out.Skipped, out.Err = classpath(ctx, p, o)
			} else if o.Shims != nil && shimgen.Needed(p) {
				var r *shimgen.Result
				if r, out.Err = shimgen.Generate(ctx, p, *o.Shims); out.Err == nil && r.Jar != "" {
					job = Job{Purpose: shimgen.With(p, r), Classpath: []string{r.Jar}}
				}
			}
			if out.Err == nil && out.Skipped == "" {
				jobs = append(jobs, job)
				jobOutcome = append(jobOutcome, len(outcomes))
			}
		}
		outcomes = append(outcomes, out)
	}
	results, err := Run(ctx, jobs, o.Options)
	if err != nil {
		return nil, err
	}
	for i, r := range results {
		outcomes[jobOutcome[i]].Shims = r.Shims
		outcomes[jobOutcome[i]].Err = r.Err
	}
	return outcomes, nil
}

// classpath asks the purpose's Makefile for the JVM class path of its jars
// and checks that it builds every jar the purpose lists. A folder in
// o.Unavailable whose host jars are missing is skipped; a missing jar
// elsewhere, or a failed build, is an error.
func classpath(ctx context.Context, p *purpose.Purpose, o CheckOptions) (cp []string, skipped string, err error) {
	dir := filepath.Dir(p.File)
	said, err := makeIn(ctx, o.Make, dir, "resolve-classpath")
	if err != nil {
		return nil, "", fmt.Errorf("%s: make -C %s resolve-classpath: %v\n%s", p.File, dir, err, said)
	}
	var built []string
	for _, line := range strings.Split(said, "\n") {
		if v, ok := strings.CutPrefix(line, "missing: "); ok {
			missing := strings.Fields(v)
			// The jar's own rule says where to get it.
			how, _ := makeIn(ctx, o.Make, dir, missing[0])
			how, _, _ = strings.Cut(strings.TrimSpace(how), "\n")
			if why, ok := o.Unavailable[filepath.Base(dir)]; ok {
				return nil, why + "; make said: " + how, nil
			}
			return nil, "", fmt.Errorf("%s: a host jar it needs is missing (%s); make said: %s", p.File, strings.Join(missing, ", "), how)
		}
		if v, ok := strings.CutPrefix(line, "jars: "); ok {
			built = strings.Fields(v)
		}
		if v, ok := strings.CutPrefix(line, "classpath: "); ok && strings.TrimSpace(v) != "" {
			cp = strings.Split(strings.TrimSpace(v), ":")
		}
	}
	var errs purpose.ErrorList
	for i, j := range p.Jars {
		rel, err := filepath.Rel(dir, j.Path)
		if err != nil || !slices.Contains(built, filepath.ToSlash(rel)) {
			errs = append(errs, &purpose.Error{File: p.File, Line: j.Pos.Line, Col: j.Pos.Col, Field: fmt.Sprintf("jars[%d]", i),
				Msg: fmt.Sprintf("%s builds no %s (it builds %s)", filepath.Join(dir, "Makefile"), j.From, strings.Join(built, ", "))})
		}
	}
	if len(errs) > 0 {
		return nil, "", errs
	}
	return cp, "", nil
}

// makeIn runs make quietly in dir and returns what it printed.
func makeIn(ctx context.Context, mk, dir string, target string) (string, error) {
	if mk == "" {
		mk = "make"
	}
	cmd := exec.CommandContext(ctx, mk, "-s", "--no-print-directory", "-C", dir, target)
	// Not the calling make's jobserver: this is a build of its own.
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "MAKEFLAGS=") || strings.HasPrefix(kv, "MFLAGS=") || strings.HasPrefix(kv, "MAKELEVEL=")
	})
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}
