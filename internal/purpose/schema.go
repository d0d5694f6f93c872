package purpose

import (
	"fmt"
	"slices"
	"strings"
)

// Key is one key of the purpose schema: where it may be written, what it
// holds, what it is for, and whether the harness is sent it. The table of
// keys below is the one place the schema is declared: the parser's lists
// of allowed keys are read from it, the keys the harness is sent are
// generated from it into the protocol corpus
// (harness-apk/testdata/protocol/schema-keys.json), and both harness
// implementations are checked against that file.
type Key struct {
	// In is the map the key belongs to, as a path of the purpose file: ""
	// is the top level, "target.factory" a map under target, "callins[]"
	// every item of callins, "details.*[]" every part of every method's
	// detail. Argument literals and environment actions are written in
	// many places, so their keys are In "<literal>" and "<action>" (and
	// "<action>.write" for the map under write).
	In   string
	Name string
	Kind Kind
	// Doc is one line for people: what the key is for, its default.
	Doc  string
	Wire Wire
}

// Kind is what a key's value is in a purpose file.
type Kind string

// The kinds of values. Short forms (a bare symbol for a callin, a bare
// method name for init and dispose, a path for a file) are the Doc's to
// tell.
const (
	KindString   Kind = "string"
	KindInteger  Kind = "integer"
	KindNumber   Kind = "number"
	KindBoolean  Kind = "boolean"
	KindDuration Kind = "duration" // a number with a unit: 500ms
	KindWord     Kind = "word"     // one of the words the Doc names
	KindList     Kind = "list"
	KindMap      Kind = "map"
	KindLiteral  Kind = "literal" // an argument literal: a scalar or a one-key map of <literal>
	KindValue    Kind = "value"   // null, a boolean, a number or a string
)

// Wire says what becomes of a key in the harness's configure request.
type Wire int

const (
	// Kept keys stay with the host: learning settings, backends, and
	// what the host does itself (staging files, granting permissions).
	Kept Wire = iota
	// Sent keys go to the harness under their own name at their own path
	// (WirePath): the request keeps the file's names and nesting so that
	// the path the harness names in an error is the purpose field's
	// (harness-apk/PROTOCOL.md). The value is sent in its long form, and
	// durations in whole milliseconds.
	Sent
	// Added keys are put in the request by the host; no purpose file
	// writes them.
	Added
)

// WirePath is the key's path in the purpose object of the configure
// request, or "" when the harness is not sent it.
func (k Key) WirePath() string {
	if k.Wire == Kept {
		return ""
	}
	return join(k.In, k.Name)
}

// Schema returns the purpose schema, one row per key, in the table's
// order: within a map, the order messages list its keys in.
func Schema() []Key { return slices.Clone(schema) }

// The roots of In paths that no key of the table holds.
const (
	inTop     = ""
	inLiteral = "<literal>"
	inAction  = "<action>"
)

