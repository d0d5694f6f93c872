package purpose

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestHarnessFields checks the parts of a harness purpose that do not
// travel in the configure request (internal/harness pins that one): files
// to push, jars, permissions, and the backends with their order.
func TestHarnessFields(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "purposes", "harness")
	p, err := Load(filepath.Join(dir, "timer.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	wantFiles := []File{
		{Name: "audio.ogg", From: "data/audio.ogg", Path: filepath.Join(dir, "data", "audio.ogg"), Pos: Pos{16, 5}},
		{Name: "other.bin", From: "data/x.bin", Path: filepath.Join(dir, "data", "x.bin"), Pos: Pos{17, 29}},
	}
	if !reflect.DeepEqual(p.Files, wantFiles) {
		t.Errorf("files = %+v\nwant %+v", p.Files, wantFiles)
	}
	wantJars := []File{{Name: "extra.jar", From: "libs/extra.jar", Path: filepath.Join(dir, "libs", "extra.jar"), Pos: Pos{19, 8}}}
	if !reflect.DeepEqual(p.Jars, wantJars) {
		t.Errorf("jars = %+v\nwant %+v", p.Jars, wantJars)
	}
	if !reflect.DeepEqual(p.Permissions, []string{"android.permission.RECORD_AUDIO"}) || !reflect.DeepEqual(p.Adapters, []string{"org.example.Adapter"}) {
		t.Errorf("permissions = %v, adapters = %v", p.Permissions, p.Adapters)
	}
	b := p.Backend
	if b.Kind != BackendJVM || !reflect.DeepEqual(b.Kinds, []string{BackendJVM, BackendSim}) || b.JVM == nil || !reflect.DeepEqual(b.JVM.Options, []string{"-Xmx64m"}) || b.Sim == nil {
		t.Errorf("backend = %+v", b)
	}
	if err := b.Use(BackendSim); err != nil || b.Kind != BackendSim {
		t.Errorf("Use(sim) = %v, kind %s", err, b.Kind)
	}
	if err := b.Use("adb"); err == nil || err.Error() != `backend "adb" is not configured by the purpose (it configures: jvm, sim)` {
		t.Errorf("Use(adb) = %v", err)
	}
	if m := p.Callins[1].Method(); m != "cancel" {
		t.Errorf("a bare callin calls the method of its name, got %q", m)
	}
	if m := p.Callins[3].Method(); m != "" {
		t.Errorf("a callin with only actions calls no method, got %q", m)
	}
}

// The schema features DroidStar's purposes needed (issue 11): a callin
// whose result becomes the instance under test, a result that counts as
// err, where a callback's detail comes from, and environment callbacks.
func TestSchemaFeatures(t *testing.T) {
	src := `name: OkHttpCall
class: okhttp3.Call
target:
  listeners: [{type: okhttp3.Callback}]
callins:
  - symbol: build
    on: {constant: a.Calls.CLIENT}
    call: newCall
    args: [{constant: a.Calls.VALID}]
    result: target
    error_if: null
  - symbol: enqueue
    args: [{listener: okhttp3.Callback}]
  - {symbol: tryCancel, call: cancel, error_if: false}
  - {symbol: code, call: code, error_if: -1}
  - {symbol: ratio, call: ratio, error_if: 0.5}
  - {symbol: name, call: name, error_if: "none"}
callbacks:
  - {symbol: completed, from: [onResponse/200]}
  - {symbol: on404, from: [onResponse/404]}
  - {symbol: failed, from: [onFailure], error: true}
  - {symbol: offline, from: [onFailure/offline/x], error: environment}
  - {symbol: quiet2, from: [onQuiet], error: false}
details:
  onResponse: {arg: 1, call: code}
  onFailure: [{arg: 1, call: getMessage}, {extra: why}]
backend:
  adb: {}
`
	p, err := Parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	c := p.Callins
	if c[0].Result != ResultTarget || !c[0].MakesTarget() || c[0].ErrorIf == nil || c[0].ErrorIf.Value != nil {
		t.Errorf("build = %+v", c[0])
	}
	if c[1].MakesTarget() || c[1].ErrorIf != nil {
		t.Errorf("enqueue = %+v", c[1])
	}
	for i, want := range []any{false, int64(-1), 0.5, "none"} {
		if e := c[2+i].ErrorIf; e == nil || e.Value != want {
			t.Errorf("%s error_if = %+v, want %#v", c[2+i].Symbol, e, want)
		}
	}
	roles := []Role{RoleOutput, RoleOutput, RoleError, RoleEnvironment, RoleOutput}
	for i, cb := range p.Callbacks {
		if cb.Role() != roles[i] {
			t.Errorf("%s: role %d, want %d", cb.Symbol, cb.Role(), roles[i])
		}
	}
	if got := strings.Join(p.OutputCallbacks(), " "); got != "completed on404 quiet2" {
		t.Errorf("outputs %s", got)
	}
	if sym, role, ok := p.MapCallback("onFailure/offline/x"); sym != "offline" || role != RoleEnvironment || !ok {
		t.Errorf("MapCallback = %s %d %v", sym, role, ok)
	}
	wantDetails := Details{
		{Method: "onResponse", Parts: []DetailPart{{Arg: 1, Call: "code"}}, Pos: Pos{25, 3}},
		{Method: "onFailure", Parts: []DetailPart{{Arg: 1, Call: "getMessage"}, {Extra: "why"}}, Pos: Pos{26, 3}},
	}
	if !reflect.DeepEqual(p.Details, wantDetails) {
		t.Errorf("details = %+v\nwant %+v", p.Details, wantDetails)
	}
	data, err := json.Marshal(p.Callbacks[3])
	if err != nil || string(data) != `{"symbol":"offline","from":["onFailure/offline/x"],"error":"environment"}` {
		t.Errorf("environment callback marshals to %s (%v)", data, err)
	}
	data, err = json.Marshal(p.Details)
	if err != nil || string(data) != `{"onResponse":[{"arg":1,"call":"code"}],"onFailure":[{"arg":1,"call":"getMessage"},{"arg":0,"extra":"why"}]}` {
		t.Errorf("details marshal to %s (%v)", data, err)
	}
}

