package simharness

import (
	"fmt"
	"strings"

	"github.com/droidstar/droidstar/internal/mealy"
)

// config is what run needs of a successful configure.
type config struct {
	name    string
	callins map[string]bool
	// errorCallbacks holds the declared callback names marked error:true.
	errorCallbacks map[string]bool
}

type configureReply struct {
	Callins   []string `json:"callins"`
	Callbacks []string `json:"callbacks"`
	Shims     []string `json:"shims"`
}

// shimClasses are the framework classes the Java harness has built-in
// shims for, per platform (AndroidPlatform.registerShims and
// JvmPlatform.registerShims), so that configure lists the shims the real
// harness would. Shims that adapters register cannot be known here.
var shimClasses = map[string][]string{
	"android": {
		"android.os.AsyncTask", "android.os.CountDownTimer", "android.os.FileObserver",
		"android.database.sqlite.SQLiteOpenHelper", "android.media.MediaCodec$Callback",
		"android.content.BroadcastReceiver",
	},
	"jvm": {"java.util.TimerTask", "java.util.concurrent.FutureTask"},
}

// configure checks what a model can check of a purpose, in the order the
// Java harness resolves it so that a purpose with several faults gets the
// same first complaint. Classes, methods and argument literals mean
// nothing to a model and are not resolved.
func (s *server) configure(req map[string]any) (any, *protoError) {
	s.config = nil
	raw := req["purpose"]
	p, ok := raw.(map[string]any)
	if !ok {
		return nil, badRequest("", `configure needs "purpose": an object, not %s`, typeName(raw))
	}
	name, perr := stringField(p, "name", "name", true)
	if perr != nil {
		return nil, perr
	}
	class, perr := stringField(p, "class", "class", true)
	if perr != nil {
		return nil, perr
	}
	callins, perr := listField(p, "callins", "callins", true)
	if perr != nil {
		return nil, perr
	}
	timeouts, perr := objectField(p, "timeouts", "timeouts", true)
	if perr != nil {
		return nil, perr
	}
	for _, key := range []string{"jars", "adapters"} {
		if _, perr := listField(p, key, key, false); perr != nil {
			return nil, perr
		}
	}
	if class == "" {
		return nil, badRequest("class", "a class name cannot be empty")
	}
	if _, perr := objectField(p, "shim", "shim", false); perr != nil {
		return nil, perr
	}
	shims, perr := s.shims(p, class)
	if perr != nil {
		return nil, perr
	}
	if p["new"] != nil && p["factory"] != nil {
		return nil, badRequest("factory", "give new or factory, not both")
	}

	c := &config{name: name, callins: map[string]bool{}, errorCallbacks: map[string]bool{}}
	reply := configureReply{Callins: []string{}, Callbacks: []string{}, Shims: shims}
	for i, raw := range callins {
		sym, perr := s.callin(raw, fmt.Sprintf("callins[%d]", i), c)
		if perr != nil {
			return nil, perr
		}
		c.callins[sym] = true
		reply.Callins = append(reply.Callins, sym)
	}
	callbacks, perr := listField(p, "callbacks", "callbacks", false)
	if perr != nil {
		return nil, perr
	}
	declared := map[string]bool{}
	for i, raw := range callbacks {
		// Any well-formed name is accepted: a model has no listener
		// methods to check it against, and a callback it never emits is
		// as harmless as one a real object never calls.
		name, isError, perr := callback(raw, fmt.Sprintf("callbacks[%d]", i))
		if perr != nil {
			return nil, perr
		}
		if declared[name] {
			return nil, badRequest(fmt.Sprintf("callbacks[%d].name", i), "callback %s is declared twice", name)
		}
		declared[name] = true
		if isError {
			c.errorCallbacks[name] = true
		}
		reply.Callbacks = append(reply.Callbacks, name)
	}
	for _, key := range []string{"quiescence_ms", "settle_ms", "post_reset_ms"} {
		if perr := millisField(timeouts, key, key == "quiescence_ms"); perr != nil {
			return nil, perr
		}
	}
	s.config = c
	return reply, nil
}

