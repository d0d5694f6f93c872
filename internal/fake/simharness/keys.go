package simharness

import (
	"fmt"
	"slices"
	"strings"
)

// schemaKeys are the keys of each map of the configure request's purpose
// object, by the path of the map as the protocol corpus's
// schema-keys.json writes it (harness-apk/testdata/protocol/README.md):
// the purpose schema's keys that the harness is sent. configure reads
// the purpose object only through them (fields), so that it can read no
// other key, and TestSchemaKeys checks them against the corpus's file and
// that configure reads every one of them.
var schemaKeys = []struct {
	in   string
	keys []string
}{
	{"", []string{"name", "class", "target", "setup", "jars", "jar_sha256", "adapters", "callins", "callbacks", "details", "timeouts"}},
	{"target", []string{"new", "factory", "shim", "listeners", "init", "dispose"}},
	{"target.factory", []string{"class", "method", "args"}},
	{"target.listeners[]", []string{"type", "register", "name"}},
	{"target.init[]", []string{"call", "args"}},
	{"target.dispose", []string{"call", "args"}},
	{"callins[]", []string{"symbol", "call", "on", "args", "do", "result", "error_if"}},
	{"callbacks[]", []string{"symbol", "from", "error", "returns", "throws", "sleep_ms"}},
	{"details.*[]", []string{"arg", "call", "extra"}},
	{"timeouts", []string{"quiescence", "settle", "post_reset"}},
	{inLiteral, []string{"file", "path", "listener", "target", "context", "constant", "new", "call", "result", "callback", "int", "long", "float", "double", "string"}},
	{inAction, []string{"write", "append", "delete", "touch", "sqlite", "sleep"}},
	{"<action>.write", []string{"file", "content"}},
	{"<action>.append", []string{"file", "content"}},
	{"<action>.sqlite", []string{"file", "version"}},
}

// The maps of object literals and environment actions, which the purpose
// has in many places.
const (
	inLiteral = "<literal>"
	inAction  = "<action>"
)

// keysAt lists the keys of the map at in. A path that names no map is a
// bug of this package, not of a request.
func keysAt(in string) []string {
	for _, s := range schemaKeys {
		if s.in == in {
			return s.keys
		}
	}
	panic(fmt.Sprintf("simharness: no map %q in schemaKeys", in))
}

// literalKinds and actionKinds list the keys of object literals and of
// environment actions as messages do (Literal.KINDS, EnvAction.KINDS).
var (
	literalKinds = strings.Join(keysAt(inLiteral), ", ")
	actionKinds  = strings.Join(keysAt(inAction), ", ")
)

// fields is a map of the purpose object, read by the keys of its place
// in the schema.
type fields struct {
	o  *object
	in string
}

// at reads o as the map at in.
func at(o *object, in string) fields {
	keysAt(in) // a bad path fails here, before any read
	return fields{o: o, in: in}
}

// get returns the value of key, nil when it is absent or null. Reading a
// key that the map's schema does not list is a bug of the simulated
// harness, which would then take a key the Java harness does not.
func (f fields) get(key string) any {
	f.check(key)
	return f.o.get(key)
}

// has says whether key is present, null or not.
func (f fields) has(key string) bool {
	f.check(key)
	_, ok := f.o.vals[key]
	return ok
}

func (f fields) check(key string) {
	if !slices.Contains(keysAt(f.in), key) {
		panic(fmt.Sprintf("simharness: configure reads %q in %q, which schemaKeys does not list", key, f.in))
	}
}
