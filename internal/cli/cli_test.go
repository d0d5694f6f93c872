package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/golden"
	"github.com/droidstar/droidstar/internal/model"
)

// droidstar executes the command line in-process, as the binary does.
func droidstar(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(args, &out, &errb)
	return code, out.String(), errb.String()
}

// repoPath is golden.Path (a file by its path from the repository's root),
// under the name the CLI's tests call it by.
func repoPath(parts ...string) string { return golden.Path(parts...) }

// Every malformed purpose is reported by 'check' exactly as its "# want:"
// lines say, with exit code 1.
func TestCheckReportsEachMistakeExactly(t *testing.T) {
	files, err := filepath.Glob(repoPath("testdata", "purposes", "bad", "*.yaml"))
	if err != nil || len(files) < 20 {
		t.Fatalf("found %d bad purposes (%v)", len(files), err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, line := range strings.Split(string(data), "\n") {
				if w, ok := strings.CutPrefix(line, "# want: "); ok {
					w = strings.ReplaceAll(w, "FILE", file)
					want = append(want, strings.ReplaceAll(w, "DIR", filepath.Dir(file)))
				}
			}
			if len(want) == 0 {
				t.Fatal("no '# want:' line")
			}
			code, stdout, stderr := droidstar(t, "check", file)
			wantErr := strings.Join(want, "\n") + "\ndroidstar: 1 of 1 purpose files have errors\n"
			if code != ExitFail || stdout != "" || stderr != wantErr {
				t.Fatalf("exit %d\nstdout %q\nstderr:\n%s\nwant:\n%s", code, stdout, stderr, wantErr)
			}
		})
	}
}

func TestCheckExamples(t *testing.T) {
	files, _ := filepath.Glob(repoPath("examples", "*", "purpose.yaml"))
	sort.Strings(files)
	// bluetoothadapter's paired device (RFC 7042's documentation range):
	// the other purposes declare no address and leave it be.
	code, stdout, stderr := droidstar(t, append([]string{"check", "--set", "address=00:00:5E:00:53:01"}, files...)...)
	if code != ExitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	want := ""
	const adb = "adb (resolved on the device when learning starts), "
	for _, f := range files {
		want += f + ": ok: "
		switch filepath.Base(filepath.Dir(f)) {
		case "asynctask":
			want += "AsyncTask, 2 callins, 2 callbacks, bound 2, backends " + adb + "sim (mealy-dot model, 6 states)\n"
		case "countdowntimer":
			want += "CountDownTimer, 2 callins, 1 callback, bound 2, backends " + adb + "sim (mealy-dot model, 4 states)\n"
		case "fileobserver":
			want += "FileObserver, 4 callins, 2 callbacks, bound 3, backends " + adb + "sim (mealy-dot model, 12 states)\n"
		case "mediaplayer":
			want += "MediaPlayer, 8 callins, 3 callbacks, bound 2, backends " + adb + "sim (mealy-dot model, 13 states)\n"
		case "speechrecognizer":
			want += "SpeechRecognizer, 3 callins, 4 callbacks, bound 2, backends " + adb + "sim (mealy-dot model, 8 states)\n"
		case "spellcheckersession":
			want += "SpellCheckerSession, 3 callins, 1 callback, bound 2, backends " + adb + "sim (mealy-dot model, 5 states)\n"
		case "sqliteopenhelper":
			want += "SQLiteOpenHelper, 5 callins, 4 callbacks, bound 2, backends " + adb + "sim (mealy-dot model, 9 states)\n"
		// Device-only purposes (DroidStar's other benchmarks): checked, not learned here.
		case "bluetoothadapter":
			want += "BluetoothAdapter, 3 callins, 3 callbacks, bound 2, backends adb (resolved on the device when learning starts)\n"
		case "downloadmanager":
			want += "DownloadManager, 3 callins, 1 callback, bound 2, backends adb (resolved on the device when learning starts)\n"
		case "imageloader":
			want += "ImageLoader, 3 callins, 4 callbacks, bound 2, backends adb (resolved on the device when learning starts)\n"
		case "mediacodec":
			want += "MediaCodec, 6 callins, 4 callbacks, bound 2, backends adb (resolved on the device when learning starts)\n"
		case "mediarecorder":
			want += "MediaRecorder, 9 callins, 2 callbacks, bound 2, backends adb (resolved on the device when learning starts)\n"
		case "mediascannerconnection":
			want += "MediaScannerConnection, 3 callins, 1 callback, bound 2, backends adb (resolved on the device when learning starts)\n"
		case "okhttp":
			want += "OkHttpCall, 4 callins, 3 callbacks, bound 2, backends adb (resolved on the device when learning starts)\n"
		case "velocitytracker":
			want += "VelocityTracker, 5 callins, 0 callbacks, bound 2, backends adb (resolved on the device when learning starts)\n"
		case "volley":
			want += "RequestQueue, 3 callins, 3 callbacks, bound 2, backends adb (resolved on the device when learning starts)\n"
		default:
			t.Errorf("%s: an example this test does not know: add its check line", f)
		}
	}
	if stdout != want {
		t.Fatalf("stdout:\n%s\nwant:\n%s", stdout, want)
	}
}

