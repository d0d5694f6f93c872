package purpose

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// everyLiteralPlace uses {param: ...} in every place an argument literal
// may be written (and nested in new and call), so that a place Bind does
// not reach shows up as a "param" key left in the bound purpose.
const everyLiteralPlace = `name: Everywhere
class: java.util.Timer
parameters:
  host: the host
  port: {doc: the port, default: "8080"}
target:
  new: [{param: host}]
  init:
    - {call: setA, args: [{param: host}]}
  dispose: {call: close, args: [{new: [java.lang.StringBuilder, {param: port}]}]}
callins:
  - symbol: a
    on: {call: [java.lang.String, valueOf, {param: host}]}
    args: [{param: host}, {param: port}]
callbacks:
  - symbol: b
    returns: {param: host}
  - symbol: c
    throws: {new: [java.lang.RuntimeException, {param: port}]}
backend:
  jvm: {}
`

const factoryPlace = `name: Factory
class: java.util.Timer
parameters:
  host: the host
target:
  factory: {method: make, args: [{param: host}]}
callins: [a]
backend:
  jvm: {}
`

func mustParse(t *testing.T, src string) *Purpose {
	t.Helper()
	p, err := Parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestBindReachesEveryLiteral(t *testing.T) {
	p := mustParse(t, everyLiteralPlace)
	want := []Param{
		{Name: "host", Doc: "the host", Pos: Pos{4, 3}},
		{Name: "port", Doc: "the port", Default: ptr("8080"), Pos: Pos{5, 3}},
	}
	if !reflect.DeepEqual(p.Params, want) || !p.Unbound() {
		t.Fatalf("params %+v, unbound %v; want %+v", p.Params, p.Unbound(), want)
	}
	before := jsonOf(t, p)
	b, err := p.Bind(map[string]string{"host": "example.org"})
	if err != nil {
		t.Fatal(err)
	}
	got := jsonOf(t, b)
	if strings.Contains(got, `"param"`) {
		t.Fatalf("a {param} literal is left after Bind: %s", got)
	}
	wantJSON := `{"name":"Everywhere","class":"java.util.Timer",` +
		`"callins":[{"symbol":"a","on":{"call":["java.lang.String","valueOf","example.org"]},"args":["example.org","8080"]}],` +
		`"callbacks":[{"symbol":"b","returns":"example.org"},{"symbol":"c","throws":{"new":["java.lang.RuntimeException","8080"]}}],` +
		`"timeouts":{"quiescence":500000000,"settle":100000000,"post_reset":50000000},"bound":2,"backend":{"kind":"jvm","kinds":["jvm"],"jvm":{}},` +
		`"target":{"new":["example.org"],"init":[{"call":"setA","args":["example.org"]}],` +
		`"dispose":{"call":"close","args":[{"new":["java.lang.StringBuilder","8080"]}]}}}`
	if got != wantJSON {
		t.Errorf("bound purpose\n got %s\nwant %s", got, wantJSON)
	}
	if want := map[string]string{"host": "example.org", "port": "8080"}; !reflect.DeepEqual(b.Values, want) || b.Unbound() {
		t.Errorf("values %v, unbound %v; want %v", b.Values, b.Unbound(), want)
	}
	// Unbind gives the literals back and keeps what changed since.
	b.Backend.Kind = "changed"
	u := b.Unbind()
	if u.Backend.Kind != "changed" || u.Values != nil || u.Unbind() != u {
		t.Errorf("Unbind: backend %q, values %v", u.Backend.Kind, u.Values)
	}
	u.Backend.Kind = p.Backend.Kind
	if got := jsonOf(t, u); got != before {
		t.Errorf("Unbind gave\n%s\nwant\n%s", got, before)
	}
	// The purpose bound is left as it was, for other bindings.
	if after := jsonOf(t, p); after != before || !p.Unbound() {
		t.Errorf("Bind changed its purpose:\n%s\nwas\n%s", after, before)
	}

	f, err := mustParse(t, factoryPlace).Bind(map[string]string{"host": "h"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := jsonOf(t, f.Target), `{"factory":{"method":"make","args":["h"]}}`; got != want {
		t.Errorf("factory target %s, want %s", got, want)
	}
}

func ptr(s string) *string { return &s }

func TestBindRefusesMissingValues(t *testing.T) {
	p := mustParse(t, strings.Replace(everyLiteralPlace, "{doc: the port, default: \"8080\"}", "the port", 1))
	_, err := p.Bind(map[string]string{"other": "x"})
	want := "t.yaml:4:3: parameters.host: needs a value (the host): give it with --set host=VALUE, or in the environment as DROIDSTAR_SET_HOST\n" +
		"t.yaml:5:3: parameters.port: needs a value (the port): give it with --set port=VALUE, or in the environment as DROIDSTAR_SET_PORT"
	if err == nil || err.Error() != want {
		t.Fatalf("Bind: %v\nwant %s", err, want)
	}
	// An empty value is a value: a user may mean it.
	if _, err := p.Bind(map[string]string{"host": "", "port": ""}); err != nil {
		t.Errorf("empty values: %v", err)
	}
}

// TestBoundFingerprints: the values are part of what a purpose's
// fingerprint identifies, so that the query store keeps two devices'
// answers apart, and the same values give the same fingerprint.
func TestBoundFingerprints(t *testing.T) {
	p := mustParse(t, everyLiteralPlace)
	bind := func(host string) string {
		b, err := p.Bind(map[string]string{"host": host})
		if err != nil {
			t.Fatal(err)
		}
		return b.Fingerprint()
	}
	a, a2, other := bind("E4:A4:71:9C:14:12"), bind("E4:A4:71:9C:14:12"), bind("00:00:5E:00:53:01")
	if a != a2 || a == other || a == p.Fingerprint() {
		t.Errorf("fingerprints: same values %s and %s, other value %s, unbound %s", a, a2, other, p.Fingerprint())
	}
	if p := mustParse(t, "name: N\nclass: C\ncallins: [a]\nbackend: {jvm: {}}\n"); func() bool { b, _ := p.Bind(nil); return b != p }() {
		t.Errorf("a purpose without parameters is not returned as it is")
	}
}

func TestParamValues(t *testing.T) {
	p := mustParse(t, everyLiteralPlace)
	env := map[string]string{"DROIDSTAR_SET_HOST": "from-env", "DROIDSTAR_SET_PORT": "", "DROIDSTAR_SET_OTHER": "x"}
	getenv := func(k string) string { return env[k] }
	if got, want := p.ParamValues(nil, getenv), map[string]string{"host": "from-env"}; !reflect.DeepEqual(got, want) {
		t.Errorf("from the environment: %v, want %v (an empty variable is unset)", got, want)
	}
	set := map[string]string{"host": "from-flag", "nope": "y"}
	if got, want := p.ParamValues(set, getenv), map[string]string{"host": "from-flag"}; !reflect.DeepEqual(got, want) {
		t.Errorf("--set wins: %v, want %v", got, want)
	}
	if got, want := p.Undeclared(map[string]string{"nope": "", "host": "", "also": ""}), []string{"also", "nope"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Undeclared = %v, want %v", got, want)
	}
	if got := p.ParamValues(set, nil); !reflect.DeepEqual(got, map[string]string{"host": "from-flag"}) {
		t.Errorf("without an environment: %v", got)
	}
}

// TestBluetoothAddressParameter: a parameter of kind bluetooth_address
// takes only what BluetoothAdapter.checkBluetoothAddress accepts, in a
// default and in a value given to Bind, each refused at the declaration.
func TestBluetoothAddressParameter(t *testing.T) {
	src := func(decl string) string {
		return "name: B\nclass: java.util.Timer\nparameters:\n  address: " + decl + "\ncallins:\n  - symbol: a\n    args: [{param: address}]\nbackend:\n  jvm: {}\n"
	}
	p := mustParse(t, src("{doc: a paired device, kind: bluetooth_address}"))
	if want := []Param{{Name: "address", Doc: "a paired device", Kind: ParamBluetoothAddress, Pos: Pos{4, 3}}}; !reflect.DeepEqual(p.Params, want) {
		t.Fatalf("params %+v, want %+v", p.Params, want)
	}
	if _, err := p.Bind(map[string]string{"address": "00:11:22:AA:BB:CC"}); err != nil {
		t.Errorf("an upper-case address: %v", err)
	}
	for _, v := range []string{"00:11:22:aa:bb:cc", "00-11-22-AA-BB-CC", "00:11:22:AA:BB", "E4:A4:71:9C:14:1G"} {
		_, err := p.Bind(map[string]string{"address": v})
		want := "t.yaml:4:3: parameters.address: \"" + v + "\" is no Bluetooth address as Android takes one: want six pairs of upper-case hex digits separated by colons, such as 00:11:22:AA:BB:CC"
		if err == nil || err.Error() != want {
			t.Errorf("Bind(%s):\n got %v\nwant %s", v, err, want)
		}
	}
	for _, c := range []struct{ decl, want string }{
		{"{doc: a paired device, kind: mac}", `t.yaml:4:41: parameters.address.kind: want text or bluetooth_address, got string "mac"`},
		{"{doc: a paired device, kind: bluetooth_address, default: 00:11}", `t.yaml:4:69: parameters.address.default: "00:11" is no Bluetooth address as Android takes one: want six pairs of upper-case hex digits separated by colons, such as 00:11:22:AA:BB:CC`},
	} {
		_, err := Parse("t.yaml", []byte(src(c.decl)))
		if err == nil || err.Error() != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.decl, err, c.want)
		}
	}
}
