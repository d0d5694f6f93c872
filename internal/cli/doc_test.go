package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/bench"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The documents are tested as the manual's package comment says
// (internal/manual): the README and every help topic run their "sh"
// blocks and compare their "console" blocks with what the commands print;
// "sh device" commands are parsed, not run; every flag and topic named in
// prose exists, and every relative link of every Markdown file resolves.

// block is a fenced code block of a document.
type block struct {
	info  string // the fence's info string: "sh", "sh device", "console", "yaml"
	line  int    // the line of the opening fence, from 1
	lines []string
}

func codeBlocks(doc string) []block {
	var blocks []block
	var cur *block
	fence := ""
	for i, l := range strings.Split(doc, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case cur == nil && strings.HasPrefix(t, "```"):
			fence = t[:len(t)-len(strings.TrimLeft(t, "`"))]
			cur = &block{info: strings.TrimSpace(t[len(fence):]), line: i + 1}
		case cur != nil && strings.HasPrefix(t, fence) && strings.TrimSpace(strings.TrimLeft(t, "`")) == "":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, l)
		}
	}
	return blocks
}

// prose is the document without its code blocks and comments.
func prose(doc string) string {
	var b strings.Builder
	in := false
	for _, l := range strings.Split(doc, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			in = !in
			continue
		}
		if !in {
			b.WriteString(l + "\n")
		}
	}
	return regexp.MustCompile(`(?s)<!--.*?-->`).ReplaceAllString(b.String(), "")
}

// document is a Markdown file the doc tests read, by its path from the
// repository's root.
type document struct {
	path string
	text string
}

// topicFiles maps every help topic to its Markdown file: help-NAME.md in
// the package that owns it, exactly one each.
func topicFiles(t *testing.T) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(repoPath("internal"), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name, ok := strings.CutPrefix(d.Name(), "help-")
		if !ok || !strings.HasSuffix(name, ".md") {
			return nil
		}
		name = strings.TrimSuffix(name, ".md")
		if other, dup := files[name]; dup {
			return fmt.Errorf("two files for the topic %s: %s and %s", name, other, path)
		}
		rel, _ := filepath.Rel(repoPath(), path)
		files[name] = rel
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, topic := range helpTopics() {
		if files[topic.Name] == "" {
			t.Errorf("topic %s has no file help-%s.md under internal/", topic.Name, topic.Name)
		}
	}
	if len(files) != len(helpTopics()) {
		t.Errorf("%d help-*.md files for %d topics: %v", len(files), len(helpTopics()), files)
	}
	return files
}