// shims lists the purpose's classes that have a built-in shim, listeners
// first and then the class under test, as the Java harness adds them.
func (s *server) shims(p map[string]any, class string) ([]string, *protoError) {
	out := []string{}
	add := func(name string) {
		if shim := shimFor(s.platform(), name); shim != "" && !contains(out, shim) {
			out = append(out, shim)
		}
	}
	listeners, perr := listField(p, "listeners", "listeners", false)
	if perr != nil {
		return nil, perr
	}
	seen := map[string]bool{}
	for i, raw := range listeners {
		w := fmt.Sprintf("listeners[%d]", i)
		l, ok := raw.(map[string]any)
		if !ok {
			return nil, badRequest(w, `a listener is an object with "type", not %s`, typeName(raw))
		}
		typ, perr := stringField(l, "type", w+".type", true)
		if perr != nil {
			return nil, perr
		}
		if _, perr := stringField(l, "register", w+".register", false); perr != nil {
			return nil, perr
		}
		if seen[typ] {
			return nil, badRequest(w+".type", "listener type %s is declared twice", typ)
		}
		seen[typ] = true
		add(typ)
	}
	add(class)
	return out, nil
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
	for n := name; ; {
		for _, c := range shimClasses[platform] {
			if c == n {
				return c
			}
		}
		dot := strings.LastIndex(n, ".")
		if dot <= 0 {
			return ""
		}
		n = n[:dot] + "$" + n[dot+1:]
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// callin checks one callin and that the model has its symbol as an input:
// the simulation's counterpart of the Java harness finding the method.
func (s *server) callin(raw any, w string, c *config) (string, *protoError) {
	m, ok := raw.(map[string]any)
	if !ok {
		return "", badRequest(w, "a callin is an object with symbol, method, on, args and actions, not %s", typeName(raw))
	}
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
	if _, perr := listField(m, "actions", w+".actions", false); perr != nil {
		return "", perr
	}
	method, perr := stringField(m, "method", w+".method", false)
	if perr != nil {
		return "", perr
	}
	args, ok := m["args"].([]any)
	if !ok && m["args"] != nil {
		return "", badRequest(w+".args", "arguments are an array of literals, not %s", typeName(m["args"]))
	}
	if m["method"] == nil && (len(args) > 0 || m["on"] != nil) {
		return "", badRequest(w+".method", "callin %s has arguments or a receiver but no method", sym)
	}
	mach := s.opts.Model.Machine
	if _, ok := mach.Inputs.Index(sym); !ok {
		where := w + ".method"
		if m["method"] == nil {
			// An actions-only callin has no method to blame.
			where = w + ".symbol"
		}
		what := "callin " + sym
		if method != "" && method != sym {
			what += " (" + method + ")"
		}
		return "", &protoError{code: codeUnknownMethod, where: where, message: fmt.Sprintf("the simulated model %s has no input %q for %s (model inputs: %s)",
			s.opts.Model.Path, sym, what, strings.Join(mach.Inputs.Names(), ", "))}
	}
	return sym, nil
}

// callback checks one declared callback as the Java harness does, minus
// the lookup of its method.
func callback(raw any, w string) (name string, isError bool, perr *protoError) {
	m, ok := raw.(map[string]any)
	if !ok {
		return "", false, badRequest(w, "a callback is an object with name and error, not %s", typeName(raw))
	}
	name, perr = stringField(m, "name", w+".name", true)
	if perr != nil {
		return "", false, perr
	}
	if e := m["error"]; e != nil {
		b, ok := e.(bool)
		if !ok {
			return "", false, badRequest(w+".error", "error is a boolean, not %s", typeName(e))
		}
		isError = b
	}
	method, detail, slash := strings.Cut(name, "/")
	if method == "" || slash && detail == "" {
		return "", false, badRequest(w+".name", "a callback name is METHOD or METHOD/DETAIL, not %q", name)
	}
	return name, isError, nil
}

func stringField(m map[string]any, key, where string, required bool) (string, *protoError) {
	v := m[key]
	if v == nil {
		if required {
			return "", badRequest(where, "%q is required", key)
		}
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", badRequest(where, "%q must be a string, not %s", key, typeName(v))
	}
	return s, nil
}

func listField(m map[string]any, key, where string, required bool) ([]any, *protoError) {
	v := m[key]
	if v == nil {
		if required {
			return nil, badRequest(where, "%q is required", key)
		}
		return nil, nil
	}
	l, ok := v.([]any)
	if !ok {
		return nil, badRequest(where, "%q must be an array, not %s", key, typeName(v))
	}
	return l, nil
}

func objectField(m map[string]any, key, where string, required bool) (map[string]any, *protoError) {
	v := m[key]
	if v == nil {
		if required {
			return nil, badRequest(where, "%q is required", key)
		}
		return nil, nil
	}
	o, ok := v.(map[string]any)
	if !ok {
		return nil, badRequest(where, "%q must be an object, not %s", key, typeName(v))
	}
	return o, nil
}

func millisField(timeouts map[string]any, key string, required bool) *protoError {
	v := timeouts[key]
	where := "timeouts." + key
	if v == nil {
		if required {
			return badRequest(where, "%q is required", key)
		}
		return nil
	}
	if n, ok := integer(v); !ok || n < 0 {
		return badRequest(where, "%q must be a non-negative integer (milliseconds), not %v", key, v)
	}
	return nil
}
