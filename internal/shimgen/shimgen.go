// Package shimgen makes shims for a purpose's abstract listener classes,
// so that no user writes Java for one: the harness jar's generator
// (org.droidstar.harness.shimgen.Main, on the host JVM) reflects on each
// listener type the harness has no built-in shim for and that is not an
// interface, writes a subclass whose callback methods report and answer as
// a proxy's do, and compiles it with the JDK's compiler into a jar with an
// adapter that registers it. The jar is kept in the user's cache under a
// hash of everything that went into it, and the purpose the backend
// configures gets it as one more jar and adapter (With).
package shimgen

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/droidstar/droidstar/internal/harness"
	"github.com/droidstar/droidstar/internal/purpose"
)

// MainClass is the generator's entry point in the harness jar.
const MainClass = "org.droidstar.harness.shimgen.Main"

// JarName is the generated jar's name among the purpose's staged jars.
const JarName = "droidstar-shims.jar"

// Platform is the runtime the shims are for.
type Platform string

const (
	// JVM shims are class files for the host JVM's harness.
	JVM Platform = "jvm"
	// Android shims are class files compiled against android.jar (Java
	// 8), for dexing.
	Android Platform = "android"
)

// Options say how to run the generator and where to keep what it makes.
type Options struct {
	// Java is the java command (the backend's: its JDK compiles the shims).
	Java string
	// HarnessJar is the path of the unpacked harness jar, in CacheDir.
	HarnessJar string
	// CacheDir is the user's private droidstar cache (where the harness
	// jar is unpacked, whose privacy its unpacking checks); generated
	// jars go under its shims folder.
	CacheDir string
	Platform Platform
	// AndroidJar is android.jar, for Android shims.
	AndroidJar string
}

// Shim is one generated shim.
type Shim struct {
	// Index is the listener's place in target.listeners.
	Index int    `json:"index"`
	Type  string `json:"type"`
	// Class is the shim's class name.
	Class string `json:"shim"`
	// Methods are the callbacks it reports.
	Methods []string `json:"methods"`
}

// Result is what the generator made for a purpose.
type Result struct {
	// Jar is the generated jar's path, "" when no listener needs a shim.
	Jar string `json:"-"`
	// Adapter is the class in Jar that registers the shims.
	Adapter string `json:"adapter"`
	Shims   []Shim `json:"shims"`
}

// Needed says whether a purpose has listeners the generator should look
// at: without any, nothing runs.
func Needed(p *purpose.Purpose) bool {
	return p.Target != nil && len(p.Target.Listeners) > 0
}

