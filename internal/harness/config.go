package harness

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strings"

	"github.com/droidstar/droidstar/internal/purpose"
)

// Configuration is a purpose turned into a configure request, with the
// purpose to point the harness's complaints at.
type Configuration struct {
	Request Request
	purpose *purpose.Purpose
}

// JarDir is the folder of the harness's files directory where the host
// stages the purpose's jars.
const JarDir = "jars"

// Configure builds the configure request of a purpose. Short forms become
// long ones: a callin that names no method and runs no actions calls the
// method of its symbol, so the request says so. The purpose's jars are
// staged under JarDir of the harness's files directory and named relative
// to it, so the request does not depend on where a device or the host
// keeps that directory.
func Configure(p *purpose.Purpose) *Configuration {
	r := Request{
		Name: p.Name, Class: p.Class, Target: p.Target, Setup: p.Setup,
		Callins: make([]purpose.Callin, len(p.Callins)), Callbacks: p.Callbacks, Details: p.Details,
		// Rounded up, as a run's own timeouts are (Quiet.For): a wait
		// calibrated up to the purpose's timeout must not exceed what
		// configure said, which the harness checks.
		Timeouts: Timeouts{
			Quiescence: wholeMillis(p.Timeouts.Quiescence).Milliseconds(),
			Settle:     wholeMillis(p.Timeouts.Settle).Milliseconds(),
			PostReset:  wholeMillis(p.Timeouts.PostReset).Milliseconds(),
		},
		Adapters: p.Adapters,
	}
	for i, in := range p.Callins {
		in.Call = in.Method()
		r.Callins[i] = in
	}
	for _, j := range p.Jars {
		r.Jars = append(r.Jars, JarDir+"/"+j.Name)
	}
	r.JarSHA256 = jarDigests(p)
	return &Configuration{Request: r, purpose: p}
}

// PurposeError turns a configure error into an error at the purpose line
// the harness complained about. Its where is a purpose path already: the
// field itself when the purpose wrote it, else the closest enclosing field
// it wrote (a long form the host filled in, such as a callin's call).
func (c *Configuration) PurposeError(e *RemoteError) error {
	p := c.purpose
	for probe := e.Where; probe != ""; probe = parentPath(probe) {
		if pos, ok := p.Where[probe]; ok {
			return purpose.ErrorList{{File: p.File, Line: pos.Line, Col: pos.Col, Field: e.Where, Msg: e.Message}}
		}
	}
	return purpose.ErrorList{{File: p.File, Line: 1, Col: 1, Field: e.Where, Msg: e.Message}}
}

// Blames says whether e is the purpose's fault, to be shown at its line:
// any refusal but internal, except that a bad-request counts only when it
// names a field the purpose wrote (a listener type declared twice is the
// purpose's; a malformed request the host built is droidstar's own).
func (c *Configuration) Blames(e *RemoteError) bool {
	switch e.Code {
	case "internal":
		return false
	case "bad-request":
		for probe := e.Where; probe != ""; probe = parentPath(probe) {
			if _, ok := c.purpose.Where[probe]; ok {
				return true
			}
		}
		return false
	}
	return true
}

// parentPath drops the last component of a field path.
func parentPath(p string) string {
	i := strings.LastIndexAny(p, ".[")
	if i <= 0 {
		return ""
	}
	return p[:i]
}

// StagedFile is one file the host puts into the harness's files directory.
type StagedFile struct {
	Name string // slash-separated, relative to the files directory
	Data []byte
}

// StagedFiles reads the purpose's files and jars as the harness expects to
// find them in its files directory (jars under JarDir). Everything is
// read before anything is staged, so a missing file fails at its line
// before a device or a JVM is touched.
func StagedFiles(p *purpose.Purpose) ([]StagedFile, error) {
	var out []StagedFile
	var errs purpose.ErrorList
	read := func(from purpose.File, name, field string) {
		data, err := os.ReadFile(from.Path)
		if err != nil {
			errs = append(errs, &purpose.Error{File: p.File, Line: from.Pos.Line, Col: from.Pos.Col, Field: field,
				Msg: fmt.Sprintf("cannot stage it for the harness: %v", err)})
			return
		}
		out = append(out, StagedFile{Name: name, Data: data})
	}
	for i, f := range p.Files {
		read(f, f.Name, fmt.Sprintf("files[%d]", i))
	}
	for i, j := range p.Jars {
		read(j, JarDir+"/"+j.Name, fmt.Sprintf("jars[%d]", i))
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}

// jarDigests are the SHA-256 digests of the purpose's jars as they are now,
// so that the harness loads only the jars the host staged, not ones changed
// on the device or in the harness's folder since. When a jar cannot be
// read there are none: staging it fails first, at its purpose line.
func jarDigests(p *purpose.Purpose) []string {
	var out []string
	for _, j := range p.Jars {
		data, err := os.ReadFile(j.Path)
		if err != nil {
			return nil
		}
		sum := sha256.Sum256(data)
		out = append(out, hex.EncodeToString(sum[:]))
	}
	return out
}