var schema = []Key{
	{inTop, "name", KindString, "the purpose's name, of letters, digits, '_', '-' and '.', for file names and messages", Sent},
	{inTop, "class", KindString, "the class under test, such as android.os.CountDownTimer (the jvm and adb backends need it)", Sent},
	{inTop, "description", KindString, "what the purpose is for, in a sentence", Kept},
	{inTop, "parameters", KindMap, "values the user gives (--set NAME=VALUE), by name: a description, or {doc, default}", Kept},
	{inTop, "target", KindMap, "how the harness makes, wires and disposes of a fresh instance for every query", Sent},
	{inTop, "setup", KindList, "environment actions run before each instance is made", Sent},
	{inTop, "files", KindList, "host files the harness's files directory gets: a path, or {from, name}", Kept},
	{inTop, "permissions", KindList, "Android permissions granted to the harness app, such as android.permission.RECORD_AUDIO", Kept},
	{inTop, "jars", KindList, "jars loaded at run time (libraries under test, adapters): a path, or {from, name}; the harness gets their staged paths", Sent},
	{inTop, "jar_sha256", KindList, "the SHA-256 of each jar as the host staged it, which the harness checks before loading it", Added},
	{inTop, "adapters", KindList, "classes in the jars implementing org.droidstar.harness.core.Adapter, which register shims", Sent},
	{inTop, "callins", KindList, "the input symbols: a bare symbol calls the method of its name", Sent},
	{inTop, "callbacks", KindList, "the output symbols: a bare symbol is the listener method of its name", Sent},
	{inTop, "ignore", KindList, "callback names (METHOD or METHOD/DETAIL) the purpose drops on purpose: undeclared ones that arrive are reported, these are not", Kept},
	{inTop, "details", KindMap, "per callback method, the part of its arguments, or the list of parts, its detail (METHOD/DETAIL) is made of", Sent},
	{inTop, "timeouts", KindMap, "how long the query runner waits", Sent},
	{inTop, "bound", KindInteger, "the distinguisher bound in free symbols (default 2), or auto", Kept},
	{inTop, "bound_counts", KindWord, "free (default): the bound counts the symbols left to choose; every: every symbol, as DroidStar did", Kept},
	{inTop, "restrictions", KindList, "queries to exclude, to keep the class regular: one of at_most (with of), first, followed_by_wait per item", Kept},
	{inTop, "backend", KindMap, "what answers the queries; the first backend is the default", Kept},

	{"parameters.*", "doc", KindString, "what the value is, for the message that asks for it", Kept},
	{"parameters.*", "default", KindString, "the value when none is given (default: none, so one must be)", Kept},
	{"parameters.*", "kind", KindWord, "text (default), or bluetooth_address: six hex pairs, which doctor checks the phone is paired with", Kept},

	{"target", "new", KindList, "constructor arguments, argument literals (default: none)", Sent},
	{"target", "factory", KindMap, "a static method that makes the instance, instead of new", Sent},
	{"target", "shim", KindMap, "options for the harness's shims, such as sleep_ms for AsyncTask's doInBackground", Sent},
	{"target", "listeners", KindList, "callback objects made fresh for every query: interfaces get proxies, abstract classes shims", Sent},
	{"target", "init", KindList, "calls on the instance after registration, part of the reset: a method name or {call, args}", Sent},
	{"target", "dispose", KindMap, "a call on the instance after each query: a method name or {call, args}", Sent},

	{"target.factory", "class", KindString, "the class of the static method (default: class)", Sent},
	{"target.factory", "method", KindString, "the static method that returns the instance", Sent},
	{"target.factory", "args", KindList, "its argument literals", Sent},

	{"target.listeners[]", "type", KindString, "an interface, implemented by a proxy, or a class with a shim", Sent},
	{"target.listeners[]", "register", KindString, "the instance's method that takes the listener, called at the reset", Sent},
	{"target.listeners[]", "name", KindString, "a Java identifier that tells listeners of one type apart: {listener: NAME}, calls NAME.METHOD", Sent},

	{"target.init[]", "call", KindString, "the method", Sent},
	{"target.init[]", "args", KindList, "its argument literals", Sent},

	{"target.dispose", "call", KindString, "the method", Sent},
	{"target.dispose", "args", KindList, "its argument literals", Sent},

	{"files[]", "name", KindString, "the file's name in the harness's files directory (default: the name of from)", Kept},
	{"files[]", "from", KindString, "the host file, relative to the purpose", Kept},

	{"jars[]", "name", KindString, "the jar's staged name (default: the name of from)", Kept},
	{"jars[]", "from", KindString, "the host jar, relative to the purpose", Kept},

	{"callins[]", "symbol", KindString, "the input symbol", Sent},
	{"callins[]", "call", KindString, "the method called (default: the symbol's, unless do is given)", Sent},
	{"callins[]", "on", KindLiteral, "what the method is called on instead of the instance, such as {listener: TYPE}", Sent},
	{"callins[]", "args", KindList, "argument literals", Sent},
	{"callins[]", "do", KindList, "environment actions run before the call", Sent},
	{"callins[]", "result", KindWord, "target: the call's result becomes the instance under test", Sent},
	{"callins[]", "error_if", KindValue, "the result that answers err (kind returned) instead of ok", Sent},

	{"callbacks[]", "symbol", KindString, "the output symbol", Sent},
	{"callbacks[]", "from", KindList, "the callback names merged into the symbol, METHOD or METHOD/DETAIL (default: the symbol)", Sent},
	{"callbacks[]", "error", KindWord, "true: an error callback, which answers err; environment: the query fails, the environment broke", Sent},
	{"callbacks[]", "returns", KindLiteral, "what a proxy listener returns on the callback's calls (default false, zero or null)", Sent},
	{"callbacks[]", "throws", KindLiteral, "a Throwable a proxy listener throws on the callback's calls", Sent},
	{"callbacks[]", "sleep_ms", KindInteger, "milliseconds a proxy listener sleeps on the callback's calls", Sent},

	{"details.*[]", "arg", KindInteger, "the argument, from 0", Sent},
	{"details.*[]", "call", KindString, "a public no-argument method of the argument, whose result is the part", Sent},
	{"details.*[]", "extra", KindString, "the key of the argument's extra (an Intent's or a Bundle's)", Sent},

	{"timeouts", "quiescence", KindDuration, "how long a wait waits for a callback (default 500ms)", Sent},
	{"timeouts", "settle", KindDuration, "after a query ending in a quiet answer, for late callbacks (default 100ms)", Sent},
	{"timeouts", "post_reset", KindDuration, "after a fresh instance is made (default 50ms)", Sent},

	{"restrictions[]", "at_most", KindInteger, "at most this many occurrences, in total, of the symbols of of", Kept},
	{"restrictions[]", "of", KindList, "the symbols at_most counts", Kept},
	{"restrictions[]", "first", KindList, "the symbols a query may start with", Kept},
	{"restrictions[]", "followed_by_wait", KindList, "symbols that must be directly followed by a wait", Kept},

	{"backend", BackendSim, KindMap, "a simulated device that answers from a model, on a virtual clock", Kept},
	{"backend", BackendJVM, KindMap, "the harness on this machine's JVM", Kept},
	{"backend", BackendADB, KindMap, "the harness app on Android devices, through adb", Kept},

	{"backend.sim", "model", KindString, "the model file, relative to the purpose", Kept},
	{"backend.sim", "format", KindWord, "the model's format: auto (default), droidstar-dot, mealy-dot or json", Kept},
	{"backend.sim", "latency", KindMap, "virtual time until a callback arrives, per callback name or default (50ms): a duration or MIN..MAX", Kept},
	{"backend.sim", "realtime", KindBoolean, "sleep for real instead of advancing a virtual clock", Kept},

	{"backend.jvm", "java", KindString, "the java command (default: $JAVA_HOME/bin/java, else java)", Kept},
	{"backend.jvm", "options", KindList, "extra JVM flags, such as -Xmx256m", Kept},

	{inLiteral, "file", KindString, "the absolute path of a file of the files directory, as a String (or a File)", Sent},
	{inLiteral, "path", KindString, "a java.nio.file.Path to a file of the files directory", Sent},
	{inLiteral, "listener", KindString, "this query's listener of that type, or of that name", Sent},
	{inLiteral, "target", KindBoolean, "true: the instance under test", Sent},
	{inLiteral, "context", KindBoolean, "true: the instrumentation's Context (Android)", Sent},
	{inLiteral, "constant", KindString, "a static field CLASS.FIELD, or a list of them OR-ed", Sent},
	{inLiteral, "new", KindList, "[CLASS, ARGS...]: a new object, made again for every use", Sent},
	{inLiteral, "call", KindList, "[CLASS, METHOD, ARGS...]: what a static method returns, called again for every use", Sent},
	{inLiteral, "result", KindString, "what an earlier callin's call returned in this query", Sent},
	{inLiteral, "callback", KindList, "[METHOD, N]: argument N (from 0) of the latest call of callback METHOD that a wait of this query delivered; METHOD alone is argument 0", Sent},
	{inLiteral, "param", KindString, "the value of a parameter (parameters), as a String; the host puts it in before sending", Kept},
	{inLiteral, "int", KindInteger, "an int", Sent},
	{inLiteral, "long", KindInteger, "a long", Sent},
	{inLiteral, "float", KindNumber, "a float", Sent},
	{inLiteral, "double", KindNumber, "a double", Sent},
	{inLiteral, "string", KindString, "a String", Sent},

	{inAction, "write", KindMap, "replace a file's content", Sent},
	{inAction, "append", KindMap, "append to a file", Sent},
	{inAction, "delete", KindString, "delete a file (no error when it is missing)", Sent},
	{inAction, "touch", KindString, "create a file when it is missing", Sent},
	{inAction, "sqlite", KindMap, "replace a file with an empty SQLite database", Sent},
	{inAction, "sleep", KindDuration, "sleep, sent in whole milliseconds", Sent},

	{"<action>.write", "file", KindString, "the file, relative to the files directory", Sent},
	{"<action>.write", "content", KindString, "the text (default: none)", Sent},

	{"<action>.append", "file", KindString, "the file, relative to the files directory", Sent},
	{"<action>.append", "content", KindString, "the text (default: none)", Sent},

	{"<action>.sqlite", "file", KindString, "the database file, relative to the files directory", Sent},
	{"<action>.sqlite", "version", KindInteger, "its user_version, at least 1", Sent},
}

