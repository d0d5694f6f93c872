package matrix

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/droidstar/droidstar/internal/export"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/purpose"
)

// The example of 'droidstar help ci': one model identical to the baseline, one with a
// change. The report, matrix.json, matrix.md and the table are the bytes the
// command wrote before the matrix became a package (run with -o out).
func TestRunAcrossModels(t *testing.T) {
	p, learn := loadPurpose(t), fromLearned(t)
	out := t.TempDir()
	asOut := func(s string) []byte { return []byte(strings.ReplaceAll(s, out+string(filepath.Separator), "out/")) }
	var log bytes.Buffer
	rep, err := Run(context.Background(), Spec{
		PurposeFile: "purpose.yaml", Purpose: p, Out: out, Learn: learn, Log: &log,
		Targets: simTargets("api23", "api23.dot", "same", "api23.dot", "api34", "api34.dot"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Outcome() != Different || log.Len() != 0 {
		t.Errorf("outcome %v, log %q", rep.Outcome(), log.String())
	}
	data, err := rep.JSON()
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "differ.json", asOut(string(data)))
	golden(t, "differ.md", asOut(rep.Markdown()))
	golden(t, "differ.txt", []byte(rep.Table()))
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	// The report's own files are the command's to write.
	if got := strings.Join(names, " "); got != "api23.dot api23.json api34.dot api34.json same.dot same.json" {
		t.Errorf("wrote %s", got)
	}
	docs := learnedDocs(t)
	for _, r := range rep.Targets {
		got, err := os.ReadFile(filepath.Join(out, r.Name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if data, _ := docs[r.SimModel].Marshal(); !bytes.Equal(got, data) {
			t.Errorf("%s.json is not the learned model", r.Name)
		}
		got, err = os.ReadFile(filepath.Join(out, r.Name+".dot"))
		if err != nil {
			t.Fatal(err)
		}
		if dot, _ := export.Write(docs[r.SimModel], export.FormatDOT, export.PictureOptions{}); !bytes.Equal(got, dot) {
			t.Errorf("%s.dot is not the learned typestate", r.Name)
		}
	}
}

func TestRunAllSame(t *testing.T) {
	rep, err := Run(context.Background(), Spec{
		PurposeFile: "purpose.yaml", Purpose: loadPurpose(t), Out: t.TempDir(), Learn: fromLearned(t),
		Targets: simTargets("a", "api23.dot", "b", "api23.dot"),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "target  states  transitions  vs a\n" +
		"a            3            5  baseline\n" +
		"b            3            5  same\n"
	if rep.Outcome() != AllSame || rep.Table() != want {
		t.Errorf("outcome %v\n%s\nwant\n%s", rep.Outcome(), rep.Table(), want)
	}
	if b := rep.Targets[1]; b.Same == nil || !*b.Same || b.Diff == nil || !b.Diff.Same || b.FirstDifference != "" {
		t.Errorf("b = %+v", b)
	}
	if strings.Contains(rep.Markdown(), " against ") {
		t.Errorf("matrix.md has a diff section for targets that are the same:\n%s", rep.Markdown())
	}
}

// A target that fails part-way leaves its last hypothesis in
// NAME.partial.json; one that fails at once leaves nothing; the targets
// after them still run, and each failure is logged as it happens.
func TestRunFailedTargetsKeepGoing(t *testing.T) {
	learned := fromLearned(t)
	last := learnedDocs(t)["api34.dot"]
	learn := func(ctx context.Context, p *purpose.Purpose, tg Target) (*model.Document, error) {
		switch tg.Name {
		case "flaky":
			return last, errors.New("device gone")
		case "broken":
			return nil, errors.New("no harness")
		}
		return learned(ctx, p, tg)
	}
	out := t.TempDir()
	var log bytes.Buffer
	rep, err := Run(context.Background(), Spec{
		PurposeFile: "purpose.yaml", Purpose: loadPurpose(t), Out: out, Learn: learn, Log: &log,
		Targets: simTargets("a", "api23.dot", "flaky", "api34.dot", "broken", "api34.dot", "gone", "nothere.dot", "b", "api23.dot"),
	})
	if err != nil {
		t.Fatal(err)
	}
	partial := filepath.Join(out, "flaky.partial.json")
	wantLog := "flaky: device gone (the last hypothesis is in " + partial + ")\n" +
		"broken: no harness\n" +
		"gone: backend.sim.model: open nothere.dot: no such file or directory\n"
	if log.String() != wantLog {
		t.Errorf("log:\n%s\nwant:\n%s", log.String(), wantLog)
	}
	wantTable := "target  states  transitions  vs a\n" +
		"a            3            5  baseline\n" +
		"flaky        -            -  failed: device gone (the last hypothesis is in " + partial + ")\n" +
		"broken       -            -  failed: no harness\n" +
		"gone         -            -  failed: backend.sim.model: open nothere.dot: no such file or directory\n" +
		"b            3            5  same\n"
	if rep.Outcome() != Failed || rep.Table() != wantTable {
		t.Errorf("outcome %v\n%s\nwant:\n%s", rep.Outcome(), rep.Table(), wantTable)
	}
	got, err := os.ReadFile(partial)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := last.Marshal(); !bytes.Equal(got, want) {
		t.Errorf("flaky.partial.json is not the last hypothesis")
	}
	entries, _ := os.ReadDir(out)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "a.dot a.json b.dot b.json flaky.partial.json" {
		t.Errorf("wrote %s", got)
	}
	wantMD := "| target | states | transitions | same as a | first differing trace |\n|---|---|---|---|---|\n" +
		"| a | 3 | 5 | baseline |  |\n" +
		"| flaky | - | - | failed | device gone (the last hypothesis is in " + partial + ") |\n" +
		"| broken | - | - | failed | no harness |\n" +
		"| gone | - | - | failed | backend.sim.model: open nothere.dot: no such file or directory |\n" +
		"| b | 3 | 5 | yes |  |\n"
	if md := rep.Markdown(); !strings.HasSuffix(md, wantMD) {
		t.Errorf("matrix.md:\n%s\nwant it to end with:\n%s", md, wantMD)
	}
}

// Without a baseline nothing is compared: the learned targets say so.
func TestRunBaselineFails(t *testing.T) {
	rep, err := Run(context.Background(), Spec{
		PurposeFile: "purpose.yaml", Purpose: loadPurpose(t), Out: t.TempDir(), Learn: fromLearned(t),
		Targets: simTargets("gone", "nothere.dot", "a", "api23.dot"),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "target  states  transitions  vs gone\n" +
		"gone         -            -  failed: backend.sim.model: open nothere.dot: no such file or directory\n" +
		"a            3            5  not compared: the baseline gone did not learn\n"
	if rep.Outcome() != Failed || rep.Table() != want {
		t.Errorf("outcome %v\n%s\nwant:\n%s", rep.Outcome(), rep.Table(), want)
	}
	if a := rep.Targets[1]; !a.Learned || a.Same != nil || a.Diff != nil {
		t.Errorf("a = %+v", a)
	}
}

// Each target learns the purpose with its own sim model or java command;
// the purpose the caller gave is left as it was.
func TestRunLearnsEachTargetsPurpose(t *testing.T) {
	p := loadPurpose(t)
	p.Backend.JVM = &purpose.JVMBackend{Java: "java", Options: []string{"-Xmx64m"}}
	orig := *p.Backend.Sim
	var got []string
	learn := func(ctx context.Context, q *purpose.Purpose, tg Target) (*model.Document, error) {
		got = append(got, tg.Name+": "+q.Backend.Sim.Model+" "+q.Backend.Sim.ModelPath+" "+q.Backend.Sim.Format+" "+
			q.Backend.JVM.Java+" "+strings.Join(q.Backend.JVM.Options, ","))
		return nil, errors.New("not learning")
	}
	rep, err := Run(context.Background(), Spec{PurposeFile: "p.yaml", Purpose: p, Out: t.TempDir(), Learn: learn,
		Targets: []Target{{Name: "sim"}, {Name: "m", SimModel: "models/m.dot"}, {Name: "j", Java: "/opt/jdk/bin/java"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"sim: api23.dot " + orig.ModelPath + " " + orig.Format + " java -Xmx64m",
		"m: models/m.dot models/m.dot auto java -Xmx64m",
		"j: api23.dot " + orig.ModelPath + " " + orig.Format + " /opt/jdk/bin/java -Xmx64m",
	}
	if !slices.Equal(got, want) {
		t.Errorf("learned\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// matrix.json records what each target differs in.
	wantJSON := `{
  "format": "droidstar-matrix",
  "version": 1,
  "purpose": "p.yaml",
  "baseline": "sim",
  "targets": [
    {
      "name": "sim",
      "learned": false,
      "error": "not learning"
    },
    {
      "name": "m",
      "model": "models/m.dot",
      "learned": false,
      "error": "not learning"
    },
    {
      "name": "j",
      "java": "/opt/jdk/bin/java",
      "learned": false,
      "error": "not learning"
    }
  ]
}
`
	if data, err := rep.JSON(); err != nil || string(data) != wantJSON {
		t.Errorf("matrix.json:\n%s\nwant:\n%s", data, wantJSON)
	}
	if s := p.Backend.Sim; s.Model != orig.Model || s.ModelPath != orig.ModelPath || s.Format != orig.Format || p.Backend.JVM.Java != "java" {
		t.Errorf("the caller's purpose changed: %+v %+v", p.Backend.Sim, p.Backend.JVM)
	}
}

// Device targets learn at once, each on its own device: every learn call
// here waits until all have started, which only happens if they run in
// parallel. (The timeout only turns a hang into a failure.)
func TestRunDevicesInParallel(t *testing.T) {
	doc := learnedDocs(t)["api23.dot"]
	targets := []Target{{Name: "api23", Device: "emulator-5554"}, {Name: "api34", Device: "emulator-5556"}, {Name: "api35", Device: "emulator-5558"}}
	started := make(chan struct{}, len(targets))
	all := make(chan struct{})
	go func() {
		for range targets {
			<-started
		}
		close(all)
	}()
	learn := func(ctx context.Context, _ *purpose.Purpose, tg Target) (*model.Document, error) {
		started <- struct{}{}
		select {
		case <-all:
			return doc, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := Run(ctx, Spec{Purpose: loadPurpose(t), Out: t.TempDir(), Learn: learn, Targets: targets})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Outcome() != AllSame {
		t.Errorf("devices did not learn in parallel:\n%s", rep.Table())
	}
	// The report keeps the order of the targets, not of their finishing.
	for i, r := range rep.Targets {
		if r.Target != targets[i] {
			t.Errorf("target %d is %+v, want %+v", i, r.Target, targets[i])
		}
	}
	data, err := rep.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"name": "api34",
      "device": "emulator-5556",
      "learned": true,`) {
		t.Errorf("matrix.json does not record the devices:\n%s", data)
	}
}

// Sim and jvm targets share the host: each learns after the one before
// has finished.
func TestRunHostTargetsOneAfterAnother(t *testing.T) {
	learned := fromLearned(t)
	var mu sync.Mutex
	var events []string
	note := func(e string) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, e)
	}
	learn := func(ctx context.Context, p *purpose.Purpose, tg Target) (*model.Document, error) {
		note("start " + tg.Name)
		defer note("end " + tg.Name)
		return learned(ctx, p, tg)
	}
	_, err := Run(context.Background(), Spec{Purpose: loadPurpose(t), Out: t.TempDir(), Learn: learn,
		Targets: simTargets("a", "api23.dot", "b", "api34.dot", "c", "api23.dot")})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"start a", "end a", "start b", "end b", "start c", "end c"}
	if !slices.Equal(events, want) {
		t.Errorf("events %v, want %v", events, want)
	}
}

func TestRunSpecErrors(t *testing.T) {
	p, learn := loadPurpose(t), fromLearned(t)
	for _, tc := range []struct {
		spec Spec
		want string
	}{
		{Spec{Purpose: p, Learn: learn}, "matrix: no targets"},
		{Spec{Purpose: p, Targets: simTargets("a", "api23.dot")}, "matrix: a spec needs a purpose and a learn function"},
		{Spec{Learn: learn, Targets: simTargets("a", "api23.dot")}, "matrix: a spec needs a purpose and a learn function"},
	} {
		if _, err := Run(context.Background(), tc.spec); err == nil || err.Error() != tc.want {
			t.Errorf("%+v: %v, want %s", tc.spec, err, tc.want)
		}
	}
}

// A sim model for a purpose without a sim backend is a failed target, not
// a crash (the command line cannot ask for it; a Spec can).
func TestRunSimModelWithoutSimBackend(t *testing.T) {
	p := loadPurpose(t)
	p.Backend.Sim = nil
	rep, err := Run(context.Background(), Spec{Purpose: p, Out: t.TempDir(), Learn: fromLearned(t), Targets: simTargets("a", "api23.dot")})
	if err != nil {
		t.Fatal(err)
	}
	if a := rep.Targets[0]; a.Learned || a.Error != "the purpose has no sim backend whose model api23.dot could replace" {
		t.Errorf("a = %+v", a)
	}
}

// A stop while a target learns leaves that target stopped, with its last
// hypothesis (or, before the first one, its statistics) in
// NAME.partial.json and nothing logged (the stop's own message says what
// became of it); the targets after it do not run, and the report says it
// was interrupted.
func TestRunStopped(t *testing.T) {
	learned := fromLearned(t)
	last := learnedDocs(t)["api34.dot"]
	stats := &model.Document{Format: model.Format, Version: model.Version, Name: "CountDownTimer",
		States: []model.State{}, Transitions: []model.Transition{}, Warnings: []string{"no hypothesis yet"}}
	if m, _, err := last.Machine(); err != nil || m.NumStates() != 4 {
		t.Fatalf("the last hypothesis's machine: %v", err)
	}
	errStopped := errors.New("stopped")
	var stopped bool
	var ran []string
	learn := func(ctx context.Context, p *purpose.Purpose, tg Target) (*model.Document, error) {
		ran = append(ran, tg.Name)
		switch tg.Name {
		case "hyp":
			stopped = true
			return last, errStopped
		case "nohyp":
			stopped = true
			return stats, errStopped
		}
		return learned(ctx, p, tg)
	}
	for _, tc := range []struct {
		stops   string
		states  int
		partial *model.Document
		error   string
	}{
		// 3: the typestate's states, as progress counts them (the error
		// sink apart).
		{"hyp", 3, last, "stopped (the last hypothesis is in OUT/hyp.partial.json)"},
		{"nohyp", 0, stats, "stopped (no hypothesis yet: the statistics are in OUT/nohyp.partial.json)"},
	} {
		t.Run(tc.stops, func(t *testing.T) {
			stopped, ran = false, nil
			out := t.TempDir()
			var log bytes.Buffer
			rep, err := Run(context.Background(), Spec{
				PurposeFile: "purpose.yaml", Purpose: loadPurpose(t), Out: out, Learn: learn, Log: &log,
				Stopped: func() bool { return stopped },
				Targets: simTargets("a", "api23.dot", tc.stops, "api34.dot", "c", "api23.dot"),
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(ran, " "); got != "a "+tc.stops {
				t.Errorf("learned %s, want a and %s", got, tc.stops)
			}
			if log.Len() != 0 {
				t.Errorf("log: %q", log.String())
			}
			if !rep.Interrupted() {
				t.Errorf("the report is not interrupted")
			}
			a, s, c := rep.Targets[0], rep.Targets[1], rep.Targets[2]
			if !a.Learned || a.Stopped || a.NotRun {
				t.Errorf("a = %+v", a)
			}
			partial := filepath.Join(out, tc.stops+".partial.json")
			if s.Learned || !s.Stopped || s.NotRun || s.Partial != partial || s.PartialStates != tc.states || s.PartialSink != (tc.states > 0) || s.PartialErr != nil ||
				strings.ReplaceAll(s.Error, out, "OUT") != tc.error {
				t.Errorf("%s = %+v", tc.stops, s)
			}
			if c.Learned || c.Stopped || !c.NotRun || c.Error != "" {
				t.Errorf("c = %+v", c)
			}
			got, err := os.ReadFile(partial)
			if err != nil {
				t.Fatal(err)
			}
			if want, _ := tc.partial.Marshal(); !bytes.Equal(got, want) {
				t.Errorf("%s is not what the target returned", partial)
			}
			entries, _ := os.ReadDir(out)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if got, want := strings.Join(names, " "), "a.dot a.json "+tc.stops+".partial.json"; got != want {
				t.Errorf("wrote %s, want %s", got, want)
			}
		})
	}
	// Without a stop, nothing is interrupted.
	rep, err := Run(context.Background(), Spec{PurposeFile: "purpose.yaml", Purpose: loadPurpose(t), Out: t.TempDir(),
		Learn: learned, Stopped: func() bool { return false }, Targets: simTargets("a", "api23.dot", "b", "api34.dot")})
	if err != nil || rep.Interrupted() {
		t.Errorf("a run with no stop: %v, interrupted %v", err, rep.Interrupted())
	}
}
