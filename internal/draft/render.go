package draft

import (
	"fmt"
	"slices"
	"strings"
)

// commentColumn is where the Java signatures start, so that they read as
// a column beside the purpose.
const commentColumn = 40

// Render writes the purpose draft of a description. Everything that is not
// commented out passes `droidstar check`: one constructor (or factory) is
// chosen, the others are comments; every public method is a callin (but
// those that take an object no literal makes, and the query-only ones,
// are comments), every listener's method a callback, each with its Java
// signature beside it; each argument is a placeholder of its parameter's
// type, of the literal kinds of the purpose schema (see literals.go).
// Comments advise restrictions on methods that may be called without
// end, and say which objects the callbacks hand out.
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
	b.comment("declared for, are commented out, saying what they need. So are queries (get*,")
	b.comment("is*, has*, estimate*, size, toString, ...): each symbol multiplies the queries,")
	b.comment("and a query changes no state; uncomment one to learn in which states it throws.")
	b.comment("examples/jvm/README.md walks through an example: java.util.Timer.")
	b.line("name: " + symbolSafe(simple))
	b.line("class: " + c.Name)

	// A callback interface handed to a task method (submit, execute,
	// schedule, post, offer: a Runnable, a Callable, a drop handler) is a
	// callback object too: declared, without a register.
	listeners := slices.Clone(c.Listeners)
	undeclared := map[string]Listener{}
	for _, l := range c.Interfaces {
		if takenByTask(l.Type, c.Methods) {
			listeners = append(listeners, l)
		} else {
			undeclared[l.Type] = l
		}
	}
	listenerTypes := map[string]bool{}
	for _, l := range listeners {
		listenerTypes[l.Type] = true
	}
	lc := &literals{class: c.Name, listeners: listenerTypes, types: c.Types}
	// why says what a call's arguments need that the draft does not
	// declare: objects no literal makes (the placeholder is null), and
	// interfaces that would need a listener of their own; notes say why a
	// literal is the one it is.
	argsOf := func(params []string) (list string, why, notes []string) {
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
			lit, note := lc.literal(p, false)
			if lit == "null" && note == "" {
				objects = append(objects, javaName(p))
			}
			if note != "" {
				notes = append(notes, note)
			}
			parts = append(parts, lit)
		}
		if len(objects) > 0 {
			why = append(why, "no literal makes "+strings.Join(dedupe(objects), ", "))
		}
		return "[" + strings.Join(parts, ", ") + "]", dedupe(why), dedupe(notes)
	}
	args := func(params []string) string {
		list, _, _ := argsOf(params)
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
	if len(listeners) > 0 {
		b.line("  listeners:")
		for _, l := range listeners {
			var names []string
			for _, cb := range l.Callbacks {
				names = append(names, cb.Name)
			}
			what := "a proxy: callbacks " + strings.Join(names, ", ")
			switch {
			case l.Shim:
				what = "the harness's shim: callbacks " + strings.Join(names, ", ")
			case l.Kind == "abstract" || l.Kind == "class":
				what = "a generated shim, a subclass: callbacks " + strings.Join(names, ", ")
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
		if _, why, _ := argsOf(m.Params); len(why) == 0 && !queryOnly(m) {
			allCommented = false
		}
	}
	for _, l := range listeners {
		if len(l.Callins) > 0 {
			allCommented = false
		}
	}
	symbols := map[string]bool{}
	// counted are the callins drafted (not commented out) whose methods
	// may be called without end, for the restrictions advice.
	var counted, verbs []string
	for _, m := range c.Methods {
		list, why, notes := argsOf(m.Params)
		sym, in := writeCallin(&b, m, callinSymbol(m, c.Methods, ""), "", list, why, notes, queryOnly(m), !allCommented, symbols)
		if v := countingVerb(m.Name); v != "" && in && !queryOnly(m) {
			counted = append(counted, sym)
			verbs = append(verbs, v)
		}
	}
	for _, l := range listeners {
		for _, m := range l.Callins {
			prefix := symbolSafe(simpleName(l.Type)) + "_"
			list, why, notes := argsOf(m.Params)
			writeCallin(&b, m, callinSymbol(m, l.Callins, prefix), l.Type, list, why, notes, false, true, symbols)
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
	for _, l := range listeners {
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
	writeHandedObjects(&b, c, listeners)
	b.line("timeouts:")
	b.commented("  quiescence: 500ms", "how long a wait waits for a callback")
	b.commented("  settle: 100ms", "after a query ending in a quiet answer, for late callbacks")
	b.commented("  post_reset: 50ms", "after a fresh instance is made")
	b.commented("bound: 2", "distinguisher bound in free symbols")
	if len(counted) > 0 {
		b.commented("# restrictions:", strings.Join(dedupe(verbs), ", ")+" may be called without end: at_most keeps the model finite")
		b.line("#   - {at_most: 2, of: [" + strings.Join(counted, ", ") + "]}")
	}
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

// writeCallin writes one callin and returns its symbol and whether it is
// in (not commented out). One with an argument no literal makes is
// commented out: null would stand for it, which the harness cannot tell
// apart among overloads and the method would mostly refuse. So is one
// that takes an interface the draft declares no listener for (unwritable
// says why), and a query, unless commentOut is false. notes say why an
// argument is the one it is.
func writeCallin(b *builder, m Method, sym, on, args string, unwritable, notes []string, query, commentOut bool, symbols map[string]bool) (string, bool) {
	for base, n := sym, 2; symbols[sym] || reserved[sym]; n++ {
		sym = fmt.Sprintf("%s_%d", base, n)
	}
	symbols[sym] = true
	sig := m.Signature
	if on != "" {
		sig = javaName(on) + ": " + sig
	}
	if query {
		sig += ": a query, no side effect"
	}
	indent := "  "
	if (len(unwritable) > 0 || query) && commentOut {
		indent = "  # "
	}
	b.commented(indent+"- symbol: "+sym, sig)
	if sym != m.Name {
		b.line(indent + "  call: " + m.Name)
	}
	if on != "" {
		b.line(indent + "  on: {listener: " + on + "}")
	}
	if why := append(slices.Clone(unwritable), notes...); len(why) > 0 {
		b.commented(indent+"  args: "+args, strings.Join(why, "; "))
	} else if len(m.Params) > 0 {
		b.line(indent + "  args: " + args)
	}
	return sym, indent == "  "
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

// countingVerbs are the method names (submit, or a verb with a
// capitalised rest: scheduleAtFixedRate) that queue work or items: each
// call may add to what the instance holds, so a model of them need not be
// finite without a restriction.
var countingVerbs = []string{"submit", "execute", "enqueue", "schedule", "post", "add", "offer", "put"}

// countingVerb is the counting verb a method name starts with, or "".
func countingVerb(name string) string {
	for _, v := range countingVerbs {
		if isVerb(name, v) {
			return v
		}
	}
	return ""
}

// isVerb says whether name is v, or v and a capitalised rest.
func isVerb(name, v string) bool {
	return name == v || (strings.HasPrefix(name, v) && len(name) > len(v) && name[len(v)] >= 'A' && name[len(v)] <= 'Z')
}

// takenByTask says whether a method that queues work (a counting verb)
// takes the interface type.
func takenByTask(typ string, methods []Method) bool {
	for _, m := range methods {
		if countingVerb(m.Name) != "" && slices.Contains(m.Params, typ) {
			return true
		}
	}
	return false
}

// queryOnly says whether a method only answers a question about the
// instance: it returns something and is named as a getter (get*, is*,
// has*, estimate*) or is one of Object's and Collection's queries. Its
// symbol would multiply the queries without changing the state; it
// still tells in which states it throws, so the draft keeps it, commented
// out.
func queryOnly(m Method) bool {
	if m.Returns == "void" || m.Returns == "" {
		return false
	}
	switch m.Name {
	case "get", "size", "length", "toString", "hashCode", "equals", "isEmpty", "contains", "describeContents", "compareTo", "peek":
		return true
	}
	if strings.HasPrefix(m.Name, "getAnd") {
		return false // getAndSet, getAndIncrement: a write too
	}
	for _, v := range []string{"get", "is", "has", "estimate"} {
		if isVerb(m.Name, v) {
			return true
		}
	}
	return false
}

// writeHandedObjects says, for each object a callback hands out that
// later callins may need as their receiver (a Flow.Subscription from
// onSubscribe), how a callin names it: the {callback: [METHOD, N]}
// literal. It is a comment: the object's methods are another class's,
// which the draft does not list with their parameters.
func writeHandedObjects(b *builder, c *Class, listeners []Listener) {
	type handed struct {
		by   []string // the callbacks that hand it out
		arg  []int
		name string
	}
	var order []string
	found := map[string]*handed{}
	for _, l := range listeners {
		for _, cb := range l.Callbacks {
			for i, p := range cb.Params {
				t, ok := c.Types[p]
				if !ok || p == c.Name || strings.HasPrefix(p, "java.lang.") || t.Throwable || t.Kind == "enum" || len(t.Methods) == 0 {
					continue
				}
				h := found[p]
				if h == nil {
					h = &handed{name: p}
					found[p] = h
					order = append(order, p)
				}
				h.by = append(h.by, cb.Name)
				h.arg = append(h.arg, i)
			}
		}
	}
	for _, p := range order {
		h := found[p]
		// The example names the callback that hands the object out for
		// use (onOpened, onSubscribe), not the one that says goodbye.
		pick := 0
		for i, name := range h.by {
			if handsOut(name) {
				pick = i
				break
			}
		}
		methods := c.Types[p].Methods
		if len(methods) > 4 {
			methods = append(slices.Clone(methods[:4]), "...")
		}
		verb := "hand"
		if len(h.by) == 1 {
			verb = "hands"
		}
		b.comment(fmt.Sprintf("%s %s out %s (%s): a callin on it", strings.Join(h.by, ", "), verb, javaName(p), strings.Join(methods, ", ")))
		b.comment(fmt.Sprintf("  takes on: {callback: [%s, %d]} and call: METHOD (err no-callback until a wait delivered %s)", h.by[pick], h.arg[pick], h.by[pick]))
	}
}

// handsOut says whether a callback's name says it hands out an object to
// use: onOpened, onSubscribe, onReady, onConnected, onCreated, onConfigured.
func handsOut(name string) bool {
	for _, w := range []string{"Open", "Subscribe", "Ready", "Connect", "Create", "Configure", "Start", "Available"} {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}
