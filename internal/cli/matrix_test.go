package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/golden"
	"github.com/droidstar/droidstar/internal/store"
)

func TestMatrixAcrossModels(t *testing.T) {
	dir := repoPath("testdata", "matrix")
	out := t.TempDir()
	code, stdout, stderr := droidstar(t, "matrix", filepath.Join(dir, "purpose.yaml"),
		"--sim-model", "api23="+filepath.Join(dir, "api23.dot"),
		"--sim-model", "same="+filepath.Join(dir, "api23.dot"),
		"--sim-model", "api34="+filepath.Join(dir, "api34.dot"), "-o", out)
	wantTable := "target  states  transitions  vs api23\n" +
		"api23        3            5  baseline\n" +
		"same         3            5  same\n" +
		"api34        3            4  different: cancel\n"
	if code != ExitFail || stdout != wantTable {
		t.Fatalf("exit %d\nstdout:\n%s\nwant:\n%s\nstderr: %s", code, stdout, wantTable, stderr)
	}
	if !strings.HasSuffix(stderr, "droidstar: the targets differ from the baseline api23\n") {
		t.Errorf("stderr: %s", stderr)
	}
	entries, _ := os.ReadDir(out)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	if got := strings.Join(names, " "); got != "api23.dot api23.json api34.dot api34.json matrix.json matrix.md same.dot same.json" {
		t.Errorf("wrote %s", got)
	}
	// The formats are internal/matrix's to test; here, that the command
	// writes them.
	data, err := os.ReadFile(filepath.Join(out, "matrix.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Format   string `json:"format"`
		Baseline string `json:"baseline"`
	}
	if err := json.Unmarshal(data, &rep); err != nil || rep.Format != "droidstar-matrix" || rep.Baseline != "api23" {
		t.Errorf("matrix.json = %+v, %v", rep, err)
	}
	md, err := os.ReadFile(filepath.Join(out, "matrix.md"))
	if err != nil || !strings.HasPrefix(string(md), "# Typestate matrix: "+filepath.Join(dir, "purpose.yaml")+"\n") {
		t.Errorf("matrix.md: %v\n%s", err, md)
	}
}

func TestMatrixAllSameExitsZero(t *testing.T) {
	dir := repoPath("testdata", "matrix")
	code, stdout, stderr := droidstar(t, "matrix", filepath.Join(dir, "purpose.yaml"), "-o", t.TempDir(),
		"--sim-model", "a="+filepath.Join(dir, "api23.dot"), "--sim-model", "b="+filepath.Join(dir, "api23.dot"))
	if code != ExitOK || !strings.HasSuffix(stdout, "b            3            5  same\n") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
}

func TestMatrixUsageErrors(t *testing.T) {
	dir := repoPath("testdata", "matrix")
	purposeFile := filepath.Join(dir, "purpose.yaml")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--sim-model", "api23"}, `droidstar: --sim-model "api23": want NAME=FILE, e.g. api23=models/api23.dot`},
		{[]string{"--sim-model", "a b=x.dot"}, `droidstar: --sim-model "a b=x.dot": the name "a b" must use letters, digits, '_', '-' and '.'`},
		{[]string{"--sim-model", "a=x.dot", "--sim-model", "a=y.dot"}, `droidstar: --sim-model "a=y.dot": target a is given twice`},
		{[]string{"--devices", "all"}, "droidstar: --devices names devices for backend adb, but the purpose runs on backend sim (use --backend adb if it lists one)"},
		{[]string{"--devices", ""}, "droidstar: --devices names devices for backend adb, but the purpose runs on backend sim (use --backend adb if it lists one)"},
		{[]string{"--sim-model", "matrix=x.dot"}, `droidstar: --sim-model "matrix=x.dot": the name matrix is taken by the report (matrix.json, matrix.md)`},
		{[]string{"--sim-model", "-x=x.dot"}, `droidstar: --sim-model "-x=x.dot": the name "-x" must use letters, digits, '_', '-' and '.'`},
		{[]string{"--sim-model", "=x.dot"}, `droidstar: --sim-model "=x.dot": the name "" must use letters, digits, '_', '-' and '.'`},
		{[]string{"--java", "jdk=java"}, "droidstar: --java picks the java command of the jvm backend, but the purpose runs on backend sim (use --backend jvm if it lists one)"},
		{[]string{"--java", "jdk=java", "--sim-model", "a=x.dot"}, "droidstar: --sim-model and --java do not mix: --sim-model is for the sim backend, --java for the jvm backend"},
		{[]string{"--backend", "jvm"}, `droidstar: --backend: backend "jvm" is not configured by the purpose (it configures: sim, adb)`},
		{[]string{"--lanes", "0"}, "droidstar: --lanes must be at least 1, got 0"},
		{[]string{"--grace", "-1s"}, "droidstar: --grace must not be negative, got -1s"},
	}
	for _, tc := range cases {
		code, _, stderr := droidstar(t, append([]string{"matrix", purposeFile, "-o", t.TempDir()}, tc.args...)...)
		if code != ExitUsage || strings.TrimSpace(stderr) != tc.want {
			t.Errorf("%v: exit %d, stderr %s\nwant %s", tc.args, code, stderr, tc.want)
		}
	}
	jvmPurpose := repoPath("examples", "jvm", "timer.yaml")
	asynctask := repoPath("examples", "asynctask", "purpose.yaml")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{jvmPurpose, "--sim-model", "a=x.dot"}, "droidstar: --sim-model replaces the sim model, but the purpose runs on backend jvm (use --backend sim if it lists one)"},
		{[]string{jvmPurpose, "--java", "jdk"}, `droidstar: --java "jdk": want NAME=PATH, e.g. jdk21=/usr/lib/jvm/java-21-openjdk-amd64/bin/java`},
		{[]string{jvmPurpose, "--java", "a=java", "--java", "a=java"}, `droidstar: --java "a=java": target a is given twice`},
		{[]string{asynctask, "--backend", "adb", "--sim-model", "a=x.dot"}, "droidstar: --sim-model and --java are for the sim and jvm backends; with backend adb the targets are --devices"},
		{[]string{asynctask, "--backend", "adb", "--lanes", "2"}, "droidstar: --lanes does not apply to backend adb: each device is a target and runs one query at a time"},
		{[]string{purposeFile, "other.yaml"}, "droidstar: matrix needs exactly one purpose file\nRun 'droidstar matrix --help' for usage."},
	} {
		code, stdout, stderr := droidstar(t, append([]string{"matrix", "-o", t.TempDir()}, tc.args...)...)
		if code != ExitUsage || stdout != "" || strings.TrimSpace(stderr) != tc.want {
			t.Errorf("%v: exit %d, stdout %q, stderr %s\nwant %s", tc.args, code, stdout, stderr, tc.want)
		}
	}
	// Nothing is learned or written before the command line is checked.
	out := t.TempDir()
	droidstar(t, "matrix", purposeFile, "-o", out, "--sim-model", "a="+filepath.Join(dir, "api23.dot"), "--sim-model", "a=x.dot")
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("a usage error wrote %d files", len(entries))
	}
}

