package simharness

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/droidstar/droidstar/internal/mealy"
)

// config is what run needs of a successful configure.
type config struct {
	name    string
	callins map[string]bool
	// errorCallbacks holds the declared callback names marked error:true,
	// environmentCallbacks those marked error:"environment".
	errorCallbacks       map[string]bool
	environmentCallbacks map[string]bool
	// needs holds, per callin, the callback arguments its receiver and
	// arguments take ({"callback": [METHOD, N]}), in the order the Java
	// harness evaluates them: the receiver's, then the arguments' in turn.
	// A model delivers callbacks by name, so run answers err of kind
	// no-callback at the callin when no wait of the query delivered one.
	needs map[string][]callbackNeed
	// errorIf holds the error_if values of the callins that have one, as
	// the request wrote them: a model's err at such a callin is reported
	// as that value returned (run.go).
	errorIf map[string]any
	// quiescence is the configured one, from which the main-thread
	// timeout follows.
	quiescence time.Duration
}

type configureReply struct {
	Callins   []string `json:"callins"`
	Callbacks []string `json:"callbacks"`
	Shims     []string `json:"shims"`
}

// shimClasses are the framework classes the Java harness has built-in
// shims for, per platform, copied from AndroidPlatform.registerShims and
// JvmPlatform.registerShims, so that configure lists the shims the real
// harness would. The corpus runs on the test platform, which has none, so
// it does not check this list. Shims that adapters register cannot be
// known here.
var shimClasses = map[string][]string{
	"android": {
		"android.os.AsyncTask", "android.os.CountDownTimer", "android.os.FileObserver",
		"android.database.sqlite.SQLiteOpenHelper", "android.media.MediaCodec$Callback",
		"android.content.BroadcastReceiver",
	},
	"jvm": {"java.util.TimerTask", "java.util.concurrent.FutureTask"},
}

// The error codes of PROTOCOL.md that configure answers with.
const (
	codeUnknownClass    = "unknown-class"
	codeUnknownListener = "unknown-listener"
	codeUnknownCallback = "unknown-callback"
	codeBadArgument     = "bad-argument"
	codeBadAction       = "bad-action"
)

// resolver is one configure request on its way: Configuration.read of the
// Java harness, minus what only reflection can tell (which methods and
// constructors exist and take the arguments, which constants exist, what
// adapters do). The steps, their order and their messages are the Java
// harness's, so that a purpose with several faults gets the same first
// complaint; the protocol corpus checks that.
type resolver struct {
	s *server
	// listenerTypes are what {"listener": KEY} literals name: each
	// declared listener's name, else its type as written.
	listenerTypes []string
	// listenerPrefixes are, index for index with listenerTypes, the types
	// as written and the prefixes of their calls ("NAME." of a named one).
	listenerTypesWritten, listenerPrefixes []string
	// shimmed says that the class or a listener has a platform shim,
	// whose callback methods only the platform knows.
	shimmed bool
	// targetAllowed turns on once the instance exists: {"target": true}
	// cannot be an argument of its own constructor or factory.
	targetAllowed bool
	// madeBy is "callins[K] (SYMBOL)" when a callin makes the instance
	// (result: target) and neither new nor factory makes one at the reset.
	madeBy string
	// targetShim says that the class under test has a platform shim.
	targetShim bool
	// className is the class under test as the request names it.
	className string
	// returning holds, for each callin resolved so far, whether it calls
	// a method: {"result": SYMBOL} may name only such an earlier one.
	returning map[string]bool
	// callbacksAllowed turns on for dispose and the callins, which run
	// after waits: {"callback": ...} has no value at the reset.
	callbacksAllowed bool
	// needs collects the {"callback": ...} literals of the literals being
	// read, for config.needs; uses all of them with where they are, to be
	// checked against the declared callbacks.
	needs []callbackNeed
	uses  []callbackNeed
}

// callbackNeed is a {"callback": [METHOD, N]} literal: the method as
// reported, the argument, and where the method is written.
type callbackNeed struct {
	method string
	arg    int64
	where  string
}

