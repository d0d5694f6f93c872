package simharness

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// corpusKeys reads the corpus's keys of the purpose object, which the
// purpose schema table generates (testdata/protocol/README.md).
func corpusKeys(t *testing.T) []struct {
	In   string   `json:"in"`
	Keys []string `json:"keys"`
} {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(corpusDir, "schema-keys.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Maps []struct {
			In   string   `json:"in"`
			Keys []string `json:"keys"`
		} `json:"maps"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatalf("schema-keys.json: %v", err)
	}
	if len(file.Maps) == 0 {
		t.Fatal("schema-keys.json lists no maps")
	}
	return file.Maps
}

// TestSchemaKeys: the keys configure may read are the corpus's, map by
// map and in its order.
func TestSchemaKeys(t *testing.T) {
	maps := corpusKeys(t)
	var got, want []string
	for _, s := range schemaKeys {
		got = append(got, s.in)
	}
	for _, m := range maps {
		want = append(want, m.In)
		if slices.Contains(got, m.In) && !slices.Equal(keysAt(m.In), m.Keys) {
			t.Errorf("map %q: schemaKeys has %v, the corpus's schema-keys.json %v", m.In, keysAt(m.In), m.Keys)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("schemaKeys has the maps %q, the corpus's schema-keys.json %q", got, want)
	}
}

// schemaBase is a purpose object that configures, with a map at every
// place of the schema that a key test needs: each key is given a bad
// value where its map is, and configure must refuse it there. The Java
// suite's SchemaKeysTest starts from the same purpose.
const schemaBase = `{"name":"Gate","class":"org.droidstar.harness.corpus.Gate",
 "target":{"new":[],"listeners":[{"type":"org.droidstar.harness.corpus.Gate$Listener","register":"setListener"}],
  "init":[{"call":"setLabel","args":["x"]}],"dispose":{"call":"release"}},
 "setup":[{"delete":"f"}],
 "callins":[{"symbol":"open","call":"open"},{"symbol":"close","call":"close"}],
 "callbacks":[{"symbol":"broken","from":["onBroken/x"]}],
 "details":{"onBroken":[{"arg":0}]},
 "timeouts":{"quiescence":10}}`

// schemaPlaces says, for each map of the corpus's file, where to find one
// in a purpose object made from schemaBase (making it when the base has
// none) and its path in errors.
var schemaPlaces = map[string]func(p map[string]any) (map[string]any, string){
	"":       func(p map[string]any) (map[string]any, string) { return p, "" },
	"target": func(p map[string]any) (map[string]any, string) { return obj(p, "target"), "target" },
	"target.factory": func(p map[string]any) (map[string]any, string) {
		t := obj(p, "target")
		delete(t, "new")
		f := map[string]any{"method": "make"}
		t["factory"] = f
		return f, "target.factory"
	},
	"target.listeners[]": func(p map[string]any) (map[string]any, string) {
		return item(obj(p, "target"), "listeners"), "target.listeners[0]"
	},
	"target.init[]": func(p map[string]any) (map[string]any, string) {
		return item(obj(p, "target"), "init"), "target.init[0]"
	},
	"target.dispose": func(p map[string]any) (map[string]any, string) {
		return obj(obj(p, "target"), "dispose"), "target.dispose"
	},
	"callins[]":   func(p map[string]any) (map[string]any, string) { return item(p, "callins"), "callins[0]" },
	"callbacks[]": func(p map[string]any) (map[string]any, string) { return item(p, "callbacks"), "callbacks[0]" },
	"details.*[]": func(p map[string]any) (map[string]any, string) {
		return item(obj(p, "details"), "onBroken"), "details.onBroken[0]"
	},
	"timeouts": func(p map[string]any) (map[string]any, string) { return obj(p, "timeouts"), "timeouts" },
	inLiteral: func(p map[string]any) (map[string]any, string) {
		lit := map[string]any{}
		item(p, "callins")["args"] = []any{lit}
		return lit, "callins[0].args[0]"
	},
	inAction: func(p map[string]any) (map[string]any, string) {
		a := map[string]any{}
		p["setup"] = []any{a}
		return a, "setup[0]"
	},
	"<action>.write":  actionPlace("write"),
	"<action>.append": actionPlace("append"),
	"<action>.sqlite": actionPlace("sqlite"),
}

func actionPlace(kind string) func(p map[string]any) (map[string]any, string) {
	return func(p map[string]any) (map[string]any, string) {
		arg := map[string]any{"file": "f"}
		p["setup"] = []any{map[string]any{kind: arg}}
		return arg, "setup[0]." + kind
	}
}

func obj(m map[string]any, key string) map[string]any { return m[key].(map[string]any) }

func item(m map[string]any, key string) map[string]any { return m[key].([]any)[0].(map[string]any) }

// badValue is wrong for every key of the schema: no key takes a list of
// lists (a literal cannot be a list, nor can a list's items be).
var badValue = []any{[]any{}}

// TestConfigureReadsEverySchemaKey: configure reads each key of the
// corpus's file where the file says it is, so that none is listed in
// schemaKeys and ignored. A key configure reads but schemaKeys does not
// list panics in fields instead.
func TestConfigureReadsEverySchemaKey(t *testing.T) {
	o := corpusOptions(t)
	if reply := configure(t, o, base(t)); !strings.Contains(reply, `"ok":true`) {
		t.Fatalf("the base purpose does not configure: %s", reply)
	}
	for _, m := range corpusKeys(t) {
		place, ok := schemaPlaces[m.In]
		if !ok {
			t.Errorf("no place for the map %q in this test: add one to schemaPlaces", m.In)
			continue
		}
		for _, key := range m.Keys {
			p := base(t)
			into, path := place(p)
			into[key] = badValue
			want := strings.TrimPrefix(path+"."+key, ".")
			if key == "jar_sha256" {
				want = "jars" // not a purpose field: PROTOCOL.md points at the jars
			}
			var reply struct {
				OK    bool `json:"ok"`
				Error struct {
					Where string `json:"where"`
				} `json:"error"`
			}
			raw := configure(t, o, p)
			if err := json.Unmarshal([]byte(raw), &reply); err != nil {
				t.Fatalf("%s: %v", raw, err)
			}
			w := reply.Error.Where
			if reply.OK || !(w == want || strings.HasPrefix(w, want+".") || strings.HasPrefix(w, want+"[")) {
				t.Errorf("%s in %q given %v: want a refusal at %s, got %s", key, m.In, badValue, want, raw)
			}
		}
	}
}

func base(t *testing.T) map[string]any {
	t.Helper()
	var p map[string]any
	if err := json.Unmarshal([]byte(schemaBase), &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// configure sends one configure request with purpose p to a fresh
// simulated harness and returns its reply line.
func configure(t *testing.T, o Options, p map[string]any) string {
	t.Helper()
	req, err := json.Marshal(map[string]any{"id": 1, "op": "configure", "purpose": p})
	if err != nil {
		t.Fatal(err)
	}
	conn := &rw{in: strings.NewReader(string(req) + "\n")}
	if _, err := Serve(context.Background(), conn, o); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	return strings.TrimSuffix(conn.out.String(), "\n")
}
