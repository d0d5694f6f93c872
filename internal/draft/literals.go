package draft

import (
	"fmt"
	"slices"
	"strings"

	"github.com/droidstar/droidstar/internal/purpose"
)

// A drafter writes an argument literal of one kind (a <literal> row of
// the purpose schema) for a parameter type, with a note on the choice
// when there was one to make; ok is false when the kind makes no value of
// that type. nested is true for the arguments of a {new: ...} or {call:
// ...} the draft writes: those stay simple, no object made of objects.
type drafter func(lc *literals, param string, nested bool) (lit, note string, ok bool)

// drafters are the literal kinds init drafts, by the name of their row in
// the purpose schema's <literal> table. literal tries them in the table's
// order, which is also the order of preference: a constant before a new
// object, a new object before a factory's.
var drafters = map[string]drafter{
	"file": func(_ *literals, param string, _ bool) (string, string, bool) {
		if param != "java.io.File" {
			return "", "", false
		}
		return "{file: data.txt}", "a file of the files directory (files:, or a do: touch)", true
	},
	"path": func(_ *literals, param string, _ bool) (string, string, bool) {
		if param != "java.nio.file.Path" {
			return "", "", false
		}
		return "{path: data.txt}", "a file of the files directory (files:, or a do: touch)", true
	},
	"listener": func(lc *literals, param string, _ bool) (string, string, bool) {
		if !lc.listeners[param] {
			return "", "", false
		}
		return "{listener: " + param + "}", "", true
	},
	"target": func(lc *literals, param string, _ bool) (string, string, bool) {
		return "{target: true}", "", param == lc.class
	},
	"context": func(_ *literals, param string, _ bool) (string, string, bool) {
		return "{context: true}", "", param == "android.content.Context"
	},
	"constant": draftConstant,
	"int": func(_ *literals, param string, _ bool) (string, string, bool) {
		switch param {
		case "int", "java.lang.Integer":
			return "{int: 0}", "", true
		case "short", "byte", "java.lang.Short", "java.lang.Byte":
			return "0", "", true // a bare number: the harness narrows it
		}
		return "", "", false
	},
	"long":   scalar("{long: 0}", "long", "java.lang.Long"),
	"float":  scalar("{float: 0}", "float", "java.lang.Float"),
	"double": scalar("{double: 0}", "double", "java.lang.Double"),
	"string": func(_ *literals, param string, _ bool) (string, string, bool) {
		switch param {
		case "java.lang.String", "java.lang.CharSequence", "java.lang.Object":
			return `"text"`, "", true // a bare string is {string: ...}
		case "char", "java.lang.Character":
			return `"a"`, "", true
		}
		return "", "", false
	},
}

// new and call draft their own arguments with literal: set here, as
// a static table cannot refer to itself.
func init() {
	drafters["new"] = draftNew
	drafters["call"] = draftCall
}

// notDrafted are the <literal> rows init never writes, and why: each
// needs what only the user knows.
var notDrafted = map[string]string{
	"result": "which earlier callin's result to pass is the user's choice",
	"param":  "parameters are the user's to declare",
	// The objects callbacks hand out are receivers of callins on another
	// class (a Flow.Subscription's request), whose methods the draft does
	// not list: writeHandedObjects names the literal for each instead.
	"callback": "callins on an object a callback hands out are on another class: the draft names the literal in a comment",
}

func scalar(lit string, types ...string) drafter {
	return func(_ *literals, param string, _ bool) (string, string, bool) {
		return lit, "", slices.Contains(types, param)
	}
}

// literals drafts the argument literals of one class's draft.
type literals struct {
	class     string
	listeners map[string]bool
	types     map[string]Type
}

// nullable are the types whose null the methods that take them read as
// a choice of their own, and what it means.
var nullable = map[string]string{
	"android.os.Handler": "null: callbacks on the calling thread's Looper",
}

// literal is an argument literal of a parameter's type, trying the
// <literal> kinds in the schema table's order, with a note on the choice;
// "null" when no kind makes one (but boolean, which is a bare false, and
// the nullable types, whose null comes with a note).
func (lc *literals) literal(param string, nested bool) (lit, note string) {
	if param == "boolean" || param == "java.lang.Boolean" {
		return "false", ""
	}
	if why, ok := nullable[param]; ok {
		return "null", why
	}
	for _, k := range purpose.Schema() {
		if k.In != "<literal>" {
			continue
		}
		if d, ok := drafters[k.Name]; ok {
			if lit, note, ok := d(lc, param, nested); ok {
				return lit, note
			}
		}
	}
	return "null", ""
}