// configure resolves the purpose object of a configure request in the
// order PROTOCOL.md gives. A failed configure leaves the harness
// unconfigured (PROTOCOL.md; the corpus case configure-failure-unconfigures).
func (s *server) configure(req *object) (any, *protoError) {
	s.config = nil
	raw, ok := req.get("purpose").(*object)
	if !ok {
		return nil, badRequest("", `configure needs "purpose": an object, not %s`, typeName(req.get("purpose")))
	}
	p := at(raw, "")
	r := &resolver{s: s}
	name, perr := stringField(p, "name", "name", true)
	if perr != nil {
		return nil, perr
	}
	class, perr := stringField(p, "class", "class", true)
	if perr != nil {
		return nil, perr
	}
	target, perr := objectField(p, "target", "target", false)
	if perr != nil {
		return nil, perr
	}
	setup, perr := listField(p, "setup", "setup", false)
	if perr != nil {
		return nil, perr
	}
	callins, perr := listField(p, "callins", "callins", true)
	if perr != nil {
		return nil, perr
	}
	callbacks, perr := listField(p, "callbacks", "callbacks", false)
	if perr != nil {
		return nil, perr
	}
	details, perr := objectField(p, "details", "details", false)
	if perr != nil {
		return nil, perr
	}
	timeouts, perr := objectField(p, "timeouts", "timeouts", true)
	if perr != nil {
		return nil, perr
	}
	jars, perr := listField(p, "jars", "jars", false)
	if perr != nil {
		return nil, perr
	}
	// The host's digests of the jars it staged: not a purpose field, so
	// complaints about them point at the jars.
	jarSums, perr := listField(p, "jar_sha256", "jars", false)
	if perr != nil {
		return nil, perr
	}
	adapters, perr := listField(p, "adapters", "adapters", false)
	if perr != nil {
		return nil, perr
	}
	if target == nil {
		target = &object{vals: map[string]any{}}
	}
	tf := at(target, "target")
	newArgs := tf.get("new")
	if _, isList := newArgs.([]any); newArgs != nil && !isList {
		return nil, badRequest("target.new", `"new" must be an array, not %s`, typeName(newArgs))
	}
	factory, perr := objectField(tf, "factory", "target.factory", false)
	if perr != nil {
		return nil, perr
	}
	shim, perr := objectField(tf, "shim", "target.shim", false)
	if perr != nil {
		return nil, perr
	}
	listeners, perr := listField(tf, "listeners", "target.listeners", false)
	if perr != nil {
		return nil, perr
	}
	init, perr := listField(tf, "init", "target.init", false)
	if perr != nil {
		return nil, perr
	}
	dispose, perr := objectField(tf, "dispose", "target.dispose", false)
	if perr != nil {
		return nil, perr
	}

	// The jars, their digests and the adapters are checked for their shape
	// only: a model runs no adapter code, and there are no jar files to
	// compare the digests with.
	if jarSums != nil && len(jarSums) != len(jars) {
		return nil, badRequest("jars", `"jar_sha256" has %d digests for %d jars`, len(jarSums), len(jars))
	}
	for i, j := range jars {
		if js, ok := j.(string); !ok || js == "" {
			what := typeName(j)
			if ok {
				what = "an empty string"
			}
			return nil, badRequest(fmt.Sprintf("jars[%d]", i), "a jar is a path, not %s", what)
		}
		if jarSums != nil {
			if sum, ok := jarSums[i].(string); !ok || !isSHA256(sum) {
				what := typeName(jarSums[i])
				if ok {
					q, _ := json.Marshal(sum)
					what = string(q)
				}
				return nil, badRequest(fmt.Sprintf("jars[%d]", i), "jar_sha256[%d] must be a SHA-256 in 64 lowercase hex digits, not %s", i, what)
			}
		}
	}
	for i, a := range adapters {
		if _, ok := a.(string); !ok {
			return nil, badRequest(fmt.Sprintf("adapters[%d]", i), "an adapter is a class name, not %s", typeName(a))
		}
	}

	if perr := r.loadClass(class, "class"); perr != nil {
		return nil, perr
	}
	r.className = class
	if shim != nil {
		for _, k := range shim.keys {
			switch shim.get(k).(type) {
			case string, int64, float64, bool:
			default:
				return nil, badRequest("target.shim."+k, "a shim option is a string, a number or a boolean, not %s", typeName(shim.get(k)))
			}
		}
	}
	shims, perr := r.listeners(listeners, class)
	if perr != nil {
		return nil, perr
	}
	if newArgs != nil && factory != nil {
		return nil, badRequest("target.factory", "give new or factory, not both")
	}
	if newArgs == nil && factory == nil {
		r.madeBy = instanceMaker(callins)
	}
	switch {
	case r.madeBy != "":
		// no instance at the reset: a callin makes it
	case factory != nil:
		if perr := r.factory(at(factory, "target.factory")); perr != nil {
			return nil, perr
		}
	default:
		if perr := r.args(newArgs, "target.new"); perr != nil {
			return nil, perr
		}
	}
	r.targetAllowed = true
	if r.madeBy != "" {
		// Configuration.readRegistrations, which a model has no methods for
		// but this: nothing registers on an instance that does not exist.
		for i, raw := range listeners {
			if l, ok := raw.(*object); ok && at(l, "target.listeners[]").get("register") != nil {
				return nil, badRequest(fmt.Sprintf("target.listeners[%d].register", i),
					"no instance exists at the reset to register the listener on: %s makes it (result: target); pass the listener to a callin as an argument instead", r.madeBy)
			}
		}
		if len(init) > 0 {
			return nil, badRequest("target.init[0]", "no instance exists at the reset to call init on: %s makes it (result: target)", r.madeBy)
		}
	}
	for i, c := range init {
		if perr := r.call(c, fmt.Sprintf("target.init[%d]", i), "target.init[]"); perr != nil {
			return nil, perr
		}
	}
	// dispose and the callins run after the query's waits
	r.callbacksAllowed = true
	if dispose != nil {
		if perr := r.call(dispose, "target.dispose", "target.dispose"); perr != nil {
			return nil, perr
		}
	}
	for i, a := range setup {
		if perr := action(a, fmt.Sprintf("setup[%d]", i)); perr != nil {
			return nil, perr
		}
	}

	c := &config{name: name, callins: map[string]bool{}, errorCallbacks: map[string]bool{},
		environmentCallbacks: map[string]bool{}, errorIf: map[string]any{}, needs: map[string][]callbackNeed{}}
	reply := configureReply{Callins: []string{}, Callbacks: []string{}, Shims: shims}
	for i, raw := range callins {
		sym, perr := r.callin(raw, fmt.Sprintf("callins[%d]", i), c)
		if perr != nil {
			return nil, perr
		}
		c.callins[sym] = true
		reply.Callins = append(reply.Callins, sym)
	}
	r.callbacksAllowed = false
	if reply.Callbacks, perr = r.callbacks(callbacks, c); perr != nil {
		return nil, perr
	}
	if perr := r.checkCallbackUses(reply.Callbacks); perr != nil {
		return nil, perr
	}
	if perr := r.details(details); perr != nil {
		return nil, perr
	}
	tof := at(timeouts, "timeouts")
	for _, key := range []string{"quiescence", "settle", "post_reset"} {
		if perr := millisField(tof, key, key == "quiescence"); perr != nil {
			return nil, perr
		}
	}
	q, _ := tof.get("quiescence").(int64)
	c.quiescence = time.Duration(q) * time.Millisecond
	s.config = c
	return reply, nil
}

