package purpose

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/golden"
)

// schemaKeysFile is the protocol corpus's copy of the keys the harness is
// sent, which both harness implementations' tests read.
const schemaKeysFile = "harness-apk/testdata/protocol/schema-keys.json"

// TestSchemaKeysCorpus keeps the corpus's file of wire keys equal to the
// table: go test ./internal/purpose -update rewrites it.
func TestSchemaKeysCorpus(t *testing.T) {
	golden.CheckFile(t, schemaKeysFile, wireKeysJSON(), "./internal/purpose")
}

// wireKeysJSON writes the keys the harness is sent, map by map, in the
// table's order; a map is in when the harness is sent at least one of its
// keys. One map per line, so that a change shows as the line of its map.
func wireKeysJSON() []byte {
	type wireMap struct {
		In   string   `json:"in"`
		Keys []string `json:"keys"`
	}
	var maps []*wireMap
	for _, k := range Schema() {
		if k.Wire == Kept {
			continue
		}
		i := slices.IndexFunc(maps, func(m *wireMap) bool { return m.In == k.In })
		if i < 0 {
			maps = append(maps, &wireMap{In: k.In})
			i = len(maps) - 1
		}
		maps[i].Keys = append(maps[i].Keys, k.Name)
	}
	var b bytes.Buffer
	b.WriteString("{\n")
	b.WriteString(`"about": "The keys of each map of the purpose object of a configure request (PROTOCOL.md), by the path of the map: the empty path is the purpose object, callins[] every callin, details.*[] every part of a detail, <literal> every object literal, <action> every environment action. Generated from the schema table (internal/purpose/schema.go) by go test ./internal/purpose -update: do not edit. The tests of both harnesses check that they take these keys and no others (README.md of this folder).",` + "\n")
	b.WriteString(`"maps": [` + "\n")
	for i, m := range maps {
		var line bytes.Buffer
		enc := json.NewEncoder(&line)
		enc.SetEscapeHTML(false) // <literal>, not \u003cliteral\u003e
		if err := enc.Encode(m); err != nil {
			panic(err) // strings only
		}
		b.Write(bytes.TrimSuffix(line.Bytes(), []byte("\n")))
		if i < len(maps)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("]\n}\n")
	return b.Bytes()
}

// TestSchemaTable checks the table's own rules: every key is declared
// once, in a map that some key holds, with a kind and one line of doc,
// and the harness is sent a key only inside a map it is sent.
func TestSchemaTable(t *testing.T) {
	kinds := []Kind{KindString, KindInteger, KindNumber, KindBoolean, KindDuration, KindWord, KindList, KindMap, KindLiteral, KindValue}
	seen := map[string]bool{}
	for _, k := range Schema() {
		at := join(k.In, k.Name)
		if seen[at] {
			t.Errorf("%s is declared twice", at)
		}
		seen[at] = true
		if !isMap(k.In) {
			t.Errorf("%s: %q is no map: no key of the table holds it", at, k.In)
		}
		if k.Name == "" || strings.ContainsAny(k.Name, ".[]*<> ") {
			t.Errorf("%s: bad key name %q", at, k.Name)
		}
		if !slices.Contains(kinds, k.Kind) {
			t.Errorf("%s: unknown kind %q", at, k.Kind)
		}
		if k.Doc == "" || strings.Contains(k.Doc, "\n") || strings.HasSuffix(k.Doc, ".") {
			t.Errorf("%s: want one line of doc without a final stop, got %q", at, k.Doc)
		}
		if k.Wire != Kept && k.In != inTop && k.In != inLiteral && k.In != inAction {
			parent, name := parentKey(k.In)
			i := slices.IndexFunc(Schema(), func(p Key) bool { return p.In == parent && p.Name == name })
			if i >= 0 && Schema()[i].Wire != Sent {
				t.Errorf("%s is sent, but the map it is in (%s) is not", at, join(parent, name))
			}
		}
	}
}

// TestWirePath checks the rule the protocol is built on: a key the
// harness is sent keeps the path it has in the file.
func TestWirePath(t *testing.T) {
	cases := []struct {
		in, name, want string
	}{
		{"", "class", "class"},
		{"", "description", ""},
		{"", "jar_sha256", "jar_sha256"},
		{"callins[]", "error_if", "callins[].error_if"},
		{"details.*[]", "extra", "details.*[].extra"},
		{"restrictions[]", "first", ""},
		{"<literal>", "file", "<literal>.file"},
	}
	for _, c := range cases {
		i := slices.IndexFunc(Schema(), func(k Key) bool { return k.In == c.in && k.Name == c.name })
		if i < 0 {
			t.Fatalf("no key %s in %q", c.name, c.in)
		}
		if got := Schema()[i].WirePath(); got != c.want {
			t.Errorf("WirePath of %s in %q = %q, want %q", c.name, c.in, got, c.want)
		}
	}
}

// TestKeysInRefusesUnknownMaps: a typo in a path the decoder reads its
// keys by must stop the package, not allow or refuse every key.
func TestKeysInRefusesUnknownMaps(t *testing.T) {
	for _, in := range []string{"callin[]", "target.factory[]", "<literal>.file", "backend.sim.latency.x"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("keysIn(%q) did not panic", in)
				}
			}()
			keysIn(in)
		}()
	}
	if got := keysIn("backend.adb"); got == nil || len(got) != 0 {
		t.Errorf("keysIn(backend.adb) = %#v, want an empty list (nil would allow every key)", got)
	}
}
