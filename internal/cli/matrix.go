package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	adbbackend "github.com/droidstar/droidstar/internal/backend/adb"
	"github.com/droidstar/droidstar/internal/compose"
	"github.com/droidstar/droidstar/internal/diff"
	"github.com/droidstar/droidstar/internal/engine"
	"github.com/droidstar/droidstar/internal/export"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/purpose"
)

type matrixFlags struct {
	out     string
	models  []string
	java    []string
	backend string
	lanes   int
	adb     adbFlags
}

func newMatrixCmd(e *env) *cobra.Command {
	f := &matrixFlags{}
	c := &cobra.Command{
		Use:   "matrix purpose.yaml",
		Short: "Learn one purpose on several targets and diff them against the first",
		Long: `Matrix is the nightly-CI job in one command: it learns the purpose on each
target, writes each model (NAME.json, NAME.dot), compares every target with the
first one (the baseline) as 'droidstar diff' does, and writes matrix.md and
matrix.json. A target that fails to learn leaves NAME.partial.json and the
others still run.

Targets: with the sim backend, each --model NAME=FILE (FILE relative to the
current directory) replaces the purpose's sim model and stands in for one
Android version; with the jvm backend, each --java NAME=PATH runs the harness
with another java command (two JDKs, say). Without either, the purpose as it
is is the only target, named after its backend; with the adb backend, each device
of --devices (all, or SERIAL or NAME=SERIAL entries) is a target, named
apiSDK after its Android SDK level unless named, and the devices learn in
parallel. NAMEs use letters, digits, '_', '-' and '.'.

Exit code: 0 when every target learned and all behave like the baseline, 1
when one differs or failed, 2 on a usage error.`,
		Example: `  droidstar matrix examples/mediaplayer/purpose.yaml \
      --model api23=models/mediaplayer-23.dot --model api34=models/mediaplayer-34.dot -o out/

  # the README's example: one model identical to the baseline, one with a change
  cd testdata/matrix
  droidstar matrix purpose.yaml --model api23=api23.dot --model same=api23.dot --model api34=api34.dot -o out

  # every attached device (one per Android version), learning in parallel
  droidstar matrix examples/mediaplayer/purpose.yaml --devices all -o out/
  droidstar matrix examples/mediaplayer/purpose.yaml --devices api23=emulator-5554,api34=emulator-5556

  # the real harness on two JDKs
  droidstar matrix examples/jvm/timer.yaml -o out/ \
      --java jdk17=/usr/lib/jvm/java-17-openjdk-amd64/bin/java --java jdk21=/usr/lib/jvm/java-21-openjdk-amd64/bin/java`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError("matrix needs exactly one purpose file\nRun '%s --help' for usage.", c.CommandPath())
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error { return runMatrix(c, e, f, args[0]) },
	}
	fl := c.Flags()
	fl.StringVarP(&f.out, "out", "o", ".", "directory for the models and the matrix report")
	fl.StringArrayVar(&f.models, "model", nil, "a target NAME=FILE: the sim model standing in for one version (repeatable)")
	fl.StringArrayVar(&f.java, "java", nil, "a target NAME=PATH: the java command running the harness, for the jvm backend (repeatable)")
	fl.StringSliceVar(&f.adb.devices, "devices", nil, "targets for the adb backend: all, or SERIAL or NAME=SERIAL entries")
	f.adb.addServer(fl)
	f.adb.addHarness(fl)
	fl.StringVar(&f.backend, "backend", "", "which of the purpose's backends to use (default: the first it lists)")
	fl.IntVar(&f.lanes, "lanes", 1, "executors running queries in parallel, per target")
	return c
}

// matrixTarget is one column of the matrix.
type matrixTarget struct {
	Name  string `json:"name"`
	Model string `json:"model,omitempty"`
	Java  string `json:"java,omitempty"`
	// Device is the serial of the device the target learns on.
	Device string `json:"device,omitempty"`
	// Learned is false when learning failed; Error says why.
	Learned     bool   `json:"learned"`
	Error       string `json:"error,omitempty"`
	File        string `json:"file,omitempty"`
	States      int    `json:"states,omitempty"`
	Transitions int    `json:"transitions,omitempty"`
	Same        *bool  `json:"same_as_baseline,omitempty"`
	// FirstDifference is the first differing trace, as the table shows it.
	FirstDifference string       `json:"first_difference,omitempty"`
	Diff            *diff.Report `json:"diff,omitempty"`

	doc *model.Document
}

