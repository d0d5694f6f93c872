package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/droidstar/droidstar/internal/depstest"
)

// The two topics the command line owns are checked against the code:
// 'droidstar help environment' must name every variable the binaries
// read, and 'droidstar help exit-codes' must list exactly the codes the
// commands return, each shown by a command that returns it.

// ourVariable is what a string constant looks like when it names one of
// droidstar's variables (or one of the tools it drives).
var ourVariable = regexp.MustCompile(`^(DROIDSTAR|ANDROID|ADB|JAVA|XDG)_[A-Z0-9_]+$`)

// envReaders are the functions that read one variable, named by their
// first argument: os.Getenv, os.LookupEnv, and the getenv fields and
// methods through which commands read the environment (so that tests can
// give each run its own).
var envReaders = map[string]bool{"Getenv": true, "LookupEnv": true, "getenv": true}

// implicitReaders are the standard library's functions that read the
// environment themselves (on Linux), by package and name.
var implicitReaders = map[string]map[string][]string{
	"os": {
		"UserCacheDir": {"XDG_CACHE_HOME", "HOME"},
		"UserHomeDir":  {"HOME"},
		"TempDir":      {"TMPDIR"},
	},
	"os/exec": {
		"LookPath":       {"PATH"},
		"Command":        {"PATH"},
		"CommandContext": {"PATH"},
	},
}

// tempMakers read TMPDIR when their folder argument is "".
var tempMakers = map[string]bool{"MkdirTemp": true, "CreateTemp": true}

// goPackage is one folder of Go files in the repository.
type goPackage struct {
	dir         string // from the repository's root, with slashes
	files       []*goFile
	consts      map[string]string // string constants of the non-test files
	testConsts  map[string]string // and of the test files
	importPaths map[string]bool
}

type goFile struct {
	name    string
	test    bool
	ast     *ast.File
	imports map[string]string // the name a file uses for a package → its path
}

// sourceTree parses every Go file of the repository (testdata and
// hidden folders aside).
type sourceTree struct {
	fset *token.FileSet
	pkgs map[string]*goPackage // by folder
}

func parseTree(t *testing.T) *sourceTree {
	t.Helper()
	root := repoPath()
	tree := &sourceTree{fset: token.NewFileSet(), pkgs: map[string]*goPackage{}}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || d.Name() == "build") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		f, err := parser.ParseFile(tree.fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		p := tree.pkgs[rel]
		if p == nil {
			p = &goPackage{dir: rel, consts: map[string]string{}, testConsts: map[string]string{}}
			tree.pkgs[rel] = p
		}
		gf := &goFile{name: path, test: strings.HasSuffix(path, "_test.go"), ast: f, imports: map[string]string{}}
		for _, imp := range f.Imports {
			ip, _ := strconv.Unquote(imp.Path.Value)
			name := ip[strings.LastIndex(ip, "/")+1:]
			if imp.Name != nil {
				name = imp.Name.Name
			}
			gf.imports[name] = ip
		}
		p.files = append(p.files, gf)
		consts := p.consts
		if gf.test {
			consts = p.testConsts
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if g, ok := n.(*ast.GenDecl); ok && g.Tok == token.CONST {
				for _, spec := range g.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, name := range vs.Names {
						if i < len(vs.Values) {
							if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
								consts[name.Name], _ = strconv.Unquote(lit.Value)
							}
						}
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(tree.pkgs) < 20 {
		t.Fatalf("parsed only %d packages under %s", len(tree.pkgs), root)
	}
	return tree
}

// stringValue is the value of a string literal or of a string constant
// (of the file's package, or of a package of the module it imports).
func (tree *sourceTree) stringValue(p *goPackage, f *goFile, e ast.Expr) (string, bool) {
	switch x := e.(type) {
	case *ast.BasicLit:
		if x.Kind == token.STRING {
			v, err := strconv.Unquote(x.Value)
			return v, err == nil
		}
	case *ast.Ident:
		if v, ok := p.consts[x.Name]; ok {
			return v, true
		}
		if f.test {
			v, ok := p.testConsts[x.Name]
			return v, ok
		}
	case *ast.SelectorExpr:
		pkg, ok := x.X.(*ast.Ident)
		if !ok {
			return "", false
		}
		rel, ok := strings.CutPrefix(f.imports[pkg.Name], depstest.Module+"/")
		if !ok || tree.pkgs[rel] == nil {
			return "", false
		}
		v, ok := tree.pkgs[rel].consts[x.Sel.Name]
		return v, ok
	}
	return "", false
}

// envReads are the environment variables the files read, each with where.
func (tree *sourceTree) envReads(p *goPackage, f *goFile, literals bool) map[string]string {
	reads := map[string]string{}
	add := func(name string, at token.Pos) {
		if _, ok := reads[name]; !ok {
			reads[name] = tree.fset.Position(at).String()
		}
	}
	ast.Inspect(f.ast, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.BasicLit:
			// A variable's name as a constant or in a list of names
			// (ANDROID_HOME, ANDROID_SDK_ROOT) is read somewhere.
			if v, err := strconv.Unquote(x.Value); literals && x.Kind == token.STRING && err == nil && ourVariable.MatchString(v) {
				add(v, x.Pos())
			}
		case *ast.CallExpr:
			var name, pkgPath string
			switch fun := x.Fun.(type) {
			case *ast.Ident:
				name = fun.Name
			case *ast.SelectorExpr:
				name = fun.Sel.Name
				if id, ok := fun.X.(*ast.Ident); ok {
					pkgPath = f.imports[id.Name]
				}
			}
			if envReaders[name] && len(x.Args) > 0 {
				if v, ok := tree.stringValue(p, f, x.Args[0]); ok {
					add(v, x.Pos())
				}
			}
			for _, v := range implicitReaders[pkgPath][name] {
				add(v, x.Pos())
			}
			if pkgPath == "os" && tempMakers[name] && len(x.Args) > 0 {
				if v, ok := tree.stringValue(p, f, x.Args[0]); ok && v == "" {
					add("TMPDIR", x.Pos())
				}
			}
		}
		return true
	})
	return reads
}