// The examples' second purposes (a variant beside purpose.yaml, such as
// fileobserver's started.yaml) check too, sim models and all.
func TestCheckExampleVariants(t *testing.T) {
	all, _ := filepath.Glob(repoPath("examples", "*", "*.yaml"))
	var files []string
	for _, f := range all {
		if filepath.Base(f) != "purpose.yaml" && filepath.Base(filepath.Dir(f)) != "jvm" {
			files = append(files, f)
		}
	}
	sort.Strings(files)
	want := []string{"bluetoothadapter/discovery.yaml", "fileobserver/started.yaml", "okhttp/reset-call.yaml", "valueanimator/animator.yaml"}
	var got []string
	for _, f := range files {
		got = append(got, filepath.ToSlash(filepath.Join(filepath.Base(filepath.Dir(f)), filepath.Base(f))))
	}
	if !slices.Equal(got, want) {
		t.Fatalf("variants %v, want %v: add a new one here", got, want)
	}
	code, stdout, stderr := droidstar(t, append([]string{"check"}, files...)...)
	wantOut := files[0] + ": ok: BluetoothAdapterDiscovery, 4 callins, 4 callbacks, bound 2, backends adb (resolved on the device when learning starts)\n" +
		files[1] + ": ok: FileObserverStarted, 3 callins, 2 callbacks, bound 2, backends adb (resolved on the device when learning starts), sim (mealy-dot model, 5 states)\n" +
		files[2] + ": ok: OkHttpCallAtReset, 2 callins, 2 callbacks, bound 2, backends adb (resolved on the device when learning starts)\n" +
		files[3] + ": ok: ValueAnimator, 2 callins, 3 callbacks, bound 2, backends adb (resolved on the device when learning starts), sim (mealy-dot model, 8 states)\n"
	if code != ExitOK || stderr != "" || stdout != wantOut {
		t.Fatalf("exit %d, stderr %s\nstdout:\n%s\nwant:\n%s", code, stderr, stdout, wantOut)
	}
}