// matrixReport is matrix.json: format "droidstar-matrix", version 1.
type matrixReport struct {
	Format   string          `json:"format"`
	Version  int             `json:"version"`
	Purpose  string          `json:"purpose"`
	Baseline string          `json:"baseline"`
	Targets  []*matrixTarget `json:"targets"`
}

var targetName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)

func runMatrix(c *cobra.Command, e *env, f *matrixFlags, file string) error {
	if f.lanes < 1 {
		return usageError("--lanes must be at least 1, got %d", f.lanes)
	}
	p, err := purpose.Load(file)
	if err != nil {
		return err
	}
	if f.backend != "" {
		if err := p.Backend.Use(f.backend); err != nil {
			return usageError("--backend: %v", err)
		}
	}
	var targets []*matrixTarget
	if p.Backend.Kind == purpose.BackendADB {
		if len(f.models)+len(f.java) > 0 {
			return usageError("--model and --java are for the sim and jvm backends; with backend adb the targets are --devices")
		}
		if c.Flags().Changed("lanes") {
			return usageError("--lanes does not apply to backend adb: each device is a target and runs one query at a time")
		}
		if err := f.adb.checkDeviceDir(); err != nil {
			return err
		}
		targets, err = deviceTargets(c.Context(), e, &f.adb)
	} else {
		if c.Flags().Changed("devices") {
			return usageError("--devices names devices for backend adb, but the purpose runs on backend %s (use --backend adb if it lists one)", p.Backend.Kind)
		}
		targets, err = matrixTargets(p, f.models, f.java)
	}
	if err != nil {
		return err
	}
	rep := &matrixReport{Format: "droidstar-matrix", Version: 1, Purpose: file, Baseline: targets[0].Name, Targets: targets}
	failed := false
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, t := range targets {
		q := *p
		if t.Model != "" {
			sim := *p.Backend.Sim
			sim.Model, sim.ModelPath, sim.Format = t.Model, t.Model, "auto"
			q.Backend.Sim = &sim
		}
		if t.Java != "" {
			jvm := purpose.JVMBackend{}
			if p.Backend.JVM != nil {
				jvm = *p.Backend.JVM
			}
			jvm.Java = t.Java
			q.Backend.JVM = &jvm
		}
		learn := func() {
			if err := learnTarget(c, e, f, &q, t); err != nil {
				mu.Lock()
				defer mu.Unlock()
				t.Error = err.Error()
				failed = true
				fmt.Fprintf(e.stderr, "%s: %v\n", t.Name, err)
			}
		}
		if t.Device == "" {
			learn()
			continue
		}
		// Devices are independent machines: a nightly run over several
		// Android versions takes as long as the slowest one.
		wg.Add(1)
		go func() {
			defer wg.Done()
			learn()
		}()
	}
	wg.Wait()
	base := targets[0]
	for _, t := range targets[1:] {
		if base.doc == nil || t.doc == nil {
			continue
		}
		r, err := diff.Compare(base.doc, t.doc, diff.Options{OldFile: base.File, NewFile: t.File})
		if err != nil {
			t.Error = fmt.Sprintf("compare with %s: %v", base.Name, err)
			failed = true
			continue
		}
		same := r.Same
		t.Same, t.Diff = &same, r
		if !same {
			t.FirstDifference = firstWitness(r)
		}
	}
	if base.doc != nil {
		yes := true
		base.Same = &yes
	}
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(f.out, "matrix.json"), append(data, '\n')); err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(f.out, "matrix.md"), []byte(rep.markdown())); err != nil {
		return err
	}
	fmt.Fprint(e.stdout, rep.table())
	fmt.Fprintf(e.stderr, "wrote %s and %s\n", filepath.Join(f.out, "matrix.md"), filepath.Join(f.out, "matrix.json"))
	switch {
	case failed:
		return fmt.Errorf("not every target learned")
	case !rep.allSame():
		return fmt.Errorf("the targets differ from the baseline %s", base.Name)
	}
	return nil
}