// shipped are the packages of the module the binaries link: what a user
// runs reads the environment, not the tests and their doubles.
func shipped(t *testing.T) map[string]bool {
	out := map[string]bool{}
	for _, dep := range depstest.Deps(t, depstest.Module+"/cmd/droidstar", depstest.Module+"/cmd/droidstar-render") {
		if rel, ok := strings.CutPrefix(dep, depstest.Module+"/"); ok {
			out[rel] = true
		} else if dep == depstest.Module {
			out["."] = true
		}
	}
	return out
}

// topicRows are the first words of the rows of the table that follows a
// rendered heading: the table's first column.
func topicRows(t *testing.T, rendered, heading string) []string {
	t.Helper()
	_, section, ok := strings.Cut(rendered, "\n"+heading+"\n")
	if !ok {
		t.Fatalf("no heading %q in:\n%s", heading, rendered)
	}
	// Up to the next heading: flush left.
	if i := regexp.MustCompile(`\n\S`).FindStringIndex(section); i != nil {
		section = section[:i[0]]
	}
	// A family of variables (DROIDSTAR_SET_<NAME>) is its prefix, as the
	// code reads it: a constant that a name is appended to.
	row := regexp.MustCompile(`(?m)^  ([A-Z][A-Z0-9_]*|\d+)(<[A-Z]+>|=\S+)? {2,}\S`)
	var names []string
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		names = append(names, m[1])
	}
	if len(names) == 0 {
		t.Fatalf("no table under %q", heading)
	}
	return names
}

func TestHelpEnvironmentNamesEveryVariable(t *testing.T) {
	tree := parseTree(t)
	bins := shipped(t)
	// What the binaries read, and what only the tests and the packages
	// only they link read.
	read, testRead := map[string]string{}, map[string]string{}
	for _, p := range tree.pkgs {
		for _, f := range p.files {
			if !f.test && bins[p.dir] {
				for v, at := range tree.envReads(p, f, true) {
					read[v] = at
				}
				continue
			}
			// A test double's list of variables to clear is no read:
			// the tests' own reads are those of a reader function.
			for v, at := range tree.envReads(p, f, false) {
				testRead[v] = at
			}
		}
	}
	// The scan sees what droidstar is known to read, each way it reads:
	// through a command's getenv, os.Getenv, a constant of another
	// package, a list of names, and the standard library.
	for _, v := range []string{"ANDROID_SERIAL", "DROIDSTAR_RENDER", "DROIDSTAR_STORE", "ANDROID_SDK_ROOT", "HOME", "TMPDIR", "PATH"} {
		if _, ok := read[v]; !ok {
			t.Errorf("the scan of the code missed %s", v)
		}
	}
	if _, ok := testRead["DROIDSTAR_REQUIRE_ADB"]; !ok {
		t.Errorf("the scan of the tests missed DROIDSTAR_REQUIRE_ADB")
	}
	if bins["internal/fake/adbserver"] || !bins["internal/store"] {
		t.Fatalf("the binaries' packages are wrong: %v", bins)
	}

	code, stdout, stderr := droidstar(t, "help", "environment")
	if code != ExitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	// The first table is exactly what the binaries read.
	listed := topicRows(t, stdout, "What droidstar reads")
	for v, at := range read {
		if !slices.Contains(listed, v) {
			t.Errorf("%s reads $%s, which the table of 'droidstar help environment' does not list", at, v)
		}
	}
	for _, v := range listed {
		if _, ok := read[v]; !ok {
			t.Errorf("'droidstar help environment' lists $%s, which droidstar does not read", v)
		}
	}
	// The second has every variable only the tests read, and no variable
	// nothing reads.
	testListed := topicRows(t, stdout, "What only the tests read")
	for v, at := range testRead {
		if _, ok := read[v]; !ok && !slices.Contains(testListed, v) {
			t.Errorf("%s reads $%s, which the tests' table of 'droidstar help environment' does not list", at, v)
		}
	}
	for _, v := range testListed {
		if _, ok := testRead[v]; !ok {
			if _, ok := read[v]; !ok {
				t.Errorf("'droidstar help environment' lists $%s among the tests' variables, which nothing reads", v)
			}
		}
	}
}

