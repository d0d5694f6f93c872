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
	"archive/zip"
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
	"strconv"
	"strings"
	"time"

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
	// Dexer turns Android shims into dex; nil when this host has none,
	// which is an error only when a shim is needed.
	Dexer *Dexer
}

// Dexer is the tool that turns class files into the dex ART loads.
type Dexer struct {
	// Kind is "d8" or "dx" (commands), or "dx.jar" (run with java -jar).
	Kind string
	Path string
}

// FindAndroidSDK finds android.jar (API 23, the level the harness is built
// against) and the newest dexer of the Android SDK in sdk (ANDROID_HOME
// or ANDROID_SDK_ROOT; "" for none): d8 preferred, else dx.jar, as
// harness-apk/tools/fetch-android.sh finds them; without one there, d8 or
// dx (Debian's dalvik-exchange) on PATH. Each is "" or nil when missing.
func FindAndroidSDK(sdk string) (androidJar string, dexer *Dexer) {
	if sdk != "" {
		if p := filepath.Join(sdk, "platforms", "android-23", "android.jar"); isFile(p) {
			androidJar = p
		}
		tools, _ := filepath.Glob(filepath.Join(sdk, "build-tools", "*"))
		sort.Sort(sort.Reverse(byVersion(tools)))
		for _, bt := range tools {
			if p := filepath.Join(bt, "d8"); isFile(p) {
				return androidJar, &Dexer{Kind: "d8", Path: p}
			}
		}
		for _, bt := range tools {
			if p := filepath.Join(bt, "lib", "dx.jar"); isFile(p) {
				return androidJar, &Dexer{Kind: "dx.jar", Path: p}
			}
		}
	}
	for _, kind := range []string{"d8", "dx"} {
		if p, err := exec.LookPath(kind); err == nil {
			return androidJar, &Dexer{Kind: kind, Path: p}
		}
	}
	return androidJar, nil
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// byVersion orders build-tools folders by version (29.0.3 < 30.0.2 <
// 34.0.0), numbers compared as numbers.
type byVersion []string

func (v byVersion) Len() int      { return len(v) }
func (v byVersion) Swap(i, j int) { v[i], v[j] = v[j], v[i] }
func (v byVersion) Less(i, j int) bool {
	a, b := strings.Split(filepath.Base(v[i]), "."), strings.Split(filepath.Base(v[j]), ".")
	for k := 0; k < len(a) && k < len(b); k++ {
		x, errx := strconv.Atoi(a[k])
		y, erry := strconv.Atoi(b[k])
		if errx != nil || erry != nil {
			if a[k] != b[k] {
				return a[k] < b[k]
			}
			continue
		}
		if x != y {
			return x < y
		}
	}
	return len(a) < len(b)
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
	if o.Platform == Android && r.Adapter != "" {
		if err := dex(ctx, p, o, r, tmp); err != nil {
			return nil, err
		}
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
	if o.Dexer != nil {
		field("dexer", o.Dexer.Kind+" "+o.Dexer.Path)
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

// dex turns the generated jar's class files into classes.dex, for ART,
// and writes the jar again with both: a device loads the dex, and a JVM
// (the host's resolver, a fake device's JVM harness) the class files. A
// host with no dexer is an error at the first listener that needs a shim.
func dex(ctx context.Context, p *purpose.Purpose, o Options, r *Result, tmp string) error {
	if o.Dexer == nil {
		s := r.Shims[0]
		c := harness.Configure(p)
		return c.PurposeError(&harness.RemoteError{Code: "unknown-listener", Where: fmt.Sprintf("target.listeners[%d].type", s.Index),
			Message: s.Type + " is an abstract class, and droidstar generates a shim for it, which a device loads as dex:" +
				" that needs d8 (an Android SDK's build-tools, found through ANDROID_HOME or ANDROID_SDK_ROOT) or Debian's dx" +
				" (apt-get install dalvik-exchange), and this host has neither"})
	}
	out := filepath.Join(tmp, "dex")
	if err := os.Mkdir(out, 0o700); err != nil {
		return fmt.Errorf("shim cache: %w", err)
	}
	var cmd *exec.Cmd
	switch o.Dexer.Kind {
	case "d8":
		cmd = exec.CommandContext(ctx, o.Dexer.Path, "--release", "--min-api", "21", "--lib", o.AndroidJar, "--output", out, r.Jar)
	case "dx":
		cmd = exec.CommandContext(ctx, o.Dexer.Path, "--dex", "--min-sdk-version=21", "--output="+filepath.Join(out, "classes.dex"), r.Jar)
	default:
		cmd = exec.CommandContext(ctx, o.Java, "-Xmx1g", "-jar", o.Dexer.Path, "--dex", "--min-sdk-version=21",
			"--output="+filepath.Join(out, "classes.dex"), r.Jar)
	}
	if said, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("dexing the generated shims (%s): %w\n%s", strings.Join(cmd.Args, " "), err, bytes.TrimSpace(said))
	}
	dexData, err := os.ReadFile(filepath.Join(out, "classes.dex"))
	if err != nil {
		return fmt.Errorf("dexing the generated shims: %w", err)
	}
	return addEntry(r.Jar, "classes.dex", dexData)
}

// addEntry rewrites the jar at path with one more entry, stamped as the
// others are.
func addEntry(path, name string, data []byte) error {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return fmt.Errorf("shim jar: %w", err)
	}
	defer zr.Close()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	var stamp time.Time
	for _, f := range zr.File {
		stamp = f.Modified
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f.Name, Method: zip.Deflate, Modified: f.Modified})
		if err != nil {
			return err
		}
		rc, err := f.Open()
		if err != nil {
			return err
		}
		_, err = io.Copy(w, rc)
		rc.Close()
		if err != nil {
			return err
		}
	}
	w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: stamp})
	if err == nil {
		_, err = w.Write(data)
	}
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		return fmt.Errorf("shim jar: %w", err)
	}
	return os.WriteFile(path, b.Bytes(), 0o600)
}