// Generate makes (or finds in the cache) the shims of p's abstract listener
// classes. A listener that cannot have one (a final class, a final
// callback method the purpose names, no accessible constructor, no such
// class) or a java without a compiler is a purpose error at the
// listener's type line, with what to do.
func Generate(ctx context.Context, p *purpose.Purpose, o Options) (*Result, error) {
	if !Needed(p) {
		return &Result{}, nil
	}
	key, err := cacheKey(p, o)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(o.CacheDir, "shims", key)
	if r, err := readCached(dir); err == nil {
		return r, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return nil, fmt.Errorf("shim cache: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".tmp-")
	if err != nil {
		return nil, fmt.Errorf("shim cache: %w", err)
	}
	defer os.RemoveAll(tmp)
	r, err := run(ctx, p, o, filepath.Join(tmp, JarName))
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(tmp, "result.json"), data, 0o600); err != nil {
		return nil, fmt.Errorf("shim cache: %w", err)
	}
	// Whole folders only: another droidstar may be making the same one.
	if err := os.Rename(tmp, dir); err != nil && !errors.Is(err, fs.ErrExist) && !isNotEmpty(err) {
		return nil, fmt.Errorf("shim cache: %w", err)
	}
	return readCached(dir)
}

// isNotEmpty is rename's error when the target folder exists already.
func isNotEmpty(err error) bool {
	var le *os.LinkError
	return errors.As(err, &le) && strings.Contains(le.Err.Error(), "not empty")
}

// With is p with the generated jar and adapter added, for the backend to
// stage and configure; p itself when nothing was generated. The purpose
// the user wrote (and its fingerprint) stays as it was.
func With(p *purpose.Purpose, r *Result) *purpose.Purpose {
	if r == nil || r.Jar == "" {
		return p
	}
	q := *p
	q.Jars = append(append([]purpose.File(nil), p.Jars...), purpose.File{Name: JarName, Path: r.Jar})
	q.Adapters = append(append([]string(nil), p.Adapters...), r.Adapter)
	return &q
}

func readCached(dir string) (*Result, error) {
	data, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil {
		return nil, err
	}
	var r Result
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	if r.Adapter != "" {
		r.Jar = filepath.Join(dir, JarName)
		if _, err := os.Stat(r.Jar); err != nil {
			return nil, err
		}
	}
	return &r, nil
}

// callbackMethods are the method names the purpose's callbacks name:
// each from name (or symbol) without its /DETAIL and its listener's NAME.
func callbackMethods(p *purpose.Purpose) []string {
	seen := map[string]bool{}
	var out []string
	add := func(n string) {
		if i := strings.IndexByte(n, '/'); i >= 0 {
			n = n[:i]
		}
		if i := strings.LastIndexByte(n, '.'); i >= 0 {
			n = n[i+1:]
		}
		if n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, c := range p.Callbacks {
		if len(c.From) == 0 {
			add(c.Symbol)
		}
		for _, f := range c.From {
			add(f)
		}
	}
	sort.Strings(out)
	return out
}

// cacheKey hashes every input of the generator: its code (the harness
// jar), the java that compiles (its real path), the platform, the
// listeners, the callback names, and the content of each class path jar.
func cacheKey(p *purpose.Purpose, o Options) (string, error) {
	h := sha256.New()
	field := func(k, v string) { fmt.Fprintf(h, "%s=%q\n", k, v) }
	file := func(k, path string) error {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		d := sha256.New()
		if _, err := io.Copy(d, f); err != nil {
			return err
		}
		field(k, hex.EncodeToString(d.Sum(nil)))
		return nil
	}
	if err := file("harness", o.HarnessJar); err != nil {
		return "", fmt.Errorf("shim generator: %w", err)
	}
	java := o.Java
	if real, err := filepath.EvalSymlinks(java); err == nil {
		java = real
	}
	field("java", java)
	field("platform", string(o.Platform))
	for i, l := range p.Target.Listeners {
		field(fmt.Sprintf("listener%d", i), l.Type)
	}
	for _, c := range callbackMethods(p) {
		field("callback", c)
	}
	for i, j := range p.Jars {
		if err := file(fmt.Sprintf("jar%d", i), j.Path); err != nil {
			// staging the jar fails at its line, before anything runs
			return "", harnessJarError(p, i, err)
		}
	}
	if o.AndroidJar != "" {
		if err := file("android", o.AndroidJar); err != nil {
			return "", fmt.Errorf("shim generator: android.jar: %w", err)
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:32], nil
}

func harnessJarError(p *purpose.Purpose, i int, err error) error {
	j := p.Jars[i]
	return purpose.ErrorList{{File: p.File, Line: j.Pos.Line, Col: j.Pos.Col, Field: fmt.Sprintf("jars[%d]", i),
		Msg: fmt.Sprintf("cannot read it to generate shims: %v", err)}}
}

// answer is the generator's reply.
type answer struct {
	OK bool `json:"ok"`
	Result
	Errors []harness.RemoteError `json:"errors"`
}

// run runs the generator, writing the jar to out.
func run(ctx context.Context, p *purpose.Purpose, o Options, out string) (*Result, error) {
	args := []string{"-XX:-UsePerfData", "-cp", o.HarnessJar, MainClass, "--platform", string(o.Platform), "--out", out}
	for _, j := range p.Jars {
		args = append(args, "--classpath", j.Path)
	}
	if o.AndroidJar != "" {
		args = append(args, "--bootclasspath", o.AndroidJar)
	}
	for _, c := range callbackMethods(p) {
		args = append(args, "--callback", c)
	}
	for i, l := range p.Target.Listeners {
		args = append(args, "--listener", fmt.Sprintf("%d=%s", i, l.Type))
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, o.Java, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("the shim generator (%s -cp %s %s) failed: %w\n%s", o.Java, o.HarnessJar, MainClass, err,
			bytes.TrimSpace(stderr.Bytes()))
	}
	var a answer
	if err := json.Unmarshal(stdout.Bytes(), &a); err != nil {
		return nil, fmt.Errorf("the shim generator's answer: %w: %q", err, stdout.String())
	}
	if !a.OK {
		if len(a.Errors) == 0 {
			return nil, errors.New("the shim generator answered neither shims nor an error")
		}
		c := harness.Configure(p)
		var errs purpose.ErrorList
		for i := range a.Errors {
			var el purpose.ErrorList
			if errors.As(c.PurposeError(&a.Errors[i]), &el) {
				errs = append(errs, el...)
			}
		}
		return nil, errs
	}
	r := a.Result
	if r.Adapter != "" {
		r.Jar = out
	}
	return &r, nil
}