// A target that cannot be learned is a failed row; the others still run.
func TestMatrixFailedTargetKeepsGoing(t *testing.T) {
	dir := repoPath("testdata", "matrix")
	missing := filepath.Join(dir, "nothere.dot")
	code, stdout, stderr := droidstar(t, "matrix", filepath.Join(dir, "purpose.yaml"), "-o", t.TempDir(),
		"--sim-model", "a="+filepath.Join(dir, "api23.dot"), "--sim-model", "gone="+missing)
	want := "target  states  transitions  vs a\n" +
		"a            3            5  baseline\n" +
		"gone         -            -  failed: --sim-model gone=" + missing + ": open " + missing + ": no such file or directory\n"
	if code != ExitFail || stdout != want || !strings.HasSuffix(stderr, "droidstar: not every target learned\n") {
		t.Errorf("exit %d\nstdout:\n%s\nwant:\n%s\nstderr: %s", code, stdout, want, stderr)
	}
}

// A --sim-model file is blamed on the command line, not on the purpose's
// model it replaces; and a failed baseline gives the others a reason.
func TestMatrixBlamesTheCommandLinesModel(t *testing.T) {
	dir := repoPath("testdata", "matrix")
	unlabelled := filepath.Join(t.TempDir(), "unlabelled.dot")
	if err := os.WriteFile(unlabelled, []byte("digraph { a -> b }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(t.TempDir(), "plain.dot")
	if err := os.WriteFile(plain, []byte("digraph { a -> a [label=\"start / ok\"]; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := droidstar(t, "matrix", filepath.Join(dir, "purpose.yaml"), "-o", t.TempDir(), "--store", "off",
		"--sim-model", "base="+unlabelled, "--sim-model", "plain="+plain, "--sim-model", "a="+filepath.Join(dir, "api23.dot"))
	want := "target  states  transitions  vs base\n" +
		"base         -            -  failed: " + unlabelled + ": cannot tell the model's format: no edge has a label; matrix tells the format of a --sim-model base=" + unlabelled +
		" file from its content alone; write it as one of: droidstar-dot, mealy-dot or json\n" +
		"plain        -            -  failed: --sim-model plain=" + plain + ": " + plain + " is a plain Mealy machine (no \"wait\" input); a purpose needs a synchronous-closure model\n" +
		"a            3            5  not compared: the baseline base did not learn\n"
	if code != ExitFail || stdout != want {
		t.Errorf("exit %d\nstdout:\n%s\nwant:\n%s", code, stdout, want)
	}
}

// Without --sim-model the purpose's own sim model is the only target: a
// one-column matrix, named after the backend.
func TestMatrixOneTarget(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := droidstar(t, "matrix", filepath.Join(repoPath("testdata", "matrix"), "purpose.yaml"), "-o", out)
	want := "target  states  transitions  vs sim\n" +
		"sim          3            5  baseline\n"
	if code != ExitOK || stdout != want {
		t.Fatalf("exit %d\nstdout:\n%s\nwant:\n%s\nstderr: %s", code, stdout, want, stderr)
	}
	for _, f := range []string{"sim.json", "sim.dot", "matrix.json", "matrix.md"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
}

// With the jvm backend, --java runs the real harness with the java command
// it names. (One target: a JVM learning run takes tens of seconds.)
func TestMatrixJava(t *testing.T) {
	needJava(t)
	if testing.Short() {
		t.Skip("learning on the real JVM takes tens of seconds")
	}
	java, err := exec.LookPath("java")
	if err != nil {
		java = filepath.Join(os.Getenv("JAVA_HOME"), "bin", "java")
	}
	out := t.TempDir()
	code, stdout, stderr := droidstar(t, "matrix", repoPath("examples", "jvm", "timer.yaml"), "-o", out,
		"--lanes", "4", "--java", "jdk="+java)
	want := "target  states  transitions  vs jdk\n" +
		"jdk          3            8  baseline\n"
	if code != ExitOK || stdout != want {
		t.Fatalf("exit %d\nstdout:\n%s\nwant:\n%s\nstderr: %s", code, stdout, want, stderr)
	}
	data, _ := os.ReadFile(filepath.Join(out, "matrix.json"))
	if !strings.Contains(string(data), `"java": "`+java+`"`) {
		t.Errorf("matrix.json does not record the java command:\n%s", data)
	}
}

// --model, matrix's old name for --sim-model (learn --model means another
// thing), still works: each use says it is deprecated, on stderr, and the
// entries of both spellings keep their command-line order.
func TestMatrixDeprecatedModelFlag(t *testing.T) {
	dir := repoPath("testdata", "matrix")
	code, stdout, stderr := droidstar(t, "matrix", filepath.Join(dir, "purpose.yaml"), "-o", t.TempDir(),
		"--model", "a="+filepath.Join(dir, "api23.dot"), "--sim-model", "b="+filepath.Join(dir, "api34.dot"),
		"--model", "c="+filepath.Join(dir, "api23.dot"))
	want := "target  states  transitions  vs a\n" +
		"a            3            5  baseline\n" +
		"b            3            4  different: cancel\n" +
		"c            3            5  same\n"
	notice := "Flag --model has been deprecated, use --sim-model NAME=FILE instead\n"
	if code != ExitFail || stdout != want || !strings.HasPrefix(stderr, notice+notice+"droidstar: a: learning\ndroidstar: b: learning\ndroidstar: c: learning\nwrote ") {
		t.Errorf("exit %d\nstdout:\n%s\nwant:\n%s\nstderr:\n%s", code, stdout, want, stderr)
	}
	// The deprecated name is hidden from the help; the new one is shown.
	_, help, _ := droidstar(t, "matrix", "--help")
	if !strings.Contains(help, "--sim-model stringArray") || strings.Contains(help, "--model ") {
		t.Errorf("help:\n%s", help)
	}
}

// Each target of a matrix resumes from the query store as learn does, under
// its own fingerprint: a target whose sim model has the same content as
// an earlier one's is answered from the store at once, the same command
// again executes nothing, --fresh runs everything again, and
// $DROIDSTAR_STORE names the store without --store.
func TestMatrixResumesFromTheStore(t *testing.T) {
	dir := repoPath("testdata", "matrix")
	db := filepath.Join(t.TempDir(), "team.db")
	matrix := func(environ map[string]string, extra ...string) (out, stderr string) {
		t.Helper()
		out = t.TempDir()
		// Without the final re-check, which runs every query a second time
		// on purpose: this counts that a resume runs nothing twice.
		args := append([]string{"matrix", filepath.Join(dir, "purpose.yaml"), "-o", out, "--verify-final=off",
			"--sim-model", "api23=" + filepath.Join(dir, "api23.dot"),
			"--sim-model", "api34=" + filepath.Join(dir, "api34.dot"),
			"--sim-model", "same=" + filepath.Join(dir, "api23.dot")}, extra...)
		code, stdout, stderr := runEnv(t, environ, args...)
		wantTable := "target  states  transitions  vs api23\n" +
			"api23        3            5  baseline\n" +
			"api34        3            4  different: cancel\n" +
			"same         3            5  same\n"
		if code != ExitFail || stdout != wantTable {
			t.Fatalf("exit %d\nstdout:\n%s\nwant:\n%s\nstderr: %s", code, stdout, wantTable, stderr)
		}
		return out, strings.ReplaceAll(stderr, out, "OUT")
	}
	executed := func(out string) (n map[string][2]int) {
		t.Helper()
		n = map[string][2]int{}
		for _, name := range []string{"api23", "api34", "same"} {
			tot := readModel(t, filepath.Join(out, name+".json")).Stats.Total()
			n[name] = [2]int{tot.Executed, tot.Stored}
		}
		return n
	}
	learning := func(target string) string { return "droidstar: " + target + ": learning\n" }
	tail := "wrote OUT/matrix.md and OUT/matrix.json\ndroidstar: the targets differ from the baseline api23\n"
	resuming := func(target string, n int) string {
		return fmt.Sprintf("droidstar: %s: resuming: %d answers stored in %s by earlier runs (--fresh ignores them)\n", target, n, db) + learning(target)
	}

	out, stderr := matrix(nil, "--store", db)
	first := executed(out)
	e23, e34 := first["api23"][0], first["api34"][0]
	if e23 == 0 || e34 == 0 {
		t.Fatalf("the first run executed %v", first)
	}
	if want := learning("api23") + learning("api34") + resuming("same", e23) + tail; stderr != want {
		t.Errorf("first run, stderr:\n%s\nwant:\n%s", stderr, want)
	}
	if got := first["same"]; got != [2]int{0, e23} {
		t.Errorf("same (api23's model) executed %d and took %d from the store; want 0 and %d", got[0], got[1], e23)
	}

	out, stderr = matrix(map[string]string{store.Env: db})
	if want := resuming("api23", e23) + resuming("api34", e34) + resuming("same", e23) + tail; stderr != want {
		t.Errorf("second run, stderr:\n%s\nwant:\n%s", stderr, want)
	}
	if got, want := executed(out), map[string][2]int{"api23": {0, e23}, "api34": {0, e34}, "same": {0, e23}}; !reflect.DeepEqual(got, want) {
		t.Errorf("second run: executed and stored %v, want %v", got, want)
	}

	out, stderr = matrix(nil, "--store", db, "--fresh")
	if want := learning("api23") + learning("api34") + learning("same") + tail; stderr != want {
		t.Errorf("--fresh, stderr:\n%s\nwant:\n%s", stderr, want)
	}
	if got, want := executed(out), map[string][2]int{"api23": {e23, 0}, "api34": {e34, 0}, "same": {e23, 0}}; !reflect.DeepEqual(got, want) {
		t.Errorf("--fresh: executed and stored %v, want %v", got, want)
	}
}

// A target whose answers a vote cannot settle ends the matrix with exit 4
// and its disagreeing traces side by side, as learn does; the other
// targets are learned, compared and written all the same. (--sim-flaky
// 0.2 with seed 32 makes api23's answers unsettled and api34's not: each
// target draws from the seed on its own queries, so the seed is tied to
// the queries the default settings run.)
func TestMatrixUnsettledVote(t *testing.T) {
	dir := repoPath("testdata", "matrix")
	out := t.TempDir()
	code, stdout, stderr := droidstar(t, "matrix", filepath.Join(dir, "purpose.yaml"), "-o", out,
		"--sim-model", "api34="+filepath.Join(dir, "api34.dot"),
		"--sim-model", "api23="+filepath.Join(dir, "api23.dot"),
		"--sim-model", "same="+filepath.Join(dir, "api34.dot"),
		"--sim-flaky", "0.2", "--seed", "32")
	if code != ExitFlaky {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, ExitFlaky, stdout, stderr)
	}
	got := strings.ReplaceAll(stdout+"--- stderr\n"+stderr, out, "OUT")
	if !golden.CheckFile(t, "internal/cli/testdata/matrix-vote-unsettled.golden", []byte(got), "./internal/cli") {
		t.FailNow()
	}
	entries, _ := os.ReadDir(out)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "api23.partial.json api34.dot api34.json matrix.json matrix.md same.dot same.json" {
		t.Errorf("wrote %s", got)
	}
	if d := readModel(t, filepath.Join(out, "api23.partial.json")); len(d.States) == 0 {
		t.Errorf("api23.partial.json has no hypothesis")
	}
}

// --max-queries stops each target on its own budget, keeping what it has.
func TestMatrixMaxQueries(t *testing.T) {
	dir := repoPath("testdata", "matrix")
	out := t.TempDir()
	code, stdout, stderr := droidstar(t, "matrix", filepath.Join(dir, "purpose.yaml"), "--store", "off", "--max-queries", "5",
		"--sim-model", "api23="+filepath.Join(dir, "api23.dot"), "--sim-model", "api34="+filepath.Join(dir, "api34.dot"), "-o", out)
	want := "target  states  transitions  vs api23\n" +
		"api23        -            -  failed: stopped after 5 executed queries (--max-queries 5) (no hypothesis yet: the statistics are in " + filepath.Join(out, "api23.partial.json") + ")\n" +
		"api34        -            -  failed: stopped after 5 executed queries (--max-queries 5) (no hypothesis yet: the statistics are in " + filepath.Join(out, "api34.partial.json") + ")\n"
	if code != ExitFail || stdout != want {
		t.Fatalf("exit %d\nstdout:\n%s\nwant:\n%s\nstderr: %s", code, stdout, want, stderr)
	}
	for _, name := range []string{"api23", "api34"} {
		doc := readModel(t, filepath.Join(out, name+".partial.json"))
		if got := doc.Stats.Total().Executed; got != 5 {
			t.Errorf("%s: %d executed, want 5", name, got)
		}
	}
	code, _, stderr = droidstar(t, "matrix", filepath.Join(dir, "purpose.yaml"), "--max-queries", "-1", "-o", t.TempDir(),
		"--sim-model", "api23="+filepath.Join(dir, "api23.dot"))
	if want := "droidstar: --max-queries must not be negative, got -1\n"; code != ExitUsage || stderr != want {
		t.Errorf("exit %d, stderr %q, want %q", code, stderr, want)
	}
}

// --format markdown and --format json put matrix.md and matrix.json on
// stdout, as a CI job's summary takes them: the same bytes as the files
// and as internal/matrix's golden files, with the exit code of the table.
func TestMatrixFormats(t *testing.T) {
	src := repoPath("testdata", "matrix")
	golden := map[string]string{}
	for _, name := range []string{"differ.md", "differ.json", "differ.txt"} {
		data, err := os.ReadFile(filepath.Join(src, "golden", name))
		if err != nil {
			t.Fatal(err)
		}
		golden[name] = string(data)
	}
	dir := t.TempDir()
	for _, name := range []string{"purpose.yaml", "api23.dot", "api34.dot"} {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	for _, c := range []struct {
		format, file, want string
	}{
		{"markdown", "matrix.md", golden["differ.md"]},
		{"json", "matrix.json", golden["differ.json"]},
		{"table", "", golden["differ.txt"]},
	} {
		os.RemoveAll("out")
		code, stdout, stderr := droidstar(t, "matrix", "purpose.yaml", "--sim-model", "api23=api23.dot", "--sim-model", "same=api23.dot",
			"--sim-model", "api34=api34.dot", "-o", "out", "--format", c.format)
		if code != ExitFail || stdout != c.want || !strings.HasSuffix(stderr, "droidstar: the targets differ from the baseline api23\n") {
			t.Errorf("--format %s: exit %d\nstdout:\n%s\nwant:\n%s\nstderr: %s", c.format, code, stdout, c.want, stderr)
			continue
		}
		if c.file != "" {
			if data, _ := os.ReadFile(filepath.Join("out", c.file)); string(data) != stdout {
				t.Errorf("--format %s: stdout is not %s:\n%s", c.format, c.file, data)
			}
		}
	}
	code, stdout, stderr := droidstar(t, "matrix", "purpose.yaml", "-o", "out", "--format", "html")
	if want := "droidstar: --format: unknown format \"html\" (formats: table, markdown, json)\n"; code != ExitUsage || stdout != "" || stderr != want {
		t.Errorf("--format html: exit %d\nstdout %q\nstderr %q\nwant   %q", code, stdout, stderr, want)
	}
}