// loadClass is Configuration.loadClass: a simulated device that knows its
// class (Options.Class) loads that class and its listener types, and no
// other, since it has nothing else to load.
func (r *resolver) loadClass(name, where string) *protoError {
	if name == "" {
		return badRequest(where, "a class name cannot be empty")
	}
	o := r.s.opts
	if o.Class == "" || sameClass(name, o.Class) {
		return nil
	}
	for l := range o.Listeners {
		if sameClass(name, l) {
			return nil
		}
	}
	return &protoError{code: codeUnknownClass, where: where, message: "cannot load class " + name}
}

// sameClass says whether a class name as written loads the class of
// binary name binary: Class.forName, then with the last dots turned into
// '$' one by one (a nested class written with dots), as loadClass tries.
func sameClass(written, binary string) bool {
	for n := written; ; {
		if n == binary {
			return true
		}
		dot := strings.LastIndex(n, ".")
		if dot <= 0 {
			return false
		}
		n = n[:dot] + "$" + n[dot+1:]
	}
}

// binaryNameOr is binaryName, or the name as written when the device
// does not know the class (the Java harness names the class it loaded).
func (r *resolver) binaryNameOr(written string) string {
	if b := r.binaryName(written); b != "" {
		return b
	}
	return written
}

// javaIdentifier is Configuration.isIdentifier.
func javaIdentifier(s string) bool {
	for i, c := range s {
		if !(c == '_' || c == '$' || unicode.IsLetter(c) || i > 0 && unicode.IsDigit(c)) {
			return false
		}
	}
	return s != ""
}

// binaryName is the binary name of a class the simulated device knows.
func (r *resolver) binaryName(written string) string {
	o := r.s.opts
	if sameClass(written, o.Class) {
		return o.Class
	}
	for l := range o.Listeners {
		if sameClass(written, l) {
			return l
		}
	}
	return written
}

// listeners is Configuration.readListeners; it returns the shims of the
// purpose's classes, listeners first and then the class under test, the
// order in which Configuration adds them.
func (r *resolver) listeners(listeners []any, class string) ([]string, *protoError) {
	platform := r.s.platform()
	shims := []string{}
	add := func(name string) {
		if shim := shimFor(platform, name); shim != "" {
			r.shimmed = true
			if !slices.Contains(shims, shim) {
				shims = append(shims, shim)
			}
		}
	}
	for i, raw := range listeners {
		w := fmt.Sprintf("target.listeners[%d]", i)
		lo, ok := raw.(*object)
		if !ok {
			return nil, badRequest(w, "a listener is an object with type and register, not %s", typeName(raw))
		}
		l := at(lo, "target.listeners[]")
		typ, perr := stringField(l, "type", w+".type", true)
		if perr != nil {
			return nil, perr
		}
		if _, perr := stringField(l, "register", w+".register", false); perr != nil {
			return nil, perr
		}
		name, perr := stringField(l, "name", w+".name", false)
		if perr != nil {
			return nil, perr
		}
		named := l.get("name") != nil
		switch {
		case named && !javaIdentifier(name):
			return nil, badRequest(w+".name", "a listener name is a Java identifier such as second, not %s", mustJSON(name))
		case named && slices.Contains(r.listenerTypes, name):
			return nil, badRequest(w+".name", "listener %s is declared twice", name)
		case !named && slices.Contains(r.listenerTypes, typ):
			return nil, badRequest(w+".type", "listener type %s is declared twice: give each listener of a type a name (name: NAME) to tell them apart", typ)
		}
		if perr := r.loadClass(typ, w+".type"); perr != nil {
			return nil, perr
		}
		o := r.s.opts
		if shimFor(platform, typ) == "" && o.Class != "" && sameClass(typ, o.Class) {
			// The class under test is a class, and not one with a shim.
			return nil, &protoError{code: codeUnknownListener, where: w + ".type",
				message: o.Class + " is neither an interface nor a class with a shim"}
		}
		if named && shimFor(platform, typ) != "" {
			return nil, badRequest(w+".name", "only proxied interfaces have names: the shim of %s reports its calls under their own names", r.binaryNameOr(typ))
		}
		key, prefix := typ, ""
		if named {
			key, prefix = name, name+"."
		}
		r.listenerTypes = append(r.listenerTypes, key)
		r.listenerTypesWritten = append(r.listenerTypesWritten, typ)
		r.listenerPrefixes = append(r.listenerPrefixes, prefix)
		add(typ)
	}
	add(class)
	r.targetShim = shimFor(platform, class) != ""
	return shims, nil
}

// instanceMaker is Configuration.instanceMaker: a first look at the
// callins for the first one whose result becomes the instance.
func instanceMaker(callins []any) string {
	for i, raw := range callins {
		o, ok := raw.(*object)
		if !ok {
			continue
		}
		if c := at(o, "callins[]"); c.get("result") == "target" {
			sym, ok := c.get("symbol").(string)
			if !ok {
				sym = "?"
			}
			return fmt.Sprintf("callins[%d] (%s)", i, sym)
		}
	}
	return ""
}