// A purpose whose sim model lacks a callin is caught before anything runs.
func TestCheckCatchesModelMismatch(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "m.dot"), []byte("digraph { a -> a [label=\"start / ok\"]; a -> a [label=\"wait / ping\"]; }\n"), 0o644)
	purposeFile := filepath.Join(dir, "p.yaml")
	os.WriteFile(purposeFile, []byte("name: T\ncallins: [start, stop]\ncallbacks: [pong]\nbackend:\n  sim:\n    model: m.dot\n"), 0o644)
	code, _, stderr := droidstar(t, "check", purposeFile)
	want := purposeFile + `:2:18: callins[1]: the model m.dot has no input "stop" (model inputs: start, wait)` + "\n" +
		"droidstar: 1 of 1 purpose files have errors\n"
	if code != ExitFail || stderr != want {
		t.Fatalf("exit %d, stderr:\n%s\nwant:\n%s", code, stderr, want)
	}
	os.WriteFile(purposeFile, []byte("name: T\ncallins: [start]\ncallbacks: [pong]\nbackend:\n  sim:\n    model: m.dot\n"), 0o644)
	code, _, stderr = droidstar(t, "check", purposeFile)
	want = purposeFile + `:6:12: backend.sim.model: m.dot emits callback "ping", which the purpose does not declare (callbacks and their from names: pong)` + "\n" +
		"droidstar: 1 of 1 purpose files have errors\n"
	if code != ExitFail || stderr != want {
		t.Fatalf("exit %d, stderr:\n%s\nwant:\n%s", code, stderr, want)
	}
	os.WriteFile(filepath.Join(dir, "plain.dot"), []byte("digraph { a -> a [label=\"start / ok\"]; }\n"), 0o644)
	os.WriteFile(purposeFile, []byte("name: T\ncallins: [start]\nbackend:\n  sim:\n    model: plain.dot\n"), 0o644)
	code, _, stderr = droidstar(t, "check", purposeFile)
	want = purposeFile + `:5:12: backend.sim.model: plain.dot is a plain Mealy machine (no "wait" input); a purpose needs a synchronous-closure model` + "\n" +
		"droidstar: 1 of 1 purpose files have errors\n"
	if code != ExitFail || stderr != want {
		t.Fatalf("exit %d, stderr:\n%s\nwant:\n%s", code, stderr, want)
	}
}

// A model whose format cannot be told asks for it where the user names it:
// the purpose's field, or the command line's flag.
func TestUnknownModelFormatNamesWhereToSetIt(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.dot")
	os.WriteFile(model, []byte("digraph { a -> b }\n"), 0o644)
	purposeFile := filepath.Join(dir, "p.yaml")
	os.WriteFile(purposeFile, []byte("name: T\ncallins: [start]\nbackend:\n  sim:\n    model: m.dot\n"), 0o644)
	code, _, stderr := droidstar(t, "check", purposeFile)
	want := model + ": cannot tell the model's format: no edge has a label; set format: beside model: in the purpose's backend.sim (" + purposeFile + ":5:12): droidstar-dot, mealy-dot or json\n" +
		"droidstar: 1 of 1 purpose files have errors\n"
	if code != ExitFail || stderr != want {
		t.Fatalf("check: exit %d, stderr:\n%s\nwant:\n%s", code, stderr, want)
	}
	code, stdout, stderr := droidstar(t, "learn", "--model", model, "-o", dir)
	want = "droidstar: " + model + ": cannot tell the model's format: no edge has a label; name it with --model-format: droidstar-dot, mealy-dot or json\n"
	if code != ExitFail || stdout != "" || stderr != want {
		t.Fatalf("learn --model: exit %d, stderr:\n%s\nwant:\n%s", code, stderr, want)
	}
}

