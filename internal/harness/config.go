package harness

import (
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/droidstar/droidstar/internal/purpose"
)

// Configuration is a purpose turned into a configure request, with what it
// takes to point the harness's complaints back at the purpose.
type Configuration struct {
	Config Config
	// callbackPaths maps a wire callbacks index to the YAML path of the
	// name it came from.
	callbackPaths []string
	purpose       *purpose.Purpose
}

// JarDir is the folder of the harness's files directory where the host
// stages the purpose's jars.
const JarDir = "jars"

// Configure builds the configure request of a purpose. The purpose's jars
// are staged under JarDir of the harness's files directory and named
// relative to it, so the request does not depend on where a device or the
// host keeps that directory.
func Configure(p *purpose.Purpose) *Configuration {
	c := &Configuration{purpose: p}
	cfg := Config{
		Name: p.Name, Class: p.Class, Setup: p.Setup,
		Timeouts: WireTimeouts{
			QuiescenceMs: p.Timeouts.Quiescence.Milliseconds(),
			SettleMs:     p.Timeouts.Settle.Milliseconds(),
			PostResetMs:  p.Timeouts.PostReset.Milliseconds(),
		},
	}
	if t := p.Target; t != nil {
		cfg.New, cfg.Factory, cfg.Shim, cfg.Listeners = t.New, t.Factory, t.Shim, t.Listeners
		for _, in := range t.Init {
			cfg.Init = append(cfg.Init, wireCall(in))
		}
		if t.Dispose != nil {
			d := wireCall(*t.Dispose)
			cfg.Dispose = &d
		}
	}
	for _, in := range p.Callins {
		wc := WireCallin{Symbol: in.Symbol, On: in.On, Args: in.Args, Actions: in.Do}
		if m := in.Method(); m != "" {
			wc.Method = &m
		}
		if wc.Args == nil {
			wc.Args = []purpose.Arg{}
		}
		if wc.Actions == nil {
			wc.Actions = []purpose.Action{}
		}
		cfg.Callins = append(cfg.Callins, wc)
	}
	cfg.Callbacks = []WireCallback{}
	for i, cb := range p.Callbacks {
		if len(cb.From) == 0 {
			cfg.Callbacks = append(cfg.Callbacks, WireCallback{Name: cb.Symbol, Error: cb.Error})
			c.callbackPaths = append(c.callbackPaths, fmt.Sprintf("callbacks[%d]", i))
			continue
		}
		for k, name := range cb.From {
			cfg.Callbacks = append(cfg.Callbacks, WireCallback{Name: name, Error: cb.Error})
			c.callbackPaths = append(c.callbackPaths, fmt.Sprintf("callbacks[%d].from[%d]", i, k))
		}
	}
	for _, j := range p.Jars {
		cfg.Jars = append(cfg.Jars, JarDir+"/"+j.Name)
	}
	cfg.Adapters = p.Adapters
	c.Config = cfg
	return c
}

func wireCall(c purpose.Call) WireCall {
	args := c.Args
	if args == nil {
		args = []purpose.Arg{}
	}
	return WireCall{Method: c.Method, Args: args}
}

var (
	wireIndex    = regexp.MustCompile(`^callbacks\[(\d+)\]`)
	wirePrefixes = []struct{ wire, yaml string }{
		{"new", "target.new"}, {"factory", "target.factory"}, {"shim", "target.shim"},
		{"listeners", "target.listeners"}, {"init", "target.init"}, {"dispose", "target.dispose"},
	}
	callinField = regexp.MustCompile(`^(callins\[\d+\])\.(method|actions)`)
	callField   = regexp.MustCompile(`^(target\.(?:init\[\d+\]|dispose))\.method`)
)

// yamlPath translates a path in the configure request to the path of the
// purpose field that produced it.
func (c *Configuration) yamlPath(where string) string {
	if m := wireIndex.FindStringSubmatch(where); m != nil {
		var i int
		fmt.Sscan(m[1], &i)
		if i < len(c.callbackPaths) {
			// A wire callback is one name: its fields are the name's.
			return c.callbackPaths[i] + strings.TrimPrefix(strings.TrimPrefix(where[len(m[0]):], ".name"), ".error")
		}
	}
	for _, p := range wirePrefixes {
		if where == p.wire || strings.HasPrefix(where, p.wire+".") || strings.HasPrefix(where, p.wire+"[") {
			where = p.yaml + where[len(p.wire):]
			break
		}
	}
	if m := callinField.FindStringSubmatch(where); m != nil {
		field := map[string]string{"method": "call", "actions": "do"}[m[2]]
		where = m[1] + "." + field + where[len(m[0]):]
	}
	if m := callField.FindStringSubmatch(where); m != nil {
		where = m[1] + ".call" + where[len(m[0]):]
	}
	return where
}

// PurposeError turns a configure error into an error at the purpose line
// the harness complained about: the field itself when the purpose wrote
// it, else the closest enclosing field it wrote.
func (c *Configuration) PurposeError(e *RemoteError) error {
	p := c.purpose
	field := c.yamlPath(e.Where)
	for probe := field; probe != ""; probe = parentPath(probe) {
		if pos, ok := p.Where[probe]; ok {
			return purpose.ErrorList{{File: p.File, Line: pos.Line, Col: pos.Col, Field: field, Msg: e.Message}}
		}
	}
	return purpose.ErrorList{{File: p.File, Line: 1, Col: 1, Field: field, Msg: e.Message}}
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