func (s *server) platform() string {
	if s.opts.Hello.Platform == "" {
		return "android"
	}
	return s.opts.Hello.Platform
}

// shimFor returns the shim class a name stands for, trying the spellings
// with '$' for nested classes that Class.forName would try.
func shimFor(platform, name string) string {
	for _, c := range shimClasses[platform] {
		if sameClass(name, c) {
			return c
		}
	}
	return ""
}

// factory is Configuration.readFactory without the method lookup.
func (r *resolver) factory(f fields) *protoError {
	cls, perr := stringField(f, "class", "target.factory.class", false)
	if perr != nil {
		return perr
	}
	if _, perr := stringField(f, "method", "target.factory.method", true); perr != nil {
		return perr
	}
	if cls != "" || f.get("class") != nil {
		if perr := r.loadClass(cls, "target.factory.class"); perr != nil {
			return perr
		}
	}
	return r.args(f.get("args"), "target.factory.args")
}

// call is Configuration.call (init and dispose) without the method lookup;
// in is its map's path in the schema.
func (r *resolver) call(raw any, where, in string) *protoError {
	o, ok := raw.(*object)
	if !ok {
		return badRequest(where, "a call is an object with call and args, not %s", typeName(raw))
	}
	m := at(o, in)
	if _, perr := stringField(m, "call", where+".call", true); perr != nil {
		return perr
	}
	return r.args(m.get("args"), where+".args")
}

// callin checks one callin and that the model has its symbol as an input:
// the simulation's counterpart of the Java harness finding the method.
func (r *resolver) callin(raw any, w string, c *config) (string, *protoError) {
	o, ok := raw.(*object)
	if !ok {
		return "", badRequest(w, "a callin is an object with symbol, call, on, args and do, not %s", typeName(raw))
	}
	m := at(o, "callins[]")
	sym, perr := stringField(m, "symbol", w+".symbol", true)
	if perr != nil {
		return "", perr
	}
	switch {
	case sym == "":
		return "", badRequest(w+".symbol", "a callin symbol cannot be empty")
	case sym == mealy.Wait:
		return "", badRequest(w+".symbol", "wait is not a callin: it is the waiting input")
	case c.callins[sym]:
		return "", badRequest(w+".symbol", "callin %s is declared twice", sym)
	}
	do, perr := listField(m, "do", w+".do", false)
	if perr != nil {
		return "", perr
	}
	for i, a := range do {
		if perr := action(a, fmt.Sprintf("%s.do[%d]", w, i)); perr != nil {
			return "", perr
		}
	}
	method, perr := stringField(m, "call", w+".call", false)
	if perr != nil {
		return "", perr
	}
	r.needs = nil
	if perr := r.args(m.get("args"), w+".args"); perr != nil {
		return "", perr
	}
	argNeeds := r.needs
	r.needs = nil
	args, _ := m.get("args").([]any)
	on := m.get("on")
	if m.get("call") == nil {
		if len(args) > 0 || on != nil {
			return "", badRequest(w+".call", "callin %s has arguments or a receiver but no call", sym)
		}
	} else if on != nil {
		if perr := r.literal(on, w+".on"); perr != nil {
			return "", perr
		}
	}
	if needs := append(r.needs, argNeeds...); len(needs) > 0 {
		c.needs[sym] = needs
	}
	mach := r.s.opts.Model.Machine
	if _, ok := mach.Inputs.Index(sym); !ok && !r.s.opts.hangs(sym) {
		where := w + ".call"
		if m.get("call") == nil {
			// A callin with only actions has no method to blame.
			where = w + ".symbol"
		}
		what := "callin " + sym
		if method != "" && method != sym {
			what += " (" + method + ")"
		}
		return "", &protoError{code: codeUnknownMethod, where: where, message: fmt.Sprintf("the simulated model %s has no input %q for %s (model inputs: %s)",
			r.s.opts.Model.Path, sym, what, strings.Join(mach.Inputs.Names(), ", "))}
	}
	if perr := r.result(m, w); perr != nil {
		return "", perr
	}
	if m.has("error_if") {
		v := m.get("error_if")
		if perr := errorIf(m, v, w); perr != nil {
			return "", perr
		}
		c.errorIf[sym] = v
	}
	if r.returning == nil {
		r.returning = map[string]bool{}
	}
	r.returning[sym] = m.get("call") != nil
	return sym, nil
}

// noMethod is the complaint about result and error_if on a callin that
// calls no method.
const noMethod = "a callin with do calls no method unless it says which: add call: METHOD"

// result is Configuration.readResult without the return type, which only
// reflection knows.
func (r *resolver) result(m fields, w string) *protoError {
	v := m.get("result")
	if v == nil {
		return nil
	}
	wr := w + ".result"
	s, ok := v.(string)
	if !ok {
		return badRequest(wr, `"result" must be a string, not %s`, typeName(v))
	}
	if s != "target" {
		return badRequest(wr, "unknown result %s: the one place a result can go is target (the call's result becomes the instance under test)", mustJSON(s))
	}
	if m.get("call") == nil {
		return badRequest(wr, noMethod)
	}
	if r.targetShim {
		return badRequest(wr, "the instance of %s is its shim, made at the reset: result: target cannot replace it", r.binaryName(r.className))
	}
	return nil
}

