package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/droidstar/droidstar/internal/compose"
	"github.com/droidstar/droidstar/internal/inputfile"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/run"
)

// env is what commands need from the outside world.
type env struct {
	stdout, stderr io.Writer
	// getenv reads the environment (ANDROID_SERIAL, ADB_SERVER_SOCKET);
	// tests give each run its own.
	getenv func(string) string
	// stderrTerminal says whether stderr is a terminal a live progress
	// display can redraw.
	stderrTerminal bool
	// stdoutWidth is the width of the terminal stdout is, 0 when it is
	// none: help topics are wrapped to it, and plain without it.
	stdoutWidth int
	// signals delivers SIGINT and SIGTERM; nil means the process's own.
	// Tests send theirs.
	signals <-chan os.Signal
	// exit ends the process at a second signal; nil means os.Exit.
	exit func(int)
	// stop is the run's stopper, set by mainWith.
	stop *stopper
	// maxFileSize caps the purpose and model files read (--max-file-size).
	maxFileSize int64
}

// readFile reads a purpose's or model's file within the size cap.
func (e *env) readFile(path string) ([]byte, error) {
	return inputfile.Read(path, e.maxFileSize)
}

// readModel reads a model document within the size cap.
func (e *env) readModel(path string) (*model.Document, error) {
	data, err := e.readFile(path)
	if err != nil {
		return nil, err
	}
	d, err := model.Unmarshal(data)
	if err != nil {
		if looksLikeDOT(data) {
			return nil, dotGivenError(path)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

// looksLikeDOT reports whether a file that is no model document starts as
// Graphviz DOT does (after blank and comment lines): learn writes
// NAME.dot beside NAME.json, and the DOT is the one people open.
func looksLikeDOT(data []byte) bool {
	text := strings.TrimPrefix(string(data), "\ufeff")
	for {
		text = strings.TrimLeft(text, " \t\r\n")
		if !strings.HasPrefix(text, "//") && !strings.HasPrefix(text, "#") {
			break
		}
		_, rest, ok := strings.Cut(text, "\n")
		if !ok {
			return false
		}
		text = rest
	}
	end := strings.IndexFunc(text, func(r rune) bool { return !unicode.IsLetter(r) })
	if end < 0 {
		end = len(text)
	}
	word := strings.ToLower(text[:end])
	return word == "digraph" || word == "graph" || word == "strict"
}

// dotGivenError says what to give instead of a DOT file: the model JSON
// beside it, by name when it is there.
func dotGivenError(path string) error {
	const reads = "this is Graphviz DOT; droidstar reads the model JSON that 'droidstar learn' writes"
	if ext := filepath.Ext(path); ext != "" {
		json := strings.TrimSuffix(path, ext) + ".json"
		if fi, err := os.Stat(json); err == nil && fi.Mode().IsRegular() {
			return fmt.Errorf("%s: %s: give %s instead", path, reads, json)
		}
	}
	return fmt.Errorf("%s: %s (NAME.json, beside NAME.dot): give that instead", path, reads)
}

// sizeFlag is a pflag.Value for byte counts such as 4MiB.
type sizeFlag struct{ n *int64 }

func (s sizeFlag) String() string { return inputfile.FormatSize(*s.n) }
func (s sizeFlag) Set(v string) error {
	n, err := inputfile.ParseSize(v)
	if err != nil {
		return err
	}
	*s.n = n
	return nil
}
func (s sizeFlag) Type() string { return "size" }

// runEnv is the outside world as a learning run sees it; quiet keeps the
// notes to those a user must see.
func (e *env) runEnv(quiet bool) run.Env {
	return run.Env{
		Getenv: e.getenv, ReadFile: e.readFile, Log: e.stderr, Quiet: quiet,
		Host: "droidstar " + toolVersion(), ToolVersion: toolVersion(), Now: time.Now,
	}
}

// backendOptions are the backend settings every command shares: the
// harness jar and app embedded in this binary among them.
func (e *env) backendOptions() compose.BackendOptions { return e.runEnv(false).Backend() }