// deviceTargets reads --devices: every ready device for all, else the
// listed ones; unnamed targets are named after their SDK level.
func deviceTargets(ctx context.Context, e *env, a *adbFlags) ([]*matrixTarget, error) {
	client, err := a.client(e)
	if err != nil {
		return nil, err
	}
	var names, serials []string
	seen := map[string]bool{}
	for _, d := range a.devices {
		name, serial, named := strings.Cut(d, "=")
		if !named {
			name, serial = "", d
		}
		if named && !targetName.MatchString(name) {
			return nil, usageError("--devices %q: the name %q must use letters, digits, '_', '-' and '.'", d, name)
		}
		if name == "matrix" {
			return nil, usageError("--devices %q: the name matrix is taken by the report (matrix.json, matrix.md)", d)
		}
		if name != "" && seen[name] {
			return nil, usageError("--devices %q: target %s is given twice", d, name)
		}
		seen[name] = true
		names, serials = append(names, name), append(serials, serial)
	}
	sel := adbbackend.Selection{Devices: serials}
	if len(serials) == 0 {
		sel = adbbackend.Selection{Device: e.getenv("ANDROID_SERIAL")}
	} else if slices.Contains(serials, "all") {
		if len(serials) > 1 || names[0] != "" {
			return nil, usageError("--devices: all cannot be named or combined with serials")
		}
		names = nil
	}
	if err := client.Ensure(ctx); err != nil {
		return nil, err
	}
	devices, err := adbbackend.Select(ctx, client, sel)
	if err != nil {
		return nil, err
	}
	targets := make([]*matrixTarget, len(devices))
	sdkCount := map[int]int{}
	sdks := make([]int, len(devices))
	for i, d := range devices {
		props, err := client.Device(d.Serial).Properties(ctx)
		if err != nil {
			return nil, fmt.Errorf("device %s: %w", d.Serial, err)
		}
		sdks[i] = adbbackend.Describe(d.Serial, props).SDK
		sdkCount[sdks[i]]++
	}
	taken := map[string]bool{}
	for i, d := range devices {
		name := ""
		if i < len(names) {
			name = names[i]
		}
		if name == "" {
			name = fmt.Sprintf("api%d", sdks[i])
			if sdkCount[sdks[i]] > 1 {
				name += "-" + serialName.ReplaceAllString(d.Serial, "_")
			}
		}
		if taken[name] {
			return nil, usageError("--devices: two targets are named %s; name them with NAME=SERIAL", name)
		}
		taken[name] = true
		targets[i] = &matrixTarget{Name: name, Device: d.Serial}
	}
	return targets, nil
}

var serialName = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

// matrixTargets reads the --model and --java flags.
func matrixTargets(p *purpose.Purpose, models, javas []string) ([]*matrixTarget, error) {
	switch {
	case len(models) > 0 && len(javas) > 0:
		return nil, usageError("--model and --java do not mix: --model is for the sim backend, --java for the jvm backend")
	case len(models) > 0 && p.Backend.Kind != purpose.BackendSim:
		return nil, usageError("--model replaces the sim model, but the purpose runs on backend %s (use --backend sim if it lists one)", p.Backend.Kind)
	case len(javas) > 0 && p.Backend.Kind != purpose.BackendJVM:
		return nil, usageError("--java picks the java command of the jvm backend, but the purpose runs on backend %s (use --backend jvm if it lists one)", p.Backend.Kind)
	case len(models)+len(javas) == 0:
		return []*matrixTarget{{Name: p.Backend.Kind}}, nil
	}
	flag, what, example, specs := "--model", "FILE", "api23=models/api23.dot", models
	if len(javas) > 0 {
		flag, what, example, specs = "--java", "PATH", "jdk21=/usr/lib/jvm/java-21-openjdk-amd64/bin/java", javas
	}
	var out []*matrixTarget
	seen := map[string]bool{}
	for _, m := range specs {
		name, path, ok := strings.Cut(m, "=")
		if !ok || path == "" {
			return nil, usageError("%s %q: want NAME=%s, e.g. %s", flag, m, what, example)
		}
		if !targetName.MatchString(name) {
			return nil, usageError("%s %q: the name %q must use letters, digits, '_', '-' and '.'", flag, m, name)
		}
		if name == "matrix" {
			return nil, usageError("%s %q: the name matrix is taken by the report (matrix.json, matrix.md)", flag, m)
		}
		if seen[name] {
			return nil, usageError("%s %q: target %s is given twice", flag, m, name)
		}
		seen[name] = true
		t := &matrixTarget{Name: name, Model: path}
		if flag == "--java" {
			t.Model, t.Java = "", path
		}
		out = append(out, t)
	}
	return out, nil
}