// errorIf is Configuration.readErrorIf for what the value's shape tells;
// whether it can be what the method returns only reflection knows.
func errorIf(m fields, v any, w string) *protoError {
	we := w + ".error_if"
	if m.get("call") == nil {
		return badRequest(we, noMethod)
	}
	switch v.(type) {
	case *object, []any:
		return badArgument(we, "error_if is the result that counts as err: null, a boolean, a number or a string, not %s", typeName(v))
	}
	return nil
}

// callbacks is Configuration.readCallbacks: each callback's from names,
// or its symbol when it has none, are the declared names that runs report.
func (r *resolver) callbacks(cbs []any, c *config) ([]string, *protoError) {
	declared := []string{}
	known, checkKnown := r.knownCallbackMethods()
	for i, raw := range cbs {
		w := fmt.Sprintf("callbacks[%d]", i)
		o, ok := raw.(*object)
		if !ok {
			return nil, badRequest(w, "a callback is an object with symbol, from and error, not %s", typeName(raw))
		}
		m := at(o, "callbacks[]")
		sym, perr := stringField(m, "symbol", w+".symbol", true)
		if perr != nil {
			return nil, perr
		}
		if sym == "" {
			return nil, badRequest(w+".symbol", "a callback symbol cannot be empty")
		}
		isError, isEnvironment := false, false
		if e := m.get("error"); e != nil {
			switch v := e.(type) {
			case bool:
				isError = v
			case string:
				if v != "environment" {
					return nil, badRequest(w+".error", `"error" must be a boolean or "environment", not %s`, mustJSON(v))
				}
				isEnvironment = true
			default:
				return nil, badRequest(w+".error", `"error" must be a boolean or "environment", not %s`, describe(e))
			}
		}
		from, perr := listField(m, "from", w+".from", false)
		if perr != nil {
			return nil, perr
		}
		var names, wheres []string
		switch {
		case from == nil:
			names, wheres = []string{sym}, []string{w + ".symbol"}
		case len(from) == 0:
			return nil, badRequest(w+".from", "from lists at least one callback name; leave it out to use the symbol")
		default:
			for k, n := range from {
				wk := fmt.Sprintf("%s.from[%d]", w, k)
				s, ok := n.(string)
				if !ok {
					return nil, badRequest(wk, "a callback name is a string, not %s", typeName(n))
				}
				names, wheres = append(names, s), append(wheres, wk)
			}
		}
		for k, name := range names {
			method, detail, slash := strings.Cut(name, "/")
			if method == "" || slash && detail == "" {
				return nil, badRequest(wheres[k], "a callback name is METHOD or METHOD/DETAIL, not \"%s\"", name)
			}
			if checkKnown && !slices.Contains(known, method) {
				return nil, &protoError{code: codeUnknownCallback, where: wheres[k],
					message: method + " is no method of any listener or shim of the purpose" + describeKnown(known)}
			}
			if slices.Contains(declared, name) {
				return nil, badRequest(wheres[k], "callback %s is declared twice", name)
			}
			declared = append(declared, name)
			if isError {
				c.errorCallbacks[name] = true
			}
			if isEnvironment {
				c.environmentCallbacks[name] = true
			}
		}
		if perr := r.behaviour(m, w); perr != nil {
			return nil, perr
		}
	}
	return declared, nil
}

// behaviour is Configuration.readBehaviour for what the shapes tell: the
// methods the behaviour acts on, and their return types, only reflection
// knows. A simulated device runs no listener, so it has no use for it.
func (r *resolver) behaviour(m fields, w string) *protoError {
	if v := m.get("sleep_ms"); v != nil {
		if n, ok := v.(int64); !ok || n < 0 {
			return badRequest(w+".sleep_ms", "sleep_ms is a non-negative integer of milliseconds, not %s", describe(v))
		}
	}
	returns, throws := m.get("returns"), m.get("throws")
	if returns != nil && throws != nil {
		return badRequest(w+".throws", "give returns or throws, not both")
	}
	if returns != nil {
		return r.literal(returns, w+".returns")
	}
	if throws != nil {
		return r.literal(throws, w+".throws")
	}
	return nil
}

// details is Configuration.readDetails for what the parts' shape tells:
// which arguments there are and what their types have, only reflection
// knows.
func (r *resolver) details(ds *object) *protoError {
	if ds == nil {
		return nil
	}
	known, checkKnown := r.knownCallbackMethods()
	for _, method := range ds.keys {
		w := "details." + method
		if checkKnown && !slices.Contains(known, method) {
			return &protoError{code: codeUnknownCallback, where: w,
				message: method + " is no method of any listener or shim of the purpose" + describeKnown(known)}
		}
		items, ok := ds.get(method).([]any)
		if !ok || len(items) == 0 {
			what := "an empty array"
			if !ok {
				what = typeName(ds.get(method))
			}
			return badRequest(w, `a detail is a non-empty array of parts such as {"arg":1,"extra":"KEY"}, not %s`, what)
		}
		for k, item := range items {
			if perr := detailPart(item, fmt.Sprintf("%s[%d]", w, k)); perr != nil {
				return perr
			}
		}
	}
	return nil
}