// preferred are the constants a draft picks over a type's first one, and
// why.
var preferred = map[string]struct{ name, why string }{
	"java.util.concurrent.TimeUnit": {"MILLISECONDS", "droidstar's timeouts are in ms too"},
	"java.time.temporal.ChronoUnit": {"MILLIS", "droidstar's timeouts are in ms too"},
}

// draftConstant picks a constant of an enum, or a static final field of
// the type's own: the preferred one, else the first declared.
func draftConstant(lc *literals, param string, _ bool) (string, string, bool) {
	t, ok := lc.types[param]
	if !ok || len(t.Constants) == 0 {
		return "", "", false
	}
	name, why := t.Constants[0], "the first"
	if p, ok := preferred[param]; ok && slices.Contains(t.Constants, p.name) {
		name, why = p.name, p.why
	}
	lit := "{constant: " + param + "." + name + "}"
	if len(t.Constants) == 1 {
		return lit, "", true
	}
	others := slices.DeleteFunc(slices.Clone(t.Constants), func(c string) bool { return c == name })
	if len(others) > 3 {
		others = append(others[:3], "...")
	}
	return lit, fmt.Sprintf("%s: %s (or %s)", name, why, strings.Join(others, ", ")), true
}

// throwables are the exception types a {new: ...} of
// IllegalStateException passes for.
var throwables = []string{"java.lang.Throwable", "java.lang.Exception", "java.lang.RuntimeException", "java.lang.IllegalStateException"}

// draftNew makes a Throwable with a message, or an object of a concrete
// class by its constructor of the fewest parameters that all have simple
// literals.
func draftNew(lc *literals, param string, nested bool) (string, string, bool) {
	if nested {
		return "", "", false
	}
	if slices.Contains(throwables, param) {
		return "{new: [java.lang.IllegalStateException, boom]}", "any " + javaName(param) + " will do", true
	}
	t, ok := lc.types[param]
	if !ok || t.Kind != "class" {
		return "", "", false
	}
	if t.Throwable {
		for _, k := range t.Constructors {
			if slices.Equal(k.Params, []string{"java.lang.String"}) {
				return "{new: [" + param + ", boom]}", "", true
			}
		}
	}
	for _, k := range t.Constructors {
		if args, notes, ok := lc.nestedArgs(k.Params); ok {
			return "{new: [" + strings.Join(append([]string{param}, args...), ", ") + "]}", notes, true
		}
	}
	return "", "", false
}

// draftCall calls a static factory of the type, of the fewest parameters
// that all have simple literals, when no constructor fits.
func draftCall(lc *literals, param string, nested bool) (string, string, bool) {
	if nested {
		return "", "", false
	}
	t, ok := lc.types[param]
	// Android's API 23 has no static interface methods (they came with
	// Java 8, API 24), and the reader sees the host JDK's java.* types:
	// Map.of would be drafted for a phone that lacks it.
	if !ok || (t.Kind == "interface" && IsAndroid(lc.class)) {
		return "", "", false
	}
	fs := slices.Clone(t.Factories)
	slices.SortStableFunc(fs, func(a, b Method) int { return len(a.Params) - len(b.Params) })
	for _, f := range fs {
		if args, notes, ok := lc.nestedArgs(f.Params); ok {
			return "{call: [" + strings.Join(append([]string{param, f.Name}, args...), ", ") + "]}", notes, true
		}
	}
	return "", "", false
}

// nestedArgs are the simple literals of a constructor's or a factory's
// parameters with their notes, or false when one has none.
func (lc *literals) nestedArgs(params []string) ([]string, string, bool) {
	var args, notes []string
	for _, p := range params {
		lit, note := lc.literal(p, true)
		if lit == "null" || strings.HasPrefix(lit, "{listener:") || strings.HasPrefix(lit, "{target:") {
			return nil, "", false
		}
		args = append(args, lit)
		if note != "" {
			notes = append(notes, note)
		}
	}
	return args, strings.Join(notes, "; "), true
}