// -q prints nothing but errors: no progress, no summary, no "wrote" lines;
// the files are written all the same.
func TestLearnQuietPrintsNothing(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := droidstar(t, "learn", "--example", "countdowntimer", "-o", dir, "-q")
	if code != ExitOK || stdout != "" || stderr != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	for _, f := range []string{"CountDownTimer.json", "CountDownTimer.dot"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

// The README's tour starts here: learn an embedded example on the simulated
// device and get the typestate in every format.
func TestLearnEmbeddedExample(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := droidstar(t, "learn", "--example", "countdowntimer", "-o", dir, "--write", "json,dot,legacy-dot,summary")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, f := range []string{"CountDownTimer.json", "CountDownTimer.dot", "CountDownTimer.gv", "CountDownTimer.txt"} {
		if !strings.Contains(stderr, "wrote "+filepath.Join(dir, f)+"\n") {
			t.Errorf("stderr does not report %s:\n%s", f, stderr)
		}
	}
	legacy, err := os.ReadFile(filepath.Join(dir, "CountDownTimer.gv"))
	if err != nil {
		t.Fatal(err)
	}
	const wantLegacy = `digraph {
  0 -> 1[label=start];
  0 -> 0[label=cancel];
  0 -> 0[label=delta_beta];
  1 -> 3[label=cancel];
  1 -> 3[label=delta_finished];
  3 -> 3[label=cancel];
  3 -> 3[label=delta_beta];
}
`
	if string(legacy) != wantLegacy {
		t.Fatalf("typestate:\n%s\nwant:\n%s", legacy, wantLegacy)
	}
	doc, err := model.ReadFile(filepath.Join(dir, "CountDownTimer.json"))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Name != "CountDownTimer" || doc.Bound.Used != 2 || doc.Bound.LearnedNeeds != 1 || doc.Stats.States != 3 ||
		doc.Purpose.File != "examples/countdowntimer/purpose.yaml" || doc.Backend.Kind != "sim" || !doc.Stats.VirtualClock {
		t.Fatalf("metadata: %+v %+v %+v %+v", doc, doc.Bound, doc.Purpose, doc.Stats)
	}
	// The start after a start is excluded by the purpose, not thrown.
	var excluded int
	for _, tr := range doc.Transitions {
		if tr.Err != nil && tr.Err.Kind == model.ErrExcluded && tr.Input == "start" {
			excluded++
		}
	}
	if excluded != 2 {
		t.Errorf("%d start transitions marked excluded, want 2 (running and done)", excluded)
	}
	for _, line := range []string{
		"  s0 --start-->    s1\n", "  s1 ==finished==> s3\n",
		"bound: 2 used, the learned model needs 1\n",
		"target: the learned model equals the target, which needs bound 1\n",
	} {
		if !strings.Contains(stdout, line) {
			t.Errorf("summary lacks %q:\n%s", line, stdout)
		}
	}
	summary, _ := os.ReadFile(filepath.Join(dir, "CountDownTimer.txt"))
	if string(summary) != stdout {
		t.Errorf("summary file differs from the printed summary")
	}
}

// A model file is learned directly, its alphabet derived from the model.
func TestLearnModelFile(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := droidstar(t, "learn", "--model", repoPath("testdata", "models", "vending-mealy.dot"), "-o", dir, "-q", "--write", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	doc, err := model.ReadFile(filepath.Join(dir, "vending-mealy.json"))
	if err != nil {
		t.Fatal(err)
	}
	learned, _, err := doc.Machine()
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(repoPath("testdata", "models", "vending-mealy.json"))
	target, _ := model.Unmarshal(data)
	want, _, err := target.Machine()
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := learned.Equivalent(want); !ok || err != nil {
		t.Fatalf("learned model differs from the file (err %v)", err)
	}
	if doc.Semantics != model.SemanticsMealy {
		t.Fatalf("semantics %q", doc.Semantics)
	}
}

func TestExportRendersAModel(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := droidstar(t, "learn", "--example", "asynctask", "-o", dir, "-q", "--write", "json"); code != ExitOK {
		t.Fatal(stderr)
	}
	file := filepath.Join(dir, "AsyncTask.json")
	code, stdout, _ := droidstar(t, "export", file, "--format", "legacy-dot")
	const want = `digraph {
  0 -> 1[label=exec];
  0 -> 2[label=cancel];
  0 -> 0[label=delta_beta];
  1 -> 4[label=cancel];
  1 -> 5[label=delta_postexec];
  2 -> 4[label=exec];
  2 -> 2[label=cancel];
  2 -> 5[label=delta_cancelled];
  4 -> 4[label=cancel];
  4 -> 5[label=delta_cancelled];
  5 -> 5[label=cancel];
  5 -> 5[label=delta_beta];
}
`
	if code != ExitOK || stdout != want {
		t.Fatalf("exit %d:\n%s", code, stdout)
	}
	out := filepath.Join(dir, "a.dot")
	if code, _, stderr := droidstar(t, "export", file, "-f", "dot", "-o", out); code != ExitOK || stderr != "wrote "+out+"\n" {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if data, _ := os.ReadFile(out); !bytes.HasPrefix(data, []byte("digraph AsyncTask {")) {
		t.Fatalf("DOT output:\n%s", data)
	}
}

func TestExportRejectsCorruptModels(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "bad.json")
	os.WriteFile(file, []byte("{\"format\": \"droidstar-model\",\n \"version\": 1,\n \"states\": oops}\n"), 0o644)
	code, _, stderr := droidstar(t, "export", file)
	want := "droidstar: " + file + ": 3:12: invalid character 'o' looking for beginning of value\n"
	if code != ExitFail || stderr != want {
		t.Fatalf("exit %d: %q, want %q", code, stderr, want)
	}
	code, _, stderr = droidstar(t, "export", filepath.Join(dir, "missing.json"))
	if code != ExitFail || !strings.Contains(stderr, "missing.json: no such file or directory") {
		t.Fatalf("exit %d: %q", code, stderr)
	}
}

func TestUsageErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"learn"}, "droidstar: learn needs exactly one of: a purpose file, --example NAME, --model FILE\nRun 'droidstar learn --help' for usage.\n"},
		{[]string{"learn", "a.yaml", "--example", "asynctask"}, "droidstar: learn needs exactly one of: a purpose file, --example NAME, --model FILE\nRun 'droidstar learn --help' for usage.\n"},
		{[]string{"learn", "--example", "asynctask", "--write", "png"}, "droidstar: --write: unknown format \"png\" (formats: json, dot, svg, mermaid, legacy-dot, lifestate, lifestate-json, summary)\n"},
		{[]string{"learn", "--example", "asynctask", "--lanes", "0"}, "droidstar: --lanes must be at least 1, got 0\n"},
		{[]string{"learn", "--bogus"}, "droidstar: unknown flag: --bogus\nRun 'droidstar learn --help' for usage.\n"},
		{[]string{"export"}, "droidstar: droidstar export takes one model file, got 0 arguments\nRun 'droidstar export --help' for usage.\n"},
		{[]string{"export", "m.json", "--format", "png"}, "droidstar: --format: unknown format \"png\" (formats: json, dot, svg, mermaid, legacy-dot, lifestate, lifestate-json, summary)\n"},
		{[]string{"check"}, "droidstar: check needs at least one purpose file\nRun 'droidstar check --help' for usage.\n"},
		{[]string{"bench", "--only", "speed"}, "droidstar: --only: unknown suite \"speed\" (suites: droidstar, mealy, examples, checks, timeout)\n"},
		{[]string{"learn", "--example", "asynctask", "--device", "emulator-5554"}, "droidstar: --device and --devices choose devices for backend adb, but this run uses backend sim\n"},
		{[]string{"learn", repoPath("examples", "asynctask", "purpose.yaml"), "--device", "a", "--devices", "b"}, "droidstar: --device and --devices are exclusive: --device picks one, --devices shares the queries among several\n"},
		{[]string{"learn", repoPath("examples", "asynctask", "purpose.yaml"), "--devices", "all,b"}, "droidstar: --devices: all cannot be combined with serials\n"},
		{[]string{"learn", repoPath("examples", "asynctask", "purpose.yaml"), "--lanes", "2"}, "droidstar: --lanes does not apply to backend adb: each device runs one query at a time; share the queries among devices with --devices\n"},
		{[]string{"devices", "extra"}, "droidstar: droidstar devices takes no arguments, got 1 arguments\nRun 'droidstar devices --help' for usage.\n"},
		{[]string{"devices", "--format", "xml"}, "droidstar: --format: want text or json, got \"xml\"\n"},
	}
	for _, c := range cases {
		code, stdout, stderr := droidstar(t, c.args...)
		if code != ExitUsage || stdout != "" || stderr != c.want {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, stderr, c.want)
		}
	}
}