func detailPart(raw any, w string) *protoError {
	o, ok := raw.(*object)
	if !ok {
		return badRequest(w, "a detail part is an object with arg and call or extra, not %s", typeName(raw))
	}
	m := at(o, "details.*[]")
	for _, k := range o.keys {
		if !slices.Contains(keysAt(m.in), k) {
			return badRequest(w+"."+k, `a detail part takes arg, call and extra, not "%s"`, k)
		}
	}
	if a := m.get("arg"); a != nil {
		if n, ok := a.(int64); !ok || n < 0 || n > math.MaxInt32 {
			return badRequest(w+".arg", `"arg" must be a non-negative integer, not %s`, describe(a))
		}
	}
	if _, perr := stringField(m, "call", w+".call", false); perr != nil {
		return perr
	}
	extra, perr := stringField(m, "extra", w+".extra", false)
	if perr != nil {
		return perr
	}
	if m.get("call") != nil && m.get("extra") != nil {
		return badRequest(w+".extra", "give call or extra, not both")
	}
	if m.get("extra") != nil && extra == "" {
		return badRequest(w+".extra", "an extra is a key, not an empty string")
	}
	return nil
}

// knownCallbackMethods lists the callback methods of the declared
// listeners as Configuration.knownCallbackMethods does, each listener's
// sorted. It says false when they cannot be known: the simulated device
// was not told its class, or a platform shim (whose methods only the
// platform knows) is involved. Then any well-formed name is accepted: a
// model has no listener methods to check it against, and a callback it
// never emits is as harmless as one a real object never calls.
func (r *resolver) knownCallbackMethods() ([]string, bool) {
	o := r.s.opts
	if o.Class == "" || r.shimmed {
		return nil, false
	}
	var known []string
	for i, typ := range r.listenerTypesWritten {
		methods := slices.Clone(o.Listeners[r.binaryName(typ)])
		sort.Strings(methods)
		for _, m := range methods {
			if m = r.listenerPrefixes[i] + m; !slices.Contains(known, m) {
				known = append(known, m)
			}
		}
	}
	return known, true
}

// describeKnown is Configuration.describeKnown.
func describeKnown(known []string) string {
	if len(known) == 0 {
		return " (it has no listeners and no shims)"
	}
	var b strings.Builder
	b.WriteString(" (they have ")
	for i, k := range known {
		if i == 12 {
			b.WriteString(", ...")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k)
	}
	b.WriteString(")")
	return b.String()
}

// args is Configuration.args: an array of argument literals.
func (r *resolver) args(raw any, where string) *protoError {
	if raw == nil {
		return nil
	}
	l, ok := raw.([]any)
	if !ok {
		return badRequest(where, "arguments are an array of literals, not %s", typeName(raw))
	}
	for i, v := range l {
		if perr := r.literal(v, fmt.Sprintf("%s[%d]", where, i)); perr != nil {
			return perr
		}
	}
	return nil
}

func badArgument(where, format string, args ...any) *protoError {
	return &protoError{code: codeBadArgument, where: where, message: fmt.Sprintf(format, args...)}
}

// literal is Literal.parse, for what a literal's shape tells: constants
// are checked to be CLASS.FIELD but not looked up (a model has no
// fields), and whether a literal converts to a parameter is not known.
func (r *resolver) literal(v any, where string) *protoError {
	switch v.(type) {
	case nil, string, bool, int64, float64:
		return nil
	case []any:
		return badArgument(where, `an argument literal cannot be an array (a list of constants is written {"constant":[...]})`)
	}
	m := v.(*object)
	if len(m.keys) != 1 {
		return badArgument(where, "an object literal has exactly one key (%s), not %d", literalKinds, len(m.keys))
	}
	key := m.keys[0]
	if !slices.Contains(keysAt(inLiteral), key) {
		return badArgument(where, `unknown literal {"%s": ...} (%s)`, key, literalKinds)
	}
	val := at(m, inLiteral).get(key)
	w := where + "." + key
	switch key {
	case "file", "path":
		name, ok := val.(string)
		if !ok || name == "" {
			what := typeName(val)
			if ok {
				what = "an empty string"
			}
			return badArgument(w, `{"%s": NAME} needs a file name, not %s`, key, what)
		}
		if perr := checkRelative(name, w); perr != nil {
			return badArgument(perr.where, "%s", perr.message)
		}
		return nil
	case "new", "call":
		return r.made(key, val, w)
	case "result":
		sym, ok := val.(string)
		if !ok || sym == "" {
			what := typeName(val)
			if ok {
				what = "an empty string"
			}
			return badArgument(w, `{"result": SYMBOL} needs the symbol of an earlier callin, not %s`, what)
		}
		calls, declared := r.returning[sym]
		if !declared {
			return badArgument(w, `no callin %s is declared before this literal: {"result": SYMBOL} names an earlier callin`, sym)
		}
		if !calls {
			// Whether a method returns a value only reflection tells.
			return badArgument(w, `callin %s returns nothing (it calls no method): {"result": SYMBOL} needs a callin whose call returns a value`, sym)
		}
		return nil
	case "callback":
		return r.callbackLiteral(val, w)
	case "listener":
		typ, ok := val.(string)
		if !ok {
			return badArgument(w, `{"listener": TYPE} needs a type name, not %s`, typeName(val))
		}
		if !slices.Contains(r.listenerTypes, typ) {
			return &protoError{code: codeUnknownListener, where: where, message: "no listener of type " + typ + " is declared in listeners"}
		}
		return nil
	case "target":
		if val != true {
			return badArgument(w, `write {"target": true}`)
		}
		if !r.targetAllowed {
			return badArgument(where, `the instance under test does not exist yet where {"target": true} is used`)
		}
		return nil
	case "context":
		if val != true {
			return badArgument(w, `write {"context": true}`)
		}
		return nil
	case "constant":
		return constant(val, w)
	case "string":
		if _, ok := val.(string); !ok {
			return badArgument(w, `{"string": S} needs a string, not %s`, typeName(val))
		}
		return nil
	case "int", "long", "float", "double":
		return typedLiteral(key, val, w)
	}
	return badArgument(where, `unknown literal {"%s": ...} (%s)`, key, literalKinds)
}