// Mistakes in the new fields that need no file of their own (the bad/
// folder has one file per kind of mistake, with the message).
func TestSchemaFeatureErrors(t *testing.T) {
	const head = "name: T\nclass: a.B\ncallins: [a]\ncallbacks: [{symbol: c, from: [onC/1]}]\nbackend: {adb: {}}\n"
	cases := []parseErrorCase{
		{"details not a map", head + "details: [onC]\n",
			"t.yaml:6:10: details: want a map, got a list"},
		{"detail null", head + "details: {onC: }\n",
			"t.yaml:6:11: details.onC: want a part such as {arg: 1, extra: KEY}, or a list of parts, got null"},
		{"detail empty list", head + "details: {onC: []}\n",
			"t.yaml:6:16: details.onC: empty list: give at least one part, such as {arg: 0}"},
		{"detail part a string", head + "details: {onC: [arg]}\n",
			`t.yaml:6:17: details.onC[0]: want a part such as {arg: 1, extra: KEY}, got string "arg"`},
		{"detail method not an identifier", head + "details: {on-C: {arg: 0}}\n",
			`t.yaml:6:11: details.on-C: invalid method name "on-C": want the name of a callback method such as onReceive`},
		{"detail unknown field", head + "details: {onC: {argument: 0}}\n",
			`t.yaml:6:17: details.onC[0]: unknown field "argument" (allowed: arg, call, extra)`},
		{"detail empty extra", head + "details: {onC: {extra: ''}}\n",
			"t.yaml:6:24: details.onC[0].extra: must not be empty"},
		{"detail call not a method name", head + "details: {onC: {call: code()}}\n",
			`t.yaml:6:23: details.onC[0].call: invalid method name "code()": want a Java identifier such as setDataSource`},
		{"result not a string", "name: T\nclass: a.B\ncallins: [{symbol: a, result: true}]\nbackend: {adb: {}}\n",
			"t.yaml:3:31: callins[0].result: want a string, got bool true"},
		{"error_if a list", "name: T\nclass: a.B\ncallins: [{symbol: a, error_if: [false]}]\nbackend: {adb: {}}\n",
			"t.yaml:3:33: callins[0].error_if: want the result that counts as err: null, true, false, a number or a string, got a list"},
		{"result on a do-only callin", "name: T\nclass: a.B\ncallins: [{symbol: a, do: [{touch: x}], result: target}]\nbackend: {adb: {}}\n",
			"t.yaml:3:41: callins[0].result: a callin with do calls no method unless it says which: add call: METHOD"},
		{"init with a callin making the instance", "name: T\nclass: a.B\ntarget: {init: [go]}\ncallins: [{symbol: a, on: {constant: a.B.C}, call: make, result: target}]\nbackend: {adb: {}}\n",
			"t.yaml:3:17: target.init[0]: no instance exists at the reset to call init on: callins[0] (a) makes it (result: target)"},
	}
	wantParseErrors(t, cases)
	// With new or a factory the reset makes an instance, which a callin
	// may then replace.
	ok := "name: T\nclass: a.B\ntarget: {new: [], init: [go], listeners: [{type: a.L, register: set}]}\ncallins: [{symbol: a, call: copy, result: target}]\nbackend: {adb: {}}\n"
	if _, err := Parse("t.yaml", []byte(ok)); err != nil {
		t.Errorf("a callin replacing an instance made at the reset: %v", err)
	}
}
