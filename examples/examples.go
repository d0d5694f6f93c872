// Package examples embeds the example purposes and the simulation models
// written for them from the Android reference documentation, so that
// `droidstar learn --example NAME` runs anywhere, with no device and no
// source tree.
package examples

import (
	"embed"
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

// Names lists the examples in alphabetical order.
func Names() []string {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if _, err := fs.Stat(files, path.Join(e.Name(), "purpose.yaml")); e.IsDir() && err == nil {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names
}

// Purpose parses an example's purpose; its File is "examples/NAME/purpose.yaml".
func Purpose(name string) (*purpose.Purpose, error) {
	file := path.Join(name, "purpose.yaml")
	data, err := files.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("no example %q (examples: %s)", name, strings.Join(Names(), ", "))
	}
	return purpose.Parse(prefix+file, data)
}

// ReadFile reads an embedded file by its "examples/..." path.
func ReadFile(name string) ([]byte, error) {
	return files.ReadFile(strings.TrimPrefix(name, prefix))
}