// made is Literal.MadeLit.parse without the constructor or method
// lookup: the names, the class, then the arguments.
func (r *resolver) made(key string, v any, w string) *protoError {
	names, shape, what := 1, `{"new": [CLASS, ARGS...]}`, "a class name"
	if key == "call" {
		names, shape, what = 2, `{"call": [CLASS, METHOD, ARGS...]}`, "a class and a method name"
	}
	l, ok := v.([]any)
	if !ok {
		return badArgument(w, "%s needs an array, not %s", shape, typeName(v))
	}
	if len(l) < names {
		return badArgument(w, "%s needs %s first, not an array of %d", shape, what, len(l))
	}
	for i := 0; i < names; i++ {
		if s, ok := l[i].(string); !ok || s == "" {
			got := typeName(l[i])
			if ok {
				got = "an empty string"
			}
			what := "a class name"
			if i == 1 {
				what = "a method name"
			}
			return badArgument(fmt.Sprintf("%s[%d]", w, i), "%s needs %s here, not %s", shape, what, got)
		}
	}
	if perr := r.loadClass(l[0].(string), w+"[0]"); perr != nil {
		return perr
	}
	for i := names; i < len(l); i++ {
		if perr := r.literal(l[i], fmt.Sprintf("%s[%d]", w, i)); perr != nil {
			return perr
		}
	}
	return nil
}

func constant(v any, w string) *protoError {
	if name, ok := v.(string); ok {
		return constantName(name, w)
	}
	names, ok := v.([]any)
	if !ok || len(names) == 0 {
		return badArgument(w, `{"constant": ...} needs CLASS.FIELD or a non-empty list of them, not %s`, typeName(v))
	}
	for i, n := range names {
		wi := fmt.Sprintf("%s[%d]", w, i)
		name, ok := n.(string)
		if !ok {
			return badArgument(wi, "a constant is CLASS.FIELD, not %s", typeName(n))
		}
		if perr := constantName(name, wi); perr != nil {
			return perr
		}
	}
	return nil
}

// constantName is the shape check of Literal.field.
func constantName(name, where string) *protoError {
	dot := strings.LastIndex(name, ".")
	if dot <= 0 || dot == len(name)-1 {
		return badArgument(where, `a constant is CLASS.FIELD, not "%s"`, name)
	}
	return nil
}

// typedLiteral is Literal.typed.
func typedLiteral(key string, v any, w string) *protoError {
	switch v.(type) {
	case int64, float64:
	default:
		return badArgument(w, `{"%s": N} needs a number, not %s`, key, typeName(v))
	}
	switch key {
	case "int":
		if n, ok := v.(int64); !ok || n != int64(int32(n)) {
			return badArgument(w, "%s is not an int", javaNumber(v))
		}
	case "long":
		if _, ok := v.(int64); !ok {
			return badArgument(w, "%s is not a long", javaNumber(v))
		}
	case "float":
		d, ok := v.(float64)
		if !ok {
			d = float64(v.(int64))
		}
		// (float) d overflows from the midpoint between the largest
		// float and 2^128 up (round to nearest, ties to even).
		if math.Abs(d) >= 0x1p128-0x1p103 {
			return badArgument(w, "%s does not fit a float", javaNumber(v))
		}
	}
	return nil
}

func badAction(where, format string, args ...any) *protoError {
	return &protoError{code: codeBadAction, where: where, message: fmt.Sprintf(format, args...)}
}

// action is EnvAction.parse: an object with one key, the action's kind.
func action(raw any, where string) *protoError {
	m, ok := raw.(*object)
	if !ok {
		return badAction(where, "an environment action is an object with one key (%s), not %s", actionKinds, typeName(raw))
	}
	if len(m.keys) != 1 {
		return badAction(where, "an environment action has exactly one key (%s), not %d", actionKinds, len(m.keys))
	}
	kind := m.keys[0]
	if !slices.Contains(keysAt(inAction), kind) {
		return badAction(where, `unknown environment action "%s" (%s)`, kind, actionKinds)
	}
	v := at(m, inAction).get(kind)
	w := where + "." + kind
	switch kind {
	case "write", "append":
		a, perr := actionArgument(v, w, kind, `{"file": NAME, "content": TEXT}`)
		if perr != nil {
			return perr
		}
		if c := a.get("content"); c != nil {
			if _, ok := c.(string); !ok {
				return badAction(w+".content", "%s: content must be a string, not %s", kind, typeName(c))
			}
		}
		return actionFile(a.get("file"), w+".file", kind)
	case "delete", "touch":
		return actionFile(v, w, kind)
	case "sqlite":
		a, perr := actionArgument(v, w, kind, `{"file": NAME, "version": N}`)
		if perr != nil {
			return perr
		}
		if ver := a.get("version"); ver != nil {
			if n, ok := ver.(int64); !ok || n != int64(int32(n)) {
				return badAction(w+".version", "sqlite: version must be a 32-bit integer, not %s", describe(ver))
			}
		}
		return actionFile(a.get("file"), w+".file", kind)
	case "sleep":
		if n, ok := v.(int64); !ok || n < 0 {
			return badAction(w, "sleep: want a non-negative integer of milliseconds, not %s", describe(v))
		}
		return nil
	}
	return badAction(where, `unknown environment action "%s" (%s)`, kind, actionKinds)
}