// runnableDocs are the README and the topics, as a reader sees them (the
// purposes topic with its generated key reference).
func runnableDocs(t *testing.T) []document {
	t.Helper()
	readme, err := os.ReadFile(repoPath("README.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs := []document{{"README.md", string(readme)}}
	files := topicFiles(t)
	for _, topic := range helpTopics() {
		docs = append(docs, document{files[topic.Name], topic.Markdown})
	}
	return docs
}

// allMarkdown is every Markdown file of the repository but the build's
// and the fuzzers' folders.
func allMarkdown(t *testing.T) []string {
	t.Helper()
	var files []string
	root := repoPath()
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "build" || d.Name() == "fuzz" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if strings.HasSuffix(path, ".md") {
			rel, _ := filepath.Rel(root, path)
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// Every relative link of every Markdown file names a file or folder of
// the repository.
func TestDocLinksResolve(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, rel := range allMarkdown(t) {
		data, err := os.ReadFile(repoPath(rel))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(prose(string(data)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			if _, err := os.Stat(filepath.Join(repoPath(filepath.Dir(rel)), target)); err != nil {
				t.Errorf("%s: the link %s resolves to no file", rel, m[1])
			}
		}
	}
}

// allFlags is every flag of every command, with its leading dashes.
func allFlags() map[string]bool {
	flags := map[string]bool{"--help": true, "--version": true}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, set := range []*pflag.FlagSet{c.Flags(), c.PersistentFlags()} {
			set.VisitAll(func(f *pflag.Flag) { flags["--"+f.Name] = true })
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot(&env{}))
	return flags
}

// Every droidstar flag and topic the README and the topics name in their
// prose exists. Other programs' flags are named with their program
// ("adb shell pm grant --user"), which this skips.
func TestDocNamesOnlyFlagsAndTopicsThatExist(t *testing.T) {
	flags := allFlags()
	flag := regexp.MustCompile("(?:^|[\\s(`'\"/])(--[a-z][a-z0-9-]*)")
	foreign := regexp.MustCompile("`(?:adb|go|git|make|apt-get|java|javac|d8|am|pm|cmd|settings|svc|appops|curl|docker|gh|timeout|chromium)\\b[^`]*`")
	help := regexp.MustCompile(`droidstar help ([a-z][a-z-]*)`)
	root := newRoot(&env{})
	for _, doc := range runnableDocs(t) {
		text := foreign.ReplaceAllString(prose(doc.text), "")
		for _, m := range flag.FindAllStringSubmatch(text, -1) {
			name, _, _ := strings.Cut(m[1], "=")
			if !flags[name] {
				t.Errorf("%s names %s, which no command has", doc.path, name)
			}
		}
		for _, m := range help.FindAllStringSubmatch(doc.text, -1) {
			if _, ok := findTopic(m[1]); ok {
				continue
			}
			if c, _, err := root.Find([]string{m[1]}); err != nil || c == root {
				t.Errorf("%s names 'droidstar help %s', which is no topic and no command", doc.path, m[1])
			}
		}
	}
}

// buildDroidstar compiles droidstar and its SVG helper into one folder, as
// make build does, for the documents' commands to run as a reader runs
// them.
func buildDroidstar(t *testing.T, repo string) string {
	t.Helper()
	bin := t.TempDir()
	for _, cmd := range []string{"droidstar", "droidstar-render"} {
		build := exec.Command("go", "build", "-o", filepath.Join(bin, cmd), "./cmd/"+cmd)
		build.Dir = repo
		out, err := build.CombinedOutput()
		if err != nil {
			t.Fatalf("go build ./cmd/%s: %v\n%s", cmd, err, out)
		}
	}
	return bin
}

// The commands of the README and the topics run as shown: an "sh" line
// exits 0, a "console" command prints what the block shows, and an "sh
// device" line names a command and flags that exist.
func TestDocCommandsRunAsShown(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the documents' commands build and run droidstar")
	}
	repo, err := filepath.Abs(repoPath())
	if err != nil {
		t.Fatal(err)
	}
	bin := buildDroidstar(t, repo)
	docs := runnableDocs(t)
	for _, doc := range docs {
		t.Run(doc.path, func(t *testing.T) {
			t.Parallel()
			dir := docFolder(t, repo)
			env := docEnv(bin, dir)
			for _, b := range codeBlocks(doc.text) {
				where := fmt.Sprintf("%s:%d", doc.path, b.line)
				if file, ok := quotedFile(b.info); ok {
					checkQuote(t, where, file, b.lines)
					continue
				}
				switch b.info {
				case "sh":
					for _, args := range shellCommands(t, where, b.lines) {
						checkParses(t, where, args)
						if code, _, stderr := runIn(dir, env, bin, args); code != 0 {
							t.Errorf("%s: %s exits %d:\n%s", where, strings.Join(args, " "), code, stderr)
						}
					}
				case "sh device":
					for _, args := range shellCommands(t, where, b.lines) {
						checkParses(t, where, args)
					}
				case "console":
					for _, c := range consoleCommands(t, where, b.lines) {
						checkParses(t, where, c.args)
						code, stdout, stderr := runIn(dir, env, bin, c.args)
						if !matchLines(c.want, outputLines(stdout)) && !matchLines(c.want, outputLines(stdout+stderr)) {
							t.Errorf("%s: %s (exit %d) prints:\n%s\nthe document shows:\n%s\nstderr:\n%s", where, strings.Join(c.args, " "), code,
								stdout, strings.Join(c.want, "\n"), stderr)
						}
					}
				}
			}
		})
	}
}

// quotedFile is the file a block quotes whole ("yaml file=PATH").
func quotedFile(info string) (string, bool) {
	for _, field := range strings.Fields(info) {
		if path, ok := strings.CutPrefix(field, "file="); ok {
			return path, true
		}
	}
	return "", false
}

// checkQuote fails when a block that quotes a file is not the file as it
// is: a quote is a copy, and copies go stale.
func checkQuote(t *testing.T, where, file string, lines []string) {
	t.Helper()
	data, err := os.ReadFile(repoPath(file))
	if err != nil {
		t.Errorf("%s: the block quotes %s: %v", where, file, err)
		return
	}
	if want := strings.TrimRight(string(data), "\n"); strings.Join(lines, "\n") != want {
		t.Errorf("%s: the block is no longer %s as it is: quote it again", where, file)
	}
}

// docFolder is where a document's commands run: a fresh folder with the
// repository's examples and test data, so that paths read as the
// documents write them and nothing is written into the checkout.
func docFolder(t *testing.T, repo string) string {
	dir := t.TempDir()
	for _, sub := range []string{"examples", "testdata"} {
		if err := os.Symlink(filepath.Join(repo, sub), filepath.Join(dir, sub)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// docEnv keeps the store, the caches and the home inside the folder and
// points no command at a device or adb server of this machine.
func docEnv(bin, dir string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "ANDROID_") || strings.HasPrefix(name, "ADB_") || strings.HasPrefix(name, "DROIDSTAR_") ||
			name == "HOME" || name == "XDG_CACHE_HOME" || name == "PATH" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+filepath.Join(dir, ".home"),
		"XDG_CACHE_HOME="+filepath.Join(dir, ".cache"), "DROIDSTAR_STORE="+filepath.Join(dir, ".store.db"))
}

func runIn(dir string, env []string, bin string, args []string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	cmd := exec.Command(filepath.Join(bin, "droidstar"), args...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		return -1, "", err.Error()
	}
	return code, out.String(), errb.String()
}

// checkParses finds the command args names and parses its flags, as
// droidstar would before running it.
func checkParses(t *testing.T, where string, args []string) {
	t.Helper()
	root := newRoot(&env{})
	c, rest, err := root.Find(args)
	if err != nil {
		t.Errorf("%s: droidstar %s: %v", where, strings.Join(args, " "), err)
		return
	}
	if err := c.ParseFlags(rest); err != nil {
		t.Errorf("%s: droidstar %s: %v", where, strings.Join(args, " "), err)
	}
}

// shellCommands are the droidstar command lines of an sh block, as
// arguments; other lines (make, go, cd) are the reader's to run.
func shellCommands(t *testing.T, where string, lines []string) [][]string {
	t.Helper()
	var cmds [][]string
	for _, l := range joinContinued(lines) {
		args, ok := droidstarLine(t, where, l)
		if ok {
			cmds = append(cmds, args)
		}
	}
	return cmds
}

type consoleCommand struct {
	args []string
	want []string
}

// consoleCommands are the "$ droidstar ..." lines of a console block, each
// with the lines that follow it up to the next "$ ".
func consoleCommands(t *testing.T, where string, lines []string) []consoleCommand {
	t.Helper()
	var cmds []consoleCommand
	for _, l := range lines {
		if cmd, ok := strings.CutPrefix(l, "$ "); ok {
			args, ok := droidstarLine(t, where, cmd)
			if !ok {
				t.Errorf("%s: a console block runs droidstar, not %q", where, cmd)
				continue
			}
			cmds = append(cmds, consoleCommand{args: args})
			continue
		}
		if len(cmds) == 0 {
			t.Errorf("%s: a console block starts with a \"$ droidstar\" line", where)
			return nil
		}
		cmds[len(cmds)-1].want = append(cmds[len(cmds)-1].want, l)
	}
	return cmds
}

func joinContinued(lines []string) []string {
	var out []string
	cur := ""
	for _, l := range lines {
		if s, ok := strings.CutSuffix(strings.TrimRight(l, " "), "\\"); ok {
			cur += s + " "
			continue
		}
		out = append(out, cur+l)
		cur = ""
	}
	return out
}

// droidstarLine splits a droidstar command line into its arguments, with
// sh's quoting, dropping a trailing comment and expanding globs. A line
// that needs more of a shell than that is an error: the test would not
// run what the reader runs.
func droidstarLine(t *testing.T, where, line string) ([]string, bool) {
	t.Helper()
	line = strings.TrimSpace(line)
	line, ok := strings.CutPrefix(line, "droidstar ")
	if !ok {
		if line, ok = strings.CutPrefix(strings.TrimSpace(line), "go run ./cmd/droidstar "); !ok {
			return nil, false
		}
	}
	var args []string
	var cur strings.Builder
	quote := byte(0)
	started, glob := false, false
	flush := func() {
		if !started {
			return
		}
		arg := cur.String()
		if glob {
			matches, _ := filepath.Glob(arg)
			if len(matches) == 0 {
				t.Errorf("%s: %s matches no file", where, arg)
			}
			args = append(args, matches...)
		} else {
			args = append(args, arg)
		}
		cur.Reset()
		started, glob = false, false
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '\'' || c == '"':
			quote, started = c, true
		case c == ' ' || c == '\t':
			flush()
		case c == '#' && !started:
			flush()
			return args, true
		case strings.IndexByte("|&;<>$`", c) >= 0:
			t.Errorf("%s: %q needs a shell (%c): mark its block \"sh device\" or write it plainly", where, line, c)
			return nil, false
		default:
			if c == '*' || c == '?' {
				glob = true
			}
			cur.WriteByte(c)
			started = true
		}
	}
	flush()
	return args, true
}

func outputLines(s string) []string { return strings.Split(strings.TrimRight(s, "\n"), "\n") }

// matchLines says whether got is want, where a want line "..." stands for
// any number of lines.
func matchLines(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0 || (len(got) == 1 && got[0] == "")
	}
	if want[0] == "..." {
		for k := 0; k <= len(got); k++ {
			if matchLines(want[1:], got[k:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && strings.TrimRight(got[0], " ") == strings.TrimRight(want[0], " ") && matchLines(want[1:], got[1:])
}

func TestMatchLines(t *testing.T) {
	for _, tc := range []struct {
		want, got string
		match     bool
	}{
		{"a\nb", "a\nb", true},
		{"a\n...\nd", "a\nb\nc\nd", true},
		{"a\n...", "a", true},
		{"a\n...\nd", "a\nb\nc", false},
		{"a\nb", "a\nc", false},
	} {
		if got := matchLines(strings.Split(tc.want, "\n"), strings.Split(tc.got, "\n")); got != tc.match {
			t.Errorf("matchLines(%q, %q) = %v", tc.want, tc.got, got)
		}
	}
}

// The README's results are the benchmark document's headline, word for
// word, which the bench's own test keeps equal to what the bench prints.
func TestREADMEShowsTheBenchHeadline(t *testing.T) {
	read := func(path string) string {
		data, err := os.ReadFile(repoPath(path))
		if err != nil {
			t.Fatal(err)
		}
		headline, err := bench.Headline(string(data))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return headline
	}
	if readme, doc := read("README.md"), read("internal/bench/README.md"); readme != doc {
		t.Errorf("the README's results differ from internal/bench/README.md's headline:\n%s\nwant:\n%s", readme, doc)
	}
}