// keysIn lists the keys a purpose file may write in the map at in, in
// the table's order. The lists are read once, when the package starts, so
// a path that names no map of the table (a typo here or in the table)
// stops every program and test at once rather than allow or refuse the
// wrong keys. A map with no keys gets an empty list, never nil: the
// decoder reads nil as "any key".
func keysIn(in string) []string {
	if !isMap(in) {
		panic(fmt.Sprintf("purpose schema: %q is no map of the table", in))
	}
	keys := []string{}
	for _, k := range schema {
		if k.In == in && k.Wire != Added {
			keys = append(keys, k.Name)
		}
	}
	return keys
}

// isMap says whether in is a root or the path of a map that a key of the
// table holds: a map key's value, or a list key's items ("[]"), or the
// items of the lists a map holds (".*[]").
func isMap(in string) bool {
	if in == inTop || in == inLiteral || in == inAction {
		return true
	}
	holder := KindMap
	if strings.HasSuffix(in, "[]") && !strings.HasSuffix(in, ".*[]") {
		holder = KindList
	}
	parent, name := parentKey(in)
	return slices.ContainsFunc(schema, func(k Key) bool { return k.In == parent && k.Name == name && k.Kind == holder })
}

// parentKey splits the path of a map into the In and the Name of the key
// that holds it: "callins[]" is held by callins at the top level,
// "details.*[]" by details, "target.factory" by factory in target.
func parentKey(in string) (parent, name string) {
	in = strings.TrimSuffix(in, "[]")
	in = strings.TrimSuffix(in, ".*")
	if i := strings.LastIndexByte(in, '.'); i >= 0 {
		return in[:i], in[i+1:]
	}
	return inTop, in
}
