package cli

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/depstest"
)

// Commands are flag layers over packages: no command names a pipeline
// stage (internal/oracle/...), and only the commands that manage devices
// (devices in adb.go, harness, doctor) name a backend; a learning
// option's type and errors are the run package's.
func TestCommandsNameNoStageAndNoBackendToLearn(t *testing.T) {
	manageDevices := map[string]bool{"adb.go": true, "harness.go": true, "doctor.go": true}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			switch rel := depstest.Internal(path); {
			case strings.HasPrefix(rel, "internal/oracle/"):
				t.Errorf("%s imports the pipeline stage %s: a command takes the run's options (internal/run)", file, rel)
			case strings.HasPrefix(rel, "internal/backend") && !manageDevices[file]:
				t.Errorf("%s imports %s: only the commands that manage devices name a backend", file, rel)
			}
		}
	}
}