func TestLearnUnknownExampleIsAUsageError(t *testing.T) {
	code, stdout, stderr := droidstar(t, "learn", "--example", "nosuch")
	want := "droidstar: --example: no example \"nosuch\" (examples: asynctask, countdowntimer, fileobserver, mediaplayer, speechrecognizer, spellcheckersession, sqliteopenhelper)\n"
	if code != ExitUsage || stdout != "" || stderr != want {
		t.Fatalf("exit %d, stderr %q, want %q", code, stderr, want)
	}
}

func TestLearnFailuresExitOne(t *testing.T) {
	bad := repoPath("testdata", "purposes", "bad", "unknown-key.yaml")
	code, _, stderr := droidstar(t, "learn", bad)
	if code != ExitFail || !strings.HasPrefix(stderr, "droidstar: "+bad+":") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}

func TestVersionAndHelp(t *testing.T) {
	if code, stdout, _ := droidstar(t, "version"); code != ExitOK || stdout != "droidstar "+toolVersion()+"\n" {
		t.Fatalf("exit %d: %q", code, stdout)
	}
	for _, cmd := range []string{"learn", "check", "export", "bench", "examples", "version"} {
		code, stdout, _ := droidstar(t, cmd, "--help")
		if code != ExitOK || !strings.Contains(stdout, "Examples:\n") {
			t.Errorf("%s --help: exit %d, no examples:\n%s", cmd, code, stdout)
		}
	}
	code, stdout, _ := droidstar(t, "completion", "bash")
	if code != ExitOK || !strings.Contains(stdout, "__start_droidstar") {
		t.Fatalf("bash completion: exit %d", code)
	}
}

