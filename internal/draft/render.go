package draft

import (
	"fmt"
	"strings"
)

// commentColumn is where the Java signatures start, so that they read as
// a column beside the purpose.
const commentColumn = 40

// Render writes the purpose draft of a description. Everything that is not
// commented out passes `droidstar check`: one constructor (or factory) is
// chosen, the others are comments; every public method is a callin (but
// those that take an object no literal makes are comments), every
// listener's method a callback, each with its Java signature beside it;
// each argument is a placeholder of its parameter's type.
//
// jars are the --jar libraries as the purpose names them (relative to its
// folder); they become its jars.
func Render(d *Description, jars []string) []byte {
	c := &d.Class
	var b builder
	simple := simpleName(c.Name)
	b.comment(fmt.Sprintf("A first purpose for %s, drafted by `droidstar init` from its public API", c.Name))
	b.comment(fmt.Sprintf("(read by reflection on Java %s%s). It passes `droidstar check` as it is.", d.Java, androidNote(c.Name)))
	b.comment("To learn something useful: keep the callins and callbacks you want and delete")
	b.comment("the rest, pick the constructor, and replace each placeholder argument (0, false,")
	b.comment("\"text\": a value of the parameter's type) with one that means something. Callins")
	b.comment("that take an object no argument literal makes, or an interface no listener is")
	b.comment("declared for, are commented out, saying what they need.")
	b.comment("examples/jvm/README.md walks through an example: java.util.Timer.")
	b.line("name: " + symbolSafe(simple))
	b.line("class: " + c.Name)

	listenerTypes := map[string]bool{}
	for _, l := range c.Listeners {
		listenerTypes[l.Type] = true
	}
	undeclared := map[string]Listener{}
	for _, l := range c.Interfaces {
		undeclared[l.Type] = l
	}
	// why says what a call's arguments need that the draft does not
	// declare: objects no literal makes (the placeholder is null), and
	// interfaces that would need a listener of their own.
	argsOf := func(params []string) (list string, why []string) {
		var parts, objects []string
		for _, p := range params {
			if l, ok := undeclared[p]; ok {
				var names []string
				for _, cb := range l.Callbacks {
					names = append(names, cb.Name)
				}
				parts = append(parts, "{listener: "+p+"}")
				why = append(why, "declare the listener "+javaName(p)+" (callbacks "+strings.Join(dedupe(names), ", ")+")")
				continue
			}
			lit := placeholder(p, c.Name, listenerTypes)
			if lit == "null" {
				objects = append(objects, javaName(p))
			}
			parts = append(parts, lit)
		}
		if len(objects) > 0 {
			why = append(why, "no literal makes "+strings.Join(dedupe(objects), ", "))
		}
		return "[" + strings.Join(parts, ", ") + "]", dedupe(why)
	}
	args := func(params []string) string {
		list, _ := argsOf(params)
		return list
	}

	if len(jars) > 0 {
		note := "the --jar libraries, relative to this file's folder"
		if IsAndroid(c.Name) {
			note += " (adb needs them dexed: see examples/adapter.mk)"
		}
		b.commented("jars:", note)
		for _, j := range jars {
			b.line("  - " + j)
		}
	}
	b.line("target:")
	made := false
	for i, k := range c.Constructors {
		line := "new: " + args(k.Params)
		if made {
			line = "# " + line
		}
		if i == 0 && c.Shim != nil {
			var names []string
			for _, cb := range c.Shim {
				names = append(names, cb.Name)
			}
			b.commented("  "+line, k.Signature+" (the harness's shim reports "+strings.Join(names, ", ")+")")
		} else {
			b.commented("  "+line, k.Signature)
		}
		made = true
	}
	for _, f := range c.Factories {
		line := fmt.Sprintf("factory: {class: %s, method: %s, args: %s}", c.Name, f.Name, args(f.Params))
		if made {
			line = "# " + line
		}
		b.commented("  "+line, f.Signature)
		made = true
	}
	if !made {
		b.line("  # no public constructor or static factory: a callin with result: target must make the instance")
	}
	if len(c.Listeners) > 0 {
		b.line("  listeners:")
		for _, l := range c.Listeners {
			var names []string
			for _, cb := range l.Callbacks {
				names = append(names, cb.Name)
			}
			what := "a proxy: callbacks " + strings.Join(names, ", ")
			if l.Shim {
				what = "the harness's shim: callbacks " + strings.Join(names, ", ")
			}
			b.commented("    - type: "+l.Type, what)
			if l.Register != "" {
				reg := "register: " + l.Register
				sig := fmt.Sprintf("void %s(%s)", l.Register, javaName(l.Type))
				if !made {
					// Nothing exists at the reset to register it on.
					reg = "# " + reg
				}
				b.commented("      "+reg, sig)
			}
		}
	}
	b.commented("  # dispose: release", "a method called after each query: release, close, cancel, shutdown")

	b.line("callins:")
	// A purpose needs a callin: when every one needs something the draft
	// lacks, they all stay in, for the user to pick from and complete.
	allCommented := true
	for _, m := range c.Methods {
		if _, why := argsOf(m.Params); len(why) == 0 {
			allCommented = false
		}
	}
	for _, l := range c.Listeners {
		if len(l.Callins) > 0 {
			allCommented = false
		}
	}
	symbols := map[string]bool{}
	for _, m := range c.Methods {
		list, why := argsOf(m.Params)
		writeCallin(&b, m, callinSymbol(m, c.Methods, ""), "", list, why, !allCommented, symbols)
	}
	for _, l := range c.Listeners {
		for _, m := range l.Callins {
			prefix := symbolSafe(simpleName(l.Type)) + "_"
			list, why := argsOf(m.Params)
			writeCallin(&b, m, callinSymbol(m, l.Callins, prefix), l.Type, list, why, true, symbols)
		}
	}

	var callbacks []Callback
	sources := map[string][]string{}
	if c.Shim != nil {
		for _, cb := range c.Shim {
			callbacks = append(callbacks, cb)
			sources[cb.Name] = append(sources[cb.Name], simpleName(c.Name)+" (shim): "+cb.Signature)
		}
	}
	for _, l := range c.Listeners {
		for _, cb := range l.Callbacks {
			if _, seen := sources[cb.Name]; !seen {
				callbacks = append(callbacks, cb)
			}
			sources[cb.Name] = append(sources[cb.Name], simpleName(l.Type)+": "+cb.Signature)
		}
	}
	if len(callbacks) == 0 {
		b.commented("callbacks: []", "no listener found: callbacks come from target.listeners")
	} else {
		b.line("callbacks:")
		for _, cb := range callbacks {
			sym := cb.Name
			if symbols[sym] {
				sym = "cb_" + sym
			}
			symbols[sym] = true
			if sym == cb.Name {
				b.commented("  - symbol: "+sym, strings.Join(sources[cb.Name], "; "))
			} else {
				b.commented("  - symbol: "+sym, strings.Join(sources[cb.Name], "; "))
				b.line("    from: [" + cb.Name + "]")
			}
		}
	}
	b.line("timeouts:")
	b.commented("  quiescence: 500ms", "how long a wait waits for a callback")
	b.commented("  settle: 100ms", "after a query ending in a quiet answer, for late callbacks")
	b.commented("  post_reset: 50ms", "after a fresh instance is made")
	b.commented("bound: 2", "distinguisher bound in free symbols")
	b.line("backend:")
	if IsAndroid(c.Name) {
		b.commented("  adb: {}", "the phone or emulator adb sees")
		b.commented("  # sim:", "or a simulated device, once there is a model:")
		b.line("  #   model: model.dot")
	} else {
		b.commented("  jvm: {}", "the harness on this machine's JVM")
	}
	return []byte(b.String())
}