// definedExitCodes are the codes internal/cli returns: its Exit*
// constants, and the codes of the signals it stops on.
func definedExitCodes(t *testing.T, tree *sourceTree) map[int]string {
	codes := map[int]string{}
	p := tree.pkgs["internal/cli"]
	signals := map[string]syscall.Signal{"os.Interrupt": syscall.SIGINT, "syscall.SIGINT": syscall.SIGINT, "syscall.SIGTERM": syscall.SIGTERM}
	for _, f := range p.files {
		if f.test {
			continue
		}
		ast.Inspect(f.ast, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.GenDecl:
				if x.Tok != token.CONST {
					return true
				}
				for _, spec := range x.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, name := range vs.Names {
						if !strings.HasPrefix(name.Name, "Exit") || i >= len(vs.Values) {
							continue
						}
						lit, ok := vs.Values[i].(*ast.BasicLit)
						n, err := strconv.Atoi(lit.Value)
						if !ok || err != nil {
							t.Fatalf("%s: %s is no integer literal", tree.fset.Position(name.Pos()), name.Name)
						}
						codes[n] = name.Name
					}
				}
			case *ast.CallExpr:
				// signal.Notify(ch, os.Interrupt, syscall.SIGTERM): each
				// signal caught has its exit code.
				sel, ok := x.Fun.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "Notify" {
					return true
				}
				for _, a := range x.Args[1:] {
					s, ok := a.(*ast.SelectorExpr)
					if !ok {
						t.Fatalf("%s: signal.Notify of %T", tree.fset.Position(a.Pos()), a)
					}
					name := s.X.(*ast.Ident).Name + "." + s.Sel.Name
					sig, ok := signals[name]
					if !ok {
						t.Fatalf("%s: a signal this test does not know: %s", tree.fset.Position(a.Pos()), name)
					}
					codes[exitCode(sig)] = name
				}
			case *ast.CompositeLit:
				// An exitError with a literal code is a code too.
				if id, ok := x.Type.(*ast.Ident); ok && id.Name == "exitError" {
					for _, el := range x.Elts {
						if kv, ok := el.(*ast.KeyValueExpr); ok && kv.Key.(*ast.Ident).Name == "code" {
							if lit, ok := kv.Value.(*ast.BasicLit); ok {
								n, _ := strconv.Atoi(lit.Value)
								codes[n] = tree.fset.Position(lit.Pos()).String()
							}
						}
					}
				}
			}
			return true
		})
	}
	return codes
}