// actionArgument is the object argument of write, append and sqlite, with
// no keys but its schema's.
func actionArgument(v any, where, kind, shape string) (fields, *protoError) {
	m, ok := v.(*object)
	if !ok {
		return fields{}, badAction(where, "%s: want %s, not %s", kind, shape, typeName(v))
	}
	a := at(m, inAction+"."+kind)
	for _, k := range m.keys {
		if !slices.Contains(keysAt(a.in), k) {
			return fields{}, badAction(where+"."+k, `%s takes no "%s"`, kind, k)
		}
	}
	return a, nil
}

func actionFile(f any, where, kind string) *protoError {
	name, ok := f.(string)
	if !ok || name == "" {
		what := typeName(f)
		if ok {
			what = "an empty string"
		}
		return badAction(where, "%s needs a file name, not %s", kind, what)
	}
	return checkRelative(name, where)
}

// checkRelative is EnvAction.checkRelative: a name relative to the files
// directory that does not climb out of it.
func checkRelative(name, where string) *protoError {
	if strings.HasPrefix(name, "/") || strings.HasPrefix(name, `\`) || strings.ContainsRune(name, 0) {
		return badAction(where, `"%s" must be a name relative to the files directory`, name)
	}
	for _, part := range strings.FieldsFunc(name, func(r rune) bool { return r == '/' || r == '\\' }) {
		if part == ".." {
			return badAction(where, `"%s" must stay inside the files directory`, name)
		}
	}
	return nil
}

func stringField(m fields, key, where string, required bool) (string, *protoError) {
	v := m.get(key)
	if v == nil {
		if required {
			return "", badRequest(where, `"%s" is required`, key)
		}
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", badRequest(where, `"%s" must be a string, not %s`, key, typeName(v))
	}
	return s, nil
}

func listField(m fields, key, where string, required bool) ([]any, *protoError) {
	v := m.get(key)
	if v == nil {
		if required {
			return nil, badRequest(where, `"%s" is required`, key)
		}
		return nil, nil
	}
	l, ok := v.([]any)
	if !ok {
		return nil, badRequest(where, `"%s" must be an array, not %s`, key, typeName(v))
	}
	return l, nil
}

func objectField(m fields, key, where string, required bool) (*object, *protoError) {
	v := m.get(key)
	if v == nil {
		if required {
			return nil, badRequest(where, `"%s" is required`, key)
		}
		return nil, nil
	}
	o, ok := v.(*object)
	if !ok {
		return nil, badRequest(where, `"%s" must be an object, not %s`, key, typeName(v))
	}
	return o, nil
}

func millisField(timeouts fields, key string, required bool) *protoError {
	v := timeouts.get(key)
	where := "timeouts." + key
	if v == nil {
		if required {
			return badRequest(where, `"%s" is required`, key)
		}
		return nil
	}
	if n, ok := v.(int64); !ok || n < 0 {
		return badRequest(where, `"%s" must be a non-negative integer of milliseconds, not %s`, key, describe(v))
	}
	return nil
}

// isSHA256 tells whether s is a SHA-256 as the protocol writes it.
func isSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// callbackLiteral is InstanceLiterals.callback without the parameter
// types, which only reflection knows: the shape, where it stands, and
// the method among the listeners' when the device knows them.
func (r *resolver) callbackLiteral(v any, w string) *protoError {
	const shape = `{"callback": [METHOD, N]}`
	l, ok := v.([]any)
	if !ok {
		return badArgument(w, "%s needs an array, not %s", shape, typeName(v))
	}
	if len(l) != 2 {
		return badArgument(w, "%s needs a callback method and an argument number, not an array of %d", shape, len(l))
	}
	method, ok := l[0].(string)
	if !ok || method == "" {
		what := typeName(l[0])
		if ok {
			what = "an empty string"
		}
		return badArgument(w+"[0]", "%s needs a callback method here, not %s", shape, what)
	}
	n, ok := l[1].(int64)
	if !ok || n < 0 || n > math.MaxInt32 {
		return badArgument(w+"[1]", "%s needs a non-negative argument number here, not %s", shape, describe(l[1]))
	}
	if !r.callbacksAllowed {
		return badArgument(w, `a callback's argument exists only once a wait of the query has delivered the callback: %s stands in callins and in target.dispose, not here`, shape)
	}
	if known, ok := r.knownCallbackMethods(); ok && !slices.Contains(known, method) {
		return &protoError{code: codeUnknownCallback, where: w + "[0]", message: method + " is no method of any listener or shim of the purpose" + describeKnown(known)}
	}
	need := callbackNeed{method: method, arg: n, where: w + "[0]"}
	r.needs = append(r.needs, need)
	r.uses = append(r.uses, need)
	return nil
}

// checkCallbackUses is CallbackSection.checkCallbackUses: every
// {"callback": ...} literal names a method a declared callback matches.
func (r *resolver) checkCallbackUses(declared []string) *protoError {
	for _, u := range r.uses {
		found := false
		for _, d := range declared {
			m, _, _ := strings.Cut(d, "/")
			found = found || m == u.method
		}
		if !found {
			return &protoError{code: codeUnknownCallback, where: u.where,
				message: "no declared callback is " + u.method + `: {"callback": [METHOD, N]} takes an argument of a callback a wait delivers`}
		}
	}
	return nil
}