func TestExamplesList(t *testing.T) {
	code, stdout, _ := droidstar(t, "examples")
	want := `NAME                 CLASS                                         CALLINS  CALLBACKS
asynctask            android.os.AsyncTask                          2        2
countdowntimer       android.os.CountDownTimer                     2        1
fileobserver         android.os.FileObserver                       4        2
mediaplayer          android.media.MediaPlayer                     8        3
speechrecognizer     android.speech.SpeechRecognizer               3        4
spellcheckersession  android.view.textservice.SpellCheckerSession  3        1
sqliteopenhelper     android.database.sqlite.SQLiteOpenHelper      5        4
`
	if code != ExitOK || stdout != want {
		t.Fatalf("exit %d:\n%s", code, stdout)
	}
}

// An environment callback (error: environment) fails the query it comes
// in: learning stops with the reason, and no model of the broken
// environment is written as the class's.
func TestEnvironmentCallbackStopsLearning(t *testing.T) {
	dir := t.TempDir()
	model := "digraph {\n  __start0 -> idle;\n  idle -> busy [label=\"start / ok\"];\n  idle -> idle [label=\"wait / quiet\"];\n" +
		"  busy -> busy [label=\"start / ok\"];\n  busy -> idle [label=\"wait / env\"];\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "m.dot"), []byte(model), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "p.yaml")
	src := "name: Env\ncallins: [start]\ncallbacks:\n  - {symbol: env, error: environment}\nbackend: {sim: {model: m.dot}}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, stdout, stderr := droidstar(t, "learn", file, "-o", out)
	// The query that met the callback is the padded word the device ran.
	want := "droidstar: sim-0: query start wait start start start start: the environment failed, not the class: callback env came, which the purpose declares error: environment; fix the device or its set-up and learn again\n"
	if code != ExitFail || stdout != "" || stderr != want {
		t.Fatalf("exit %d, stdout %q\nstderr %s\nwant   %s", code, stdout, stderr, want)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("learn wrote %s (%v)", out, err)
	}
}

// learn --help says that a purpose's bound: wins when --bound is absent
// (cobra's "(default 2)" would say the opposite).
func TestLearnHelpSaysWhereTheBoundComesFrom(t *testing.T) {
	code, stdout, _ := droidstar(t, "learn", "--help")
	want := "      --bound string                 distinguisher bound: N, auto, auto:MAX (default: the purpose's)"
	if code != ExitOK || !strings.Contains(stdout, "\n"+want) || strings.Contains(stdout, "(default 2)") {
		t.Fatalf("exit %d; want the line starting %q and no \"(default 2)\" in:\n%s", code, want, stdout)
	}
}