func TestHelpExitCodesMatchTheCommands(t *testing.T) {
	tree := parseTree(t)
	defined := definedExitCodes(t, tree)
	if len(defined) < 6 {
		t.Fatalf("found only the exit codes %v", defined)
	}

	code, stdout, stderr := droidstar(t, "help", "exit-codes")
	if code != ExitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	// The table: code, meaning, commands.
	rowRE := regexp.MustCompile(`(?m)^  (\d+) {2,}(.+?) {2,}(\S.*)$`)
	commands := map[int]string{}
	for _, m := range rowRE.FindAllStringSubmatch(stdout, -1) {
		n, _ := strconv.Atoi(m[1])
		commands[n] = m[3]
	}
	for n, what := range defined {
		if _, ok := commands[n]; !ok {
			t.Errorf("the code defines exit code %d (%s), which 'droidstar help exit-codes' does not list", n, what)
		}
	}
	for n := range commands {
		if _, ok := defined[n]; !ok {
			t.Errorf("'droidstar help exit-codes' lists exit code %d, which no command returns", n)
		}
	}

	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("name: Broken\nclass: java.util.Timer\ncallins: [start]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	diffDir, matrixDir := repoPath("testdata", "diff"), repoPath("testdata", "matrix")
	mediaplayer := filepath.Join(diffDir, "mediaplayer.json")
	matrix := func(extra ...string) []string {
		return append([]string{"matrix", filepath.Join(matrixDir, "purpose.yaml"), "-o", t.TempDir(),
			"--sim-model", "api23=" + filepath.Join(matrixDir, "api23.dot"),
			"--sim-model", "api34=" + filepath.Join(matrixDir, "api34.dot")}, extra...)
	}
	cases := []struct {
		code int
		args []string
		// elsewhere names the test that returns the code instead, for
		// the codes of a signal, which no in-process command can get.
		elsewhere string
	}{
		{code: 0, args: []string{"version"}},
		{code: 0, args: []string{"check", repoPath("examples", "asynctask", "purpose.yaml")}},
		{code: 0, args: []string{"diff", mediaplayer, mediaplayer}},
		{code: 1, args: []string{"check", bad}},
		{code: 1, args: []string{"diff", mediaplayer, filepath.Join(diffDir, "mediaplayer-pause-error.json")}},
		{code: 1, args: matrix()},
		{code: 1, args: []string{"learn", "--example", "asynctask", "-q", "-o", t.TempDir(), "--max-queries", "5"}},
		{code: 2, args: []string{"learn", "--bogus"}},
		{code: 2, args: []string{"lern"}},
		{code: 2, args: []string{"learn", "--example", "nosuchexample"}},
		{code: 2, args: []string{"diff", mediaplayer, filepath.Join(dir, "missing.json")}},
		{code: 2, args: []string{"help", "nosuchtopic"}},
		// The vote's tests: one answer in two flipped cannot be settled
		// (TestHalfFlakyTargetStops, TestMatrixUnsettledVote).
		{code: 4, args: []string{"learn", "--example", "mediaplayer", "-q", "-o", t.TempDir(), "--sim-flaky", "0.5", "--seed", "1"}},
		{code: 4, args: []string{"matrix", filepath.Join(matrixDir, "purpose.yaml"), "-o", t.TempDir(),
			"--sim-model", "api34=" + filepath.Join(matrixDir, "api34.dot"), "--sim-model", "api23=" + filepath.Join(matrixDir, "api23.dot"),
			"--sim-model", "same=" + filepath.Join(matrixDir, "api34.dot"), "--sim-flaky", "0.2", "--seed", "32"}},
		{code: 130, elsewhere: "cmd/droidstar/signal_test.go:TestSignalSim"},
		{code: 143, elsewhere: "cmd/droidstar/signal_test.go:TestSignalSim"},
	}
	shown := map[int]bool{}
	for _, tc := range cases {
		shown[tc.code] = true
		if _, ok := commands[tc.code]; !ok {
			t.Errorf("exit code %d has a case but no row in the topic", tc.code)
			continue
		}
		if tc.elsewhere != "" {
			file, test, _ := strings.Cut(tc.elsewhere, ":")
			data, err := os.ReadFile(repoPath(file))
			if err != nil || !strings.Contains(string(data), "func "+test+"(") {
				t.Errorf("exit code %d: %s has no %s (%v)", tc.code, file, test, err)
			}
			if want := map[int]syscall.Signal{130: syscall.SIGINT, 143: syscall.SIGTERM}[tc.code]; exitCode(want) != tc.code {
				t.Errorf("exit code %d is not that of %v", tc.code, want)
			}
			continue
		}
		// The topic's commands column names the command, or all of them.
		if cmds := commands[tc.code]; cmds != "every command" && !slices.Contains(strings.Split(cmds, ", "), tc.args[0]) {
			t.Errorf("exit code %d: droidstar %s returns it, but the topic says only %s do", tc.code, tc.args[0], cmds)
		}
		got, _, stderr := droidstar(t, tc.args...)
		if got != tc.code {
			t.Errorf("droidstar %s: exit %d, the topic says %d\nstderr:\n%s", strings.Join(tc.args, " "), got, tc.code, stderr)
		}
	}
	for n := range commands {
		if !shown[n] {
			t.Errorf("exit code %d has no case here: add a command that returns it", n)
		}
	}
}
