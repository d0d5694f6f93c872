package purpose

import "testing"

// TestUnknownKeyMessages pins the message for an unknown key in every map
// whose keys the parser checks: each lists the allowed keys in the order
// the schema table gives them, and users (and editors matching on them)
// see that order.
func TestUnknownKeyMessages(t *testing.T) {
	const cls = "name: T\nclass: a.C\n"
	const jvm = "backend: {jvm: {}}\n"
	cases := []struct{ name, src, want string }{
		{"top level", cls + "callins: [a]\n" + jvm + "zz: 1\n",
			`t.yaml:5:1: unknown field "zz" (allowed: name, class, description, parameters, target, setup, files, permissions, jars, adapters, callins, callbacks, ignore, details, timeouts, bound, bound_counts, restrictions, backend)`},
		{"target", cls + "target: {zz: 1}\ncallins: [a]\n" + jvm,
			`t.yaml:3:10: target: unknown field "zz" (allowed: new, factory, shim, listeners, init, dispose)`},
		{"factory", cls + "target: {factory: {method: m, zz: 1}}\ncallins: [a]\n" + jvm,
			`t.yaml:3:31: target.factory: unknown field "zz" (allowed: class, method, args)`},
		{"listener", cls + "target: {listeners: [{type: a.L, zz: 1}]}\ncallins: [a]\n" + jvm,
			`t.yaml:3:34: target.listeners[0]: unknown field "zz" (allowed: type, register, name)`},
		{"init call", cls + "target: {init: [{call: m, zz: 1}]}\ncallins: [a]\n" + jvm,
			`t.yaml:3:27: target.init[0]: unknown field "zz" (allowed: call, args)`},
		{"dispose call", cls + "target: {dispose: {call: m, zz: 1}}\ncallins: [a]\n" + jvm,
			`t.yaml:3:29: target.dispose: unknown field "zz" (allowed: call, args)`},
		{"file", cls + "files: [{from: f, zz: 1}]\ncallins: [a]\n" + jvm,
			`t.yaml:3:19: files[0]: unknown field "zz" (allowed: name, from)`},
		{"jar", cls + "jars: [{from: f.jar, zz: 1}]\ncallins: [a]\n" + jvm,
			`t.yaml:3:22: jars[0]: unknown field "zz" (allowed: name, from)`},
		{"callin", cls + "callins: [{symbol: a, zz: 1}]\n" + jvm,
			`t.yaml:3:23: callins[0]: unknown field "zz" (allowed: symbol, call, on, args, do, result, error_if)`},
		{"callback", cls + "callins: [a]\ncallbacks: [{symbol: c, zz: 1}]\n" + jvm,
			`t.yaml:4:25: callbacks[0]: unknown field "zz" (allowed: symbol, from, error, returns, throws, sleep_ms)`},
		{"detail part", cls + "callins: [a]\ncallbacks: [{symbol: c, from: [m/x]}]\ndetails: {m: {arg: 0, zz: 1}}\n" + jvm,
			`t.yaml:5:23: details.m[0]: unknown field "zz" (allowed: arg, call, extra)`},
		{"timeouts", cls + "callins: [a]\ntimeouts: {zz: 1}\n" + jvm,
			`t.yaml:4:12: timeouts: unknown field "zz" (allowed: quiescence, settle, post_reset)`},
		{"restriction", cls + "callins: [a]\nrestrictions: [{first: [a], zz: 1}]\n" + jvm,
			`t.yaml:4:29: restrictions[0]: unknown field "zz" (allowed: at_most, of, first, followed_by_wait)`},
		{"backend kind", cls + "callins: [a]\nbackend: {zz: {}}\n",
			`t.yaml:4:11: backend: unknown backend "zz" (available: sim, jvm, adb)`},
		{"sim backend", cls + "callins: [a]\nbackend: {sim: {model: m, zz: 1}}\n",
			`t.yaml:4:27: backend.sim: unknown field "zz" (allowed: model, format, latency, realtime)`},
		{"jvm backend", cls + "callins: [a]\nbackend: {jvm: {zz: 1}}\n",
			`t.yaml:4:17: backend.jvm: unknown field "zz" (allowed: java, options)`},
		{"adb backend", cls + "callins: [a]\nbackend: {adb: {zz: 1}}\n",
			`t.yaml:4:17: backend.adb: unknown field "zz" (allowed: )`},
		{"literal", cls + "callins: [{symbol: a, args: [{zz: 1}]}]\n" + jvm,
			`t.yaml:3:31: callins[0].args[0]: unknown field "zz" (allowed: file, path, listener, target, context, constant, new, call, result, callback, param, int, long, float, double, string)`},
		{"literal with two keys", cls + "callins: [{symbol: a, args: [{int: 1, long: 2}]}]\n" + jvm,
			`t.yaml:3:30: callins[0].args[0]: an argument map has exactly one key (file, path, listener, target, context, constant, new, call, result, callback, param, int, long, float, double, string), got 2`},
		{"action", cls + "setup: [{zz: 1}]\ncallins: [a]\n" + jvm,
			`t.yaml:3:10: setup[0]: unknown field "zz" (allowed: write, append, delete, touch, sqlite, sleep)`},
		{"action with two keys", cls + "setup: [{touch: f, delete: f}]\ncallins: [a]\n" + jvm,
			`t.yaml:3:9: setup[0]: one action per item (write, append, delete, touch, sqlite, sleep), got 2`},
		{"write", cls + "setup: [{write: {file: f, zz: 1}}]\ncallins: [a]\n" + jvm,
			`t.yaml:3:27: setup[0].write: unknown field "zz" (allowed: file, content)`},
		{"append", cls + "setup: [{append: {file: f, zz: 1}}]\ncallins: [a]\n" + jvm,
			`t.yaml:3:28: setup[0].append: unknown field "zz" (allowed: file, content)`},
		{"sqlite", cls + "setup: [{sqlite: {file: f, version: 1, zz: 1}}]\ncallins: [a]\n" + jvm,
			`t.yaml:3:40: setup[0].sqlite: unknown field "zz" (allowed: file, version)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("t.yaml", []byte(c.src))
			if err == nil {
				t.Fatalf("no error for\n%s", c.src)
			}
			if got := err.Error(); got != c.want {
				t.Errorf("source:\n%s\n got: %s\nwant: %s", c.src, got, c.want)
			}
		})
	}
}