// writeCallin writes one callin. One with an argument no literal makes
// is commented out: null would stand for it, which the harness cannot
// tell apart among overloads and the method would mostly refuse. So is one
// that takes an interface the draft declares no listener for (unwritable
// says why), unless commentOut is false.
func writeCallin(b *builder, m Method, sym, on, args string, unwritable []string, commentOut bool, symbols map[string]bool) {
	for base, n := sym, 2; symbols[sym] || reserved[sym]; n++ {
		sym = fmt.Sprintf("%s_%d", base, n)
	}
	symbols[sym] = true
	sig := m.Signature
	if on != "" {
		sig = javaName(on) + ": " + sig
	}
	indent := "  "
	if len(unwritable) > 0 && commentOut {
		indent = "  # "
	}
	b.commented(indent+"- symbol: "+sym, sig)
	if sym != m.Name {
		b.line(indent + "  call: " + m.Name)
	}
	if on != "" {
		b.line(indent + "  on: {listener: " + on + "}")
	}
	if len(unwritable) > 0 {
		b.commented(indent+"  args: "+args, strings.Join(unwritable, "; "))
	} else if len(m.Params) > 0 {
		b.line(indent + "  args: " + args)
	}
}

func dedupe(s []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// reserved are the symbols built into every model.
var reserved = map[string]bool{"ok": true, "quiet": true, "err": true, "wait": true}

// callinSymbol names a method's callin: its name, or for an overload its
// name and its parameters' simple type names (schedule_TimerTask_long).
func callinSymbol(m Method, all []Method, prefix string) string {
	overloads := 0
	for _, o := range all {
		if o.Name == m.Name {
			overloads++
		}
	}
	sym := prefix + m.Name
	if overloads > 1 {
		if len(m.Params) == 0 {
			return sym
		}
		for _, p := range m.Params {
			sym += "_" + symbolSafe(simpleName(p))
		}
	}
	return sym
}

// placeholder is an argument literal of a parameter's type: its zero
// value, a listener or the target where the type is one, else null.
func placeholder(param, class string, listeners map[string]bool) string {
	switch param {
	case "boolean", "java.lang.Boolean":
		return "false"
	case "int", "java.lang.Integer":
		return "{int: 0}"
	case "long", "java.lang.Long":
		return "{long: 0}"
	case "float", "java.lang.Float":
		return "{float: 0}"
	case "double", "java.lang.Double":
		return "{double: 0}"
	case "short", "byte", "java.lang.Short", "java.lang.Byte":
		return "0"
	case "char", "java.lang.Character":
		return `"a"`
	case "java.lang.String", "java.lang.CharSequence", "java.lang.Object":
		return `"text"`
	case "android.content.Context":
		return "{context: true}"
	case class:
		return "{target: true}"
	}
	if listeners[param] {
		return "{listener: " + param + "}"
	}
	return "null"
}

func androidNote(class string) string {
	if IsAndroid(class) {
		return ", against android.jar, API 23"
	}
	return ""
}

// simpleName is a binary name's last part (Timer, MediaPlayer.OnErrorListener
// stays OnErrorListener); arrays keep their brackets as "Array".
func simpleName(name string) string {
	name = strings.ReplaceAll(name, "[]", "Array")
	if i := strings.LastIndexAny(name, ".$"); i >= 0 {
		return name[i+1:]
	}
	return name
}

// javaName is a binary name as Java source writes it.
func javaName(name string) string { return strings.ReplaceAll(name, "$", ".") }

// symbolSafe keeps the characters a purpose's names may have.
func symbolSafe(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		default:
			b.WriteRune('_')
		}
	}
	return b.String()
}

type builder struct{ strings.Builder }

func (b *builder) line(s string) { b.WriteString(s + "\n") }

func (b *builder) comment(s string) { b.line("# " + s) }

// commented writes a line with a comment in the signature column (or one
// space past the line when the line is longer).
func (b *builder) commented(s, comment string) {
	pad := commentColumn - len(s)
	if pad < 2 {
		pad = 2
	}
	b.line(s + strings.Repeat(" ", pad) + "# " + comment)
}
