package purpose

import (
	_ "embed"
	"fmt"
	"strings"
)

// helpTopic is 'droidstar help purposes', kept beside the parser it
// describes. Its key reference is not written by hand: HelpTopic puts the
// schema table's keys where the marker is, so that no key exists without
// its line.
//
//go:embed help-purposes.md
var helpTopic string

// KeysMarker is where the generated reference of every key goes.
const KeysMarker = "<!-- keys: generated from the schema table -->"

// HelpTopic returns the text of 'droidstar help purposes' (Markdown).
func HelpTopic() string {
	return strings.Replace(helpTopic, KeysMarker, keyReference(), 1)
}

// keyReference lists every key a purpose file may write, map by map in
// the table's order, each with its kind and its Doc.
func keyReference() string {
	var b strings.Builder
	in := "\x00"
	for _, k := range schema {
		if k.Wire == Added {
			continue
		}
		if k.In != in {
			in = k.In
			fmt.Fprintf(&b, "\n%s\n\n", mapTitle(in))
		}
		fmt.Fprintf(&b, "- `%s` (%s): %s\n", k.Name, k.Kind, k.Doc)
	}
	return strings.TrimPrefix(b.String(), "\n")
}

// mapTitle says in words which map a group of keys belongs to.
func mapTitle(in string) string {
	switch in {
	case inTop:
		return "### The top level"
	case inLiteral:
		return "### An argument literal (a one-key map, wherever an argument is written)"
	case inAction:
		return "### An environment action (a one-key map, in `setup` and a callin's `do`)"
	}
	if action, ok := strings.CutPrefix(in, inAction+"."); ok {
		return fmt.Sprintf("### The map of the `%s` action", action)
	}
	if m, ok := strings.CutSuffix(in, ".*"); ok {
		return fmt.Sprintf("### Each entry of `%s` (by name)", m)
	}
	if strings.HasSuffix(in, ".*[]") {
		return fmt.Sprintf("### Each part of `%s` (per callback method)", strings.TrimSuffix(in, ".*[]"))
	}
	if strings.HasSuffix(in, "[]") {
		return fmt.Sprintf("### Each item of `%s`", strings.TrimSuffix(in, "[]"))
	}
	return fmt.Sprintf("### `%s`", in)
}