// learnTarget learns one target and writes NAME.json and NAME.dot (or
// NAME.partial.json when learning fails part-way).
func learnTarget(c *cobra.Command, e *env, f *matrixFlags, p *purpose.Purpose, t *matrixTarget) error {
	o := e.backendOptions(f.lanes, false)
	if t.Device != "" {
		client, err := f.adb.client(e)
		if err != nil {
			return err
		}
		o.ADB.Client, o.ADB.Selection = client, adbbackend.Selection{Device: t.Device}
		o.ADB.SocketTimeout, o.ADB.Dir = f.adb.harnessTimeout, f.adb.deviceDir
	}
	plan, err := compose.FromPurpose(c.Context(), p, os.ReadFile, o)
	if err != nil {
		return err
	}
	defer plan.Close()
	res, err := engine.Run(c.Context(), plan.Job, engine.Options{
		VirtualClock: plan.Virtual, ToolVersion: Version, Now: time.Now,
	})
	if err != nil {
		if res != nil {
			if file, werr := writeModelFile(f.out, t.Name+".partial.json", res.Document); werr == nil {
				return fmt.Errorf("%w (the last hypothesis is in %s)", err, file)
			}
		}
		return err
	}
	doc := res.Document
	file, err := writeModelFile(f.out, t.Name+".json", doc)
	if err != nil {
		return err
	}
	dot, err := export.Write(doc, export.FormatDOT, export.DOTOptions{})
	if err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(f.out, t.Name+".dot"), dot); err != nil {
		return err
	}
	m, _, err := doc.Machine()
	if err != nil {
		return err
	}
	ts, err := m.Typestate()
	if err != nil {
		return err
	}
	t.Learned, t.File, t.doc = true, file, doc
	t.States, t.Transitions = len(ts.States), len(ts.Edges)
	return nil
}

func (r *matrixReport) allSame() bool {
	for _, t := range r.Targets {
		if t.Same == nil || !*t.Same {
			return false
		}
	}
	return true
}

// row is one target's line: name, states, transitions, verdict.
func (t *matrixTarget) row(baseline string) []string {
	if !t.Learned {
		return []string{t.Name, "-", "-", "failed: " + t.Error}
	}
	verdict := "baseline"
	switch {
	case t.Name == baseline:
	case t.Same == nil:
		verdict = "not compared: " + t.Error
	case *t.Same:
		verdict = "same"
	default:
		verdict = "different"
		if w := firstWitness(t.Diff); w != "" {
			verdict += ": " + w
		}
	}
	return []string{t.Name, fmt.Sprint(t.States), fmt.Sprint(t.Transitions), verdict}
}

// firstWitness is the first differing trace, as the diff's text shows it.
func firstWitness(r *diff.Report) string {
	for _, ws := range []diff.Witnesses{r.OldOnly, r.NewOnly} {
		if len(ws.Traces) > 0 {
			var steps []string
			for _, s := range ws.Traces[0].Trace {
				if s.Input == "wait" {
					steps = append(steps, "wait/"+s.Output)
				} else {
					steps = append(steps, s.Input)
				}
			}
			return strings.Join(steps, " · ")
		}
	}
	if !r.Alphabet.Same() {
		return "the alphabets differ"
	}
	return ""
}

func (r *matrixReport) table() string {
	rows := [][]string{{"target", "states", "transitions", "vs " + r.Baseline}}
	for _, t := range r.Targets {
		rows = append(rows, t.row(r.Baseline))
	}
	width := make([]int, 3)
	for _, row := range rows {
		for i := range width {
			width[i] = max(width[i], len(row[i]))
		}
	}
	var b strings.Builder
	for _, row := range rows {
		fmt.Fprintf(&b, "%-*s  %*s  %*s  %s\n", width[0], row[0], width[1], row[1], width[2], row[2], row[3])
	}
	return b.String()
}

func (r *matrixReport) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Typestate matrix: %s\n\nBaseline: %s.\n\n", r.Purpose, r.Baseline)
	b.WriteString("| target | states | transitions | same as " + r.Baseline + " | first differing trace |\n|---|---|---|---|---|\n")
	for _, t := range r.Targets {
		row := []string{t.Name, "-", "-", "failed", t.Error}
		if t.Learned {
			row[1], row[2], row[3], row[4] = fmt.Sprint(t.States), fmt.Sprint(t.Transitions), "", ""
			switch {
			case t.Name == r.Baseline:
				row[3] = "baseline"
			case t.Same == nil:
				row[3], row[4] = "not compared", t.Error
			case *t.Same:
				row[3] = "yes"
			default:
				row[3], row[4] = "no", t.FirstDifference
			}
		}
		for i, cell := range row {
			row[i] = strings.ReplaceAll(cell, "|", `\|`)
		}
		if row[4] != "" && row[3] == "no" {
			row[4] = "`" + row[4] + "`"
		}
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	for _, t := range r.Targets {
		if t.Diff != nil && !t.Diff.Same {
			// The diff's headings, one level down, under the target's.
			md := strings.ReplaceAll("\n"+t.Diff.Markdown(), "\n#", "\n##")[1:]
			fmt.Fprintf(&b, "\n## %s against %s\n\n%s", t.Name, r.Baseline, md)
		}
	}
	return b.String()
}
