// Package ci holds the tests of the nightly CI recipe beside them: the
// GitHub Actions workflow passes actionlint, and the steps that need no
// emulator (the comparison of the learned typestates with the accepted
// one) run as the workflow and the GitLab job write them, on typestates
// committed under testdata/matrix.
package ci

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/rhysd/actionlint"

	"github.com/droidstar/droidstar/internal/golden"
)

const (
	githubFile = "github-nightly.yml"
	gitlabFile = "gitlab-ci.yml"
)

// lint runs actionlint on a workflow, with no shellcheck or pyflakes (the
// machine need not have them), and returns its messages.
func lint(t *testing.T, path string, content []byte) []string {
	t.Helper()
	linter, err := actionlint.NewLinter(&bytes.Buffer{}, &actionlint.LinterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	errs, err := linter.Lint(path, content, nil)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	return msgs
}

func TestWorkflowPassesActionlint(t *testing.T) {
	content, err := os.ReadFile(githubFile)
	if err != nil {
		t.Fatal(err)
	}
	if msgs := lint(t, githubFile, content); len(msgs) > 0 {
		t.Fatalf("actionlint:\n%s", strings.Join(msgs, "\n"))
	}
	// The linter does look: a misspelt input of the emulator action and
	// an unknown expression are caught.
	broken := strings.Replace(string(content), "disable-animations: true", "disable-animation: true", 1)
	broken = strings.Replace(broken, "TARGET: api${{ matrix.api-level }}", "TARGET: api${{ matrix.api_level }}", 1)
	got := strings.Join(lint(t, githubFile, []byte(broken)), "\n")
	// The lines are where the two mistakes are, wherever edits move them.
	want := fmt.Sprintf(`github-nightly.yml:%d:26: property "api_level" is not defined in object type {api-level: number} [expression]
github-nightly.yml:%d:11: input "disable-animation" is not defined in action "ReactiveCircus/android-emulator-runner@v2". available inputs are "api-level", "arch", "avd-name", "channel", "cmake", "cores", "disable-animations", "disable-linux-hw-accel", "disable-spellchecker", "disk-size", "emulator-boot-timeout", "emulator-build", "emulator-options", "emulator-port", "enable-hw-keyboard", "force-avd-creation", "heap-size", "ndk", "pre-emulator-launch-script", "profile", "ram-size", "script", "sdcard-path-or-size", "target", "working-directory" [action]`,
		lineOf(t, content, "TARGET: api${{ matrix.api-level }}"), lineOf(t, content, "disable-animations: true"))
	if got != want {
		t.Fatalf("the broken workflow gave:\n%s\nwant:\n%s", got, want)
	}
}

// The comparison step of each recipe, run as its CI would run it, in a
// repository laid out as the README says, with the typestates the learn
// jobs would have left: the summary is the matrix in markdown, and the
// exit code says whether a typestate changed.
func TestCompareStepRuns(t *testing.T) {
	github, gitlab := readRecipes(t)
	bin := buildDroidstar(t)
	learned := filepath.Join("..", "..", "testdata", "matrix", "learned")
	for _, c := range []struct {
		name string
		// levels maps each API level's typestate to the file it is.
		levels   map[string]string
		wantCode int
		golden   string
	}{
		{"unchanged", map[string]string{"api23": "api23.json", "api29": "api23.json"}, 0, "compare-unchanged.md"},
		{"changed", map[string]string{"api23": "api23.json", "api34": "api34.json"}, 1, "compare-changed.md"},
	} {
		var summaries []string
		for _, recipe := range []struct {
			name, script string
			env          map[string]string
		}{
			{githubFile, github.script, github.env},
			{gitlabFile, gitlab.script, gitlab.env},
		} {
			t.Run(c.name+"/"+recipe.name, func(t *testing.T) {
				repo := t.TempDir()
				copyFile(t, filepath.Join(learned, "api23.json"), filepath.Join(repo, "typestates", "accepted.json"))
				// The purpose's sim model is the accepted typestate.
				purpose, err := os.ReadFile(filepath.Join("..", "..", "testdata", "matrix", "purpose.yaml"))
				if err != nil {
					t.Fatal(err)
				}
				purpose = bytes.Replace(purpose, []byte("model: api23.dot"), []byte("model: accepted.json"), 1)
				writeFile(t, filepath.Join(repo, "typestates", "purpose.yaml"), purpose)
				for level, file := range c.levels {
					copyFile(t, filepath.Join(learned, file), filepath.Join(repo, "learned", "typestate-"+level, level+".json"))
				}
				summary := filepath.Join(t.TempDir(), "summary.md")
				env := []string{
					"PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH"),
					"HOME=" + t.TempDir(), "XDG_CACHE_HOME=" + t.TempDir(),
				}
				for k, v := range recipe.env {
					env = append(env, k+"="+v)
				}
				// GitHub's shell: bash; GitLab's job log is the summary.
				cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", recipe.script)
				cmd.Dir, cmd.Env = repo, append(env, "GITHUB_STEP_SUMMARY="+summary)
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err = cmd.Run()
				code := 0
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				} else if err != nil {
					t.Fatal(err)
				}
				got := stdout.String()
				if recipe.name == githubFile {
					data, _ := os.ReadFile(summary)
					got += string(data)
				}
				if code != c.wantCode {
					t.Fatalf("exit %d, want %d\nstderr:\n%s", code, c.wantCode, stderr.String())
				}
				golden.Check(t, "ci", c.golden, []byte(got), "./examples/ci")
				if md, err := os.ReadFile(filepath.Join(repo, "compared", "matrix.md")); err != nil || string(md) != got {
					t.Fatalf("compared/matrix.md (%v) is not the summary:\n%s", err, md)
				}
				summaries = append(summaries, got)
			})
		}
		if len(summaries) == 2 && summaries[0] != summaries[1] {
			t.Errorf("%s: the two recipes' summaries differ", c.name)
		}
	}
}

