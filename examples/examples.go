// Package examples embeds the example purposes and the simulation models
// written for them from the Android reference documentation, so that
// `droidstar learn --example NAME` runs anywhere, with no device and no
// source tree.
//
// The examples are the examples/*/ folders with a sim backend. The other
// folders hold purposes for a device only (backend adb): they need jars and
// files from the source tree, so they are learned from there
// (droidstar learn examples/NAME/purpose.yaml) and are not listed here.
package examples

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/droidstar/droidstar/internal/purpose"
)

//go:embed */purpose.yaml */model.dot
var files embed.FS

// prefix makes embedded paths read like the source tree's in messages.
const prefix = "examples/"

// Names lists the examples (the purposes with a sim backend) in
// alphabetical order.
func Names() []string {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if p, err := parse(e.Name()); e.IsDir() && err == nil && p.Backend.Has(purpose.BackendSim) {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names
}

// Purpose parses an example's purpose with the sim backend selected; its
// File is "examples/NAME/purpose.yaml".
func Purpose(name string) (*purpose.Purpose, error) {
	p, err := parse(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no example %q (examples: %s)", name, strings.Join(Names(), ", "))
	}
	if err == nil && !p.Backend.Has(purpose.BackendSim) {
		return nil, fmt.Errorf("%s runs on a device only (backend %s) and needs files from the source tree: droidstar learn %s (examples: %s)",
			p.File, strings.Join(p.Backend.Kinds, ", "), p.File, strings.Join(Names(), ", "))
	}
	if err == nil {
		// The embedded examples are the no-device demo: they run on the
		// simulator unless a caller picks another backend.
		err = p.Backend.Use(purpose.BackendSim)
	}
	return p, err
}

// parse reads and parses the embedded purpose of a folder.
func parse(name string) (*purpose.Purpose, error) {
	file := path.Join(name, "purpose.yaml")
	data, err := files.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return purpose.Parse(prefix+file, data)
}

// ReadFile reads an embedded file by its "examples/..." path.
func ReadFile(name string) ([]byte, error) {
	return files.ReadFile(strings.TrimPrefix(name, prefix))
}

// DevicePurposes parses every example purpose that runs on a device
// (backend adb), with that backend selected, in the folders' alphabetical
// order: what droidstar doctor checks by default.
func DevicePurposes() ([]*purpose.Purpose, error) {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		return nil, err
	}
	var out []*purpose.Purpose
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		p, err := parse(e.Name())
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if p.Backend.Has(purpose.BackendADB) {
			if err := p.Backend.Use(purpose.BackendADB); err != nil {
				return nil, err
			}
			out = append(out, p)
		}
	}
	return out, nil
}
