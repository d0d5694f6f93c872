package purpose

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"github.com/droidstar/droidstar/internal/inputfile"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// Load reads a purpose file and checks it, including that the sim model it
// names exists, so that a typo in a path fails before any learning starts.
func Load(path string) (*Purpose, error) {
	return LoadLimit(path, inputfile.DefaultMaxSize)
}

// LoadLimit is Load for a file of at most maxSize bytes: a purpose must be
// a regular file (not /dev/zero, a FIFO or a directory), and the cap keeps a
// runaway file from exhausting memory.
func LoadLimit(path string, maxSize int64) (*Purpose, error) {
	data, err := inputfile.Read(path, maxSize)
	if err != nil {
		return nil, err
	}
	p, err := Parse(path, data)
	if err != nil {
		return nil, err
	}
	if sim := p.Backend.Sim; sim != nil {
		if msg := checkFile(sim.ModelPath); msg != "" {
			return nil, ErrorList{{File: path, Line: sim.ModelPos.Line, Col: sim.ModelPos.Col, Field: "backend.sim.model", Msg: msg}}
		}
	}
	// The files and jars a harness needs are checked when a harness
	// backend stages them: a purpose may name jars a user supplies (a
	// library under test) and still be checked without them.
	return p, nil
}

// checkFile says what is wrong with a model path, or "" when the file
// exists. Whether it holds a model is for the sim backend to say, once it
// knows the format.
func checkFile(path string) string {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "file not found: " + path
	case err != nil:
		return err.Error()
	case fi.IsDir():
		return "is a directory, not a model file: " + path
	}
	return ""
}

// Parse checks the YAML text of a purpose; file names it in messages and
// anchors the sim model's relative path. Parse touches no files, so it
// suits purposes that do not live on disk; Load adds the file checks.
// Every problem found is returned at once, as an ErrorList.
func Parse(file string, data []byte) (p *Purpose, err error) {
	// The decoder is written not to panic, and FuzzParse checks that, but
	// the YAML parser underneath is not ours: a crash there must still
	// become a message, not take the CLI down.
	defer func() {
		if r := recover(); r != nil {
			p = nil
			err = ErrorList{{File: file, Line: 1, Col: 1, Msg: fmt.Sprintf("internal error while reading the purpose (please report it): %v", r)}}
		}
	}()
	return parse(file, data)
}

// parse is Parse without the safety net, so that the fuzz target sees
// every panic.
func parse(file string, data []byte) (*Purpose, error) {
	d := &decoder{file: file, anchors: map[string][]anchorDef{}, params: map[string]*paramDecl{}}
	// Editors on Windows may start a file with a byte-order mark; go-yaml
	// would read it as part of the first key.
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	// go-yaml's time and memory grow with the square of the nesting depth
	// (a 200 KB file nested 100,000 deep took 91 s and 15 GB), so the depth
	// is checked in one linear pass before the parser sees the text.
	var deep *inputfile.DepthError
	if errors.As(inputfile.CheckYAMLDepth(data, inputfile.MaxDepth), &deep) {
		d.errAt(Pos{deep.Line, deep.Col}, "", "%s", deep.Error())
		return nil, d.errs.err()
	}
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		d.syntaxError(err)
		return nil, d.errs.err()
	}
	var docs []*ast.DocumentNode
	if f != nil {
		for _, doc := range f.Docs {
			if doc != nil && doc.Body != nil {
				docs = append(docs, doc)
			}
		}
	}
	if len(docs) == 0 {
		d.errAt(Pos{1, 1}, "", "empty purpose: want a map with at least name, callins and backend")
		return nil, d.errs.err()
	}
	if len(docs) > 1 {
		d.errAt(nodePos(docs[1]), "", "a purpose file holds one YAML document, found a second one")
	}
	collectAnchors(docs[0], d.anchors, 0)
	p := d.purpose(docs[0].Body)
	if err := d.errs.err(); err != nil {
		return nil, err
	}
	return p, nil
}