// lineOf is the number of the line of content that holds text.
func lineOf(t *testing.T, content []byte, text string) int {
	t.Helper()
	for i, line := range strings.Split(string(content), "\n") {
		if strings.Contains(line, text) {
			return i + 1
		}
	}
	t.Fatalf("no line holds %q", text)
	return 0
}

// step is a comparison step: its script and the environment the recipe
// gives it.
type step struct {
	script string
	env    map[string]string
}

// readRecipes finds the comparison step in each recipe: the GitHub
// workflow's step "Compare with the accepted typestate" with the
// workflow's env, and the GitLab job compare's script with the file's
// variables (its before_script installs droidstar, which the test builds).
func readRecipes(t *testing.T) (github, gitlab step) {
	t.Helper()
	var workflow struct {
		Env  map[string]string `yaml:"env"`
		Jobs map[string]struct {
			Steps []struct {
				Name string `yaml:"name"`
				Run  string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	readYAML(t, githubFile, &workflow)
	for _, s := range workflow.Jobs["compare"].Steps {
		if s.Name == "Compare with the accepted typestate" {
			github = step{s.Run, workflow.Env}
		}
	}
	if github.script == "" {
		t.Fatalf("%s: no step \"Compare with the accepted typestate\" in job compare", githubFile)
	}
	var pipeline struct {
		Variables map[string]string `yaml:"variables"`
		Compare   struct {
			Script []string `yaml:"script"`
		} `yaml:"compare"`
	}
	readYAML(t, gitlabFile, &pipeline)
	if len(pipeline.Compare.Script) == 0 {
		t.Fatalf("%s: job compare has no script", gitlabFile)
	}
	gitlab = step{strings.Join(pipeline.Compare.Script, "\n"), pipeline.Variables}
	for _, s := range []step{github, gitlab} {
		if s.env["PURPOSE"] != "typestates/purpose.yaml" || s.env["ACCEPTED"] != "typestates/accepted.json" {
			t.Fatalf("the recipes' PURPOSE and ACCEPTED are not the layout this test makes: %v", s.env)
		}
	}
	return github, gitlab
}

func readYAML(t *testing.T, file string, v any) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

// buildDroidstar builds cmd/droidstar into a temporary folder, as the
// recipes' go install would; it skips the test when no go tool is at hand.
func buildDroidstar(t *testing.T) string {
	t.Helper()
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := exec.LookPath(goTool); err != nil {
		if goTool, err = exec.LookPath("go"); err != nil {
			t.Skip("no go tool to build droidstar")
		}
	}
	out := filepath.Join(t.TempDir(), "droidstar")
	if b, err := exec.Command(goTool, "build", "-o", out, "github.com/droidstar/droidstar/cmd/droidstar").CombinedOutput(); err != nil {
		t.Fatalf("building droidstar: %v\n%s", err, b)
	}
	return out
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, to, data)
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
