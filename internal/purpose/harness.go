package purpose

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"
)

// The harness part of a purpose: what the generic Java query runner makes,
// calls and listens to. The sim backend ignores it (but it is still
// checked); the jvm and adb backends send it to the harness, which resolves
// it by reflection (harness-apk/PROTOCOL.md).

// The Go types below marshal to JSON under the purpose file's own field
// names, in the long form of each field: that JSON is the purpose object of
// the harness's configure request (harness-apk/PROTOCOL.md), so that every
// path the harness names in an error is the path of a purpose field.

// Target says how the harness makes, wires and disposes of a fresh instance
// for every query (the reset).
type Target struct {
	// New holds constructor arguments; nil with Factory nil means the
	// no-argument constructor (or the shim's).
	New     []Arg    `json:"new,omitempty"`
	Factory *Factory `json:"factory,omitempty"`
	// Shim holds options for the built-in shims (sleep_ms, ...).
	Shim      map[string]string `json:"shim,omitempty"`
	Listeners []Listener        `json:"listeners,omitempty"`
	Init      []Call            `json:"init,omitempty"`
	Dispose   *Call             `json:"dispose,omitempty"`
}

// Listener is a callback object made fresh for every query: an interface
// implemented by a proxy, or a class with a shim. Register, when set, is
// the instance method that takes it.
type Listener struct {
	Type     string `json:"type"`
	Register string `json:"register,omitempty"`
	// Name tells the listener from others of its type: {listener: NAME}
	// refers to it, and its calls are reported as NAME.METHOD.
	Name string `json:"name,omitempty"`
}

// Factory is a static method that makes the instance. Class defaults to
// the purpose's class (the harness fills it in).
type Factory struct {
	Class  string `json:"class,omitempty"`
	Method string `json:"method"`
	Args   []Arg  `json:"args,omitempty"`
}

// Call is a method call on the instance with literal arguments (init,
// dispose); a bare method name in the file is its short form.
type Call struct {
	Method string `json:"call"`
	Args   []Arg  `json:"args,omitempty"`
}

// Arg is an argument literal in its wire form (PROTOCOL.md): a string,
// int64, float64, bool, nil, or a one-key map such as {"file": "a.txt"}.
type Arg = any

// Action is an environment action of the harness (PROTOCOL.md), shaped as
// in the file: exactly one field is set.
type Action struct {
	Write  *WriteAction  `json:"write,omitempty"`
	Append *WriteAction  `json:"append,omitempty"`
	Delete string        `json:"delete,omitempty"`
	Touch  string        `json:"touch,omitempty"`
	SQLite *SQLiteAction `json:"sqlite,omitempty"`
	// Sleep is in milliseconds, the harness's unit (the file writes a
	// duration).
	Sleep *int64 `json:"sleep,omitempty"`
}

// WriteAction is the argument of write and append.
type WriteAction struct {
	File    string `json:"file"`
	Content string `json:"content"`
}

// SQLiteAction is the argument of sqlite: an empty database whose
// user_version is Version.
type SQLiteAction struct {
	File    string `json:"file"`
	Version int    `json:"version"`
}

// File is a host file pushed to the harness's files directory once per
// session, under Name.
type File struct {
	Name string `json:"name"`
	// From is the path as written; Path is resolved against the purpose.
	From string `json:"from"`
	Path string `json:"-"`
	Pos  Pos    `json:"-"`
}

// Keys of the harness maps.
var (
	targetKeys   = []string{"new", "factory", "shim", "listeners", "init", "dispose"}
	factoryKeys  = []string{"class", "method", "args"}
	callKeys     = []string{"call", "args"}
	listenerKeys = []string{"type", "register", "name"}
	fileKeys     = []string{"name", "from"}
	literalKeys  = []string{"file", "path", "listener", "target", "context", "constant", "new", "call", "result", "int", "long", "float", "double", "string"}
	actionKinds  = []string{"write", "append", "delete", "touch", "sqlite", "sleep"}
	contentKeys  = []string{"file", "content"}
	sqliteKeys   = []string{"file", "version"}
)

// where remembers the position of a harness field, so that an error the
// harness reports about it (by path) points at the purpose's line.
func (d *decoder) where(p *Purpose, v value) {
	if p.Where == nil {
		p.Where = map[string]Pos{}
	}
	p.Where[v.path] = v.pos
}

func (d *decoder) target(p *Purpose, v value) *Target {
	m := d.mapping(v, targetKeys)
	if m == nil {
		return nil
	}
	d.where(p, v)
	t := &Target{}
	newF, factF := m.opt("new"), m.opt("factory")
	if newF != nil && factF != nil {
		d.errAt(factF.keyPos, factF.path, "give new or factory, not both (new is at %s)", newF.keyPos)
	}
	if newF != nil {
		t.New = d.args(p, newF.value)
		if t.New == nil {
			t.New = []Arg{}
		}
	}
	if factF != nil {
		fm := d.mapping(factF.value, factoryKeys)
		if fm != nil {
			d.where(p, factF.value)
			c := &Factory{}
			// The factory's class defaults to the target class.
			if f := fm.opt("class"); f != nil {
				c.Class = d.javaName(p, f.value, "class")
			}
			if f := d.req(fm, "method"); f != nil {
				c.Method = d.javaName(p, f.value, "method")
			}
			if f := fm.opt("args"); f != nil {
				c.Args = d.args(p, f.value)
			}
			t.Factory = c
		}
	}
	if f := m.opt("shim"); f != nil {
		t.Shim = d.shimOptions(p, f.value)
	}
	if f := m.opt("listeners"); f != nil {
		items, _ := d.list(f.value, "listeners")
		for _, item := range items {
			lm := d.mapping(item, listenerKeys)
			if lm == nil {
				continue
			}
			d.where(p, item)
			var l Listener
			if tf := d.req(lm, "type"); tf != nil {
				l.Type = d.javaName(p, tf.value, "class")
			}
			if rf := lm.opt("register"); rf != nil {
				l.Register = d.javaName(p, rf.value, "method")
			}
			if nf := lm.opt("name"); nf != nil {
				d.where(p, nf.value)
				if s, ok := d.str(nf.value); ok {
					if !javaIdent(s) {
						d.errAt(nf.pos, nf.path, "invalid listener name %s: want a Java identifier such as second", quoteShort(s))
					}
					l.Name = s
				}
			}
			for _, prev := range t.Listeners {
				switch {
				case l.Name != "" && prev.Name == l.Name:
					nf := lm.opt("name")
					d.errAt(nf.pos, nf.path, "listener %s is declared twice", quoteShort(l.Name))
				case l.Name == "" && prev.Name == "" && l.Type != "" && prev.Type == l.Type:
					tf := lm.opt("type")
					d.errAt(tf.pos, tf.path, "listener type %s is declared twice: give each listener of a type a name (name: NAME) to tell them apart", l.Type)
				}
			}
			t.Listeners = append(t.Listeners, l)
		}
	}
	if f := m.opt("init"); f != nil {
		items, _ := d.list(f.value, "calls")
		for _, item := range items {
			if c := d.call(p, item); c != nil {
				t.Init = append(t.Init, *c)
			}
		}
	}
	if f := m.opt("dispose"); f != nil {
		t.Dispose = d.call(p, f.value)
	}
	return t
}

// call reads a method call: a bare method name or {call: NAME, args: [...]}.
func (d *decoder) call(p *Purpose, v value) *Call {
	if !v.ok {
		return nil
	}
	d.where(p, v)
	if _, isStr := stringValue(v.node); isStr {
		return &Call{Method: d.javaName(p, v, "method")}
	}
	m := d.mapping(v, callKeys)
	if m == nil {
		return nil
	}
	c := &Call{}
	if f := d.req(m, "call"); f != nil {
		c.Method = d.javaName(p, f.value, "method")
	}
	if f := m.opt("args"); f != nil {
		c.Args = d.args(p, f.value)
	}
	return c
}

// javaName checks a Java class or method name; what is "class" or "method".
func (d *decoder) javaName(p *Purpose, v value, what string) string {
	s, ok := d.str(v)
	if !ok {
		return ""
	}
	d.where(p, v)
	valid := s != ""
	for i, part := range strings.Split(s, ".") {
		if !javaIdent(part) || (what == "method" && i > 0) {
			valid = false
		}
	}
	if what == "class" && strings.Contains(s, "$") {
		// Nested classes: android.media.MediaPlayer$OnPreparedListener.
		valid = valid && !strings.HasSuffix(s, "$")
	}
	if !valid {
		if what == "method" {
			d.errAt(v.pos, v.path, "invalid method name %s: want a Java identifier such as setDataSource", quoteShort(s))
		} else {
			d.errAt(v.pos, v.path, "invalid class name %s: want a binary name such as android.media.MediaPlayer$OnPreparedListener", quoteShort(s))
		}
	}
	return s
}

func javaIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f:
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

func (d *decoder) shimOptions(p *Purpose, v value) map[string]string {
	m := d.mapping(v, nil)
	if m == nil {
		return nil
	}
	d.where(p, v)
	out := map[string]string{}
	for _, f := range m.order {
		if !f.ok {
			continue
		}
		d.where(p, f.value)
		switch n := f.node.(type) {
		case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode:
			out[f.key] = tokenText(nodeToken(n))
		default:
			s, ok := d.str(f.value)
			if !ok {
				continue
			}
			// A duration option is sent in milliseconds, the harness's unit.
			if strings.HasSuffix(f.key, "_ms") {
				if dur, err := time.ParseDuration(s); err == nil {
					s = strconv.FormatInt(dur.Milliseconds(), 10)
				}
			}
			out[f.key] = s
		}
	}
	return out
}

// args reads a list of argument literals.
func (d *decoder) args(p *Purpose, v value) []Arg {
	items, ok := d.list(v, "arguments")
	if !ok {
		return nil
	}
	d.where(p, v)
	out := make([]Arg, 0, len(items))
	for _, item := range items {
		out = append(out, d.literal(p, item))
	}
	return out
}

// literal converts one argument literal to its wire form.
func (d *decoder) literal(p *Purpose, v value) Arg {
	if !v.ok {
		return nil
	}
	d.where(p, v)
	switch n := v.node.(type) {
	case *ast.NullNode:
		return nil
	case *ast.BoolNode:
		return n.Value
	case *ast.IntegerNode:
		i, _ := d.integer(v)
		return int64(i)
	case *ast.FloatNode:
		if math.IsInf(n.Value, 0) || math.IsNaN(n.Value) {
			d.errAt(v.pos, v.path, "want a finite number, got %s", kindOf(n))
		}
		return n.Value
	case *ast.MappingNode:
		m := d.mapping(v, literalKeys)
		if m == nil {
			return nil
		}
		if n := rawLen(v); n != 1 {
			d.errAt(v.pos, v.path, "an argument map has exactly one key (%s), got %d", strings.Join(literalKeys, ", "), n)
			return nil
		}
		if len(m.order) != 1 {
			return nil // an unknown key, reported
		}
		f := m.order[0]
		switch f.key {
		case "file", "path", "string":
			s, _ := d.str(f.value)
			if f.key != "string" {
				d.fileName(f.value, s)
			}
			return map[string]any{f.key: s}
		case "new", "call":
			return map[string]any{f.key: d.made(p, f.key, f.value)}
		case "result":
			d.where(p, f.value)
			s, ok := d.str(f.value)
			if ok {
				calls, declared := d.returning[s]
				switch {
				case !declared:
					d.errAt(f.pos, f.path, "no callin %s is declared before this literal: {result: SYMBOL} names an earlier callin", quoteShort(s))
				case !calls:
					d.errAt(f.pos, f.path, "callin %s calls no method, so it has no result to pass", quoteShort(s))
				}
			}
			return map[string]any{f.key: s}
		case "listener":
			return map[string]any{f.key: d.javaName(p, f.value, "class")}
		case "target", "context":
			b, ok := d.boolean(f.value)
			if ok && !b {
				d.errAt(f.pos, f.path, "write %s: true (or leave the argument out)", f.key)
			}
			return map[string]any{f.key: true}
		case "constant":
			if _, isList := f.node.(*ast.SequenceNode); isList {
				items, _ := d.list(f.value, "constants")
				var names []any
				for _, item := range items {
					names = append(names, d.constant(p, item))
				}
				return map[string]any{"constant": names}
			}
			return map[string]any{"constant": d.constant(p, f.value)}
		case "int", "long":
			i, _ := d.integer(f.value)
			return map[string]any{f.key: int64(i)}
		default: // float, double
			switch n := f.node.(type) {
			case *ast.IntegerNode:
				i, _ := d.integer(f.value)
				return map[string]any{f.key: float64(i)}
			case *ast.FloatNode:
				return map[string]any{f.key: n.Value}
			}
			d.errAt(f.pos, f.path, "want a number, got %s", kindOf(f.node))
			return nil
		}
	}
	s, ok := d.str(v)
	if !ok {
		return nil
	}
	return s
}

// behaviour reads a callback's returns, throws and sleep_ms: what proxy
// listeners do on its calls. Which methods they act on, and whether the
// values fit, only the harness can tell.
func (d *decoder) behaviour(p *Purpose, cb *Callback, m *mapping) {
	returns, throws := m.opt("returns"), m.opt("throws")
	if returns != nil && throws != nil {
		d.errAt(throws.pos, throws.path, "give returns or throws, not both")
	}
	if returns != nil {
		cb.Returns = d.literal(p, returns.value)
	}
	if throws != nil {
		cb.Throws = d.literal(p, throws.value)
	}
	if f := m.opt("sleep_ms"); f != nil {
		d.where(p, f.value)
		if n, ok := d.integer(f.value); ok {
			if n < 0 {
				d.errAt(f.pos, f.path, "must be at least 0, got %d", n)
			}
			cb.SleepMs = int64(n)
		}
	}
}

// made reads the list of {new: [CLASS, ARGS...]} or {call: [CLASS,
// METHOD, ARGS...]}: the names first, then argument literals.
func (d *decoder) made(p *Purpose, key string, v value) []any {
	items, ok := d.list(v, "a class name and arguments")
	if !ok {
		return nil
	}
	d.where(p, v)
	names, shape := 1, "new: [CLASS, ARGS...] needs a class name first"
	if key == "call" {
		names, shape = 2, "call: [CLASS, METHOD, ARGS...] needs a class and a method name first"
	}
	if len(items) < names {
		d.errAt(v.pos, v.path, "%s, got %d items", shape, len(items))
		return nil
	}
	out := []any{d.javaName(p, items[0], "class")}
	if names == 2 {
		out = append(out, d.javaName(p, items[1], "method"))
	}
	for _, item := range items[names:] {
		out = append(out, d.literal(p, item))
	}
	return out
}

// constant reads CLASS.FIELD.
func (d *decoder) constant(p *Purpose, v value) string {
	s, ok := d.str(v)
	if !ok {
		return ""
	}
	d.where(p, v)
	dot := strings.LastIndex(s, ".")
	if dot <= 0 || !javaIdent(s[dot+1:]) {
		d.errAt(v.pos, v.path, "invalid constant %s: want CLASS.FIELD such as android.os.FileObserver.MODIFY", quoteShort(s))
	}
	return s
}

// fileName checks a name in the harness's files directory: a plain
// relative path that cannot climb out of it.
func (d *decoder) fileName(v value, s string) {
	clean := filepath.ToSlash(filepath.Clean(filepath.FromSlash(s)))
	if s == "" || filepath.IsAbs(s) || strings.HasPrefix(s, "/") || clean == ".." || strings.HasPrefix(clean, "../") || strings.Contains(s, "\\") {
		d.errAt(v.pos, v.path, "invalid file name %s: want a relative path inside the harness's files directory, such as watched.txt", quoteShort(s))
	}
}

// actions reads a list of environment actions.
func (d *decoder) actions(p *Purpose, v value) []Action {
	items, ok := d.list(v, "actions")
	if !ok {
		return nil
	}
	var out []Action
	for _, item := range items {
		if a, ok := d.action(p, item); ok {
			out = append(out, a)
		}
	}
	return out
}

func (d *decoder) action(p *Purpose, v value) (Action, bool) {
	if !v.ok {
		return Action{}, false
	}
	d.where(p, v)
	m := d.mapping(v, actionKinds)
	if m == nil {
		return Action{}, false
	}
	if n := rawLen(v); n != 1 {
		d.errAt(v.pos, v.path, "one action per item (%s), got %d", strings.Join(actionKinds, ", "), n)
		return Action{}, false
	}
	if len(m.order) != 1 {
		return Action{}, false // an unknown action, reported
	}
	f := m.order[0]
	d.where(p, f.value)
	var a Action
	switch f.key {
	case "delete", "touch":
		s, ok := d.str(f.value)
		d.fileName(f.value, s)
		if f.key == "delete" {
			a.Delete = s
		} else {
			a.Touch = s
		}
		return a, ok
	case "sleep":
		dur, ok := d.nonNegDuration(f.value)
		ms := dur.Milliseconds()
		a.Sleep = &ms
		return a, ok
	case "sqlite":
		sm := d.mapping(f.value, sqliteKeys)
		sq := &SQLiteAction{}
		if sf := d.req(sm, "file"); sf != nil {
			d.where(p, sf.value)
			sq.File, _ = d.str(sf.value)
			d.fileName(sf.value, sq.File)
		}
		if vf := d.req(sm, "version"); vf != nil {
			d.where(p, vf.value)
			n, ok := d.integer(vf.value)
			if ok && n < 1 {
				d.errAt(vf.pos, vf.path, "must be at least 1, got %d", n)
			}
			sq.Version = n
		}
		a.SQLite = sq
		return a, true
	default: // write, append
		cm := d.mapping(f.value, contentKeys)
		w := &WriteAction{}
		if cf := d.req(cm, "file"); cf != nil {
			d.where(p, cf.value)
			w.File, _ = d.str(cf.value)
			d.fileName(cf.value, w.File)
		}
		if cf := cm.opt("content"); cf != nil {
			d.where(p, cf.value)
			w.Content, _ = d.str(cf.value)
		}
		if f.key == "write" {
			a.Write = w
		} else {
			a.Append = w
		}
		return a, true
	}
}

// callinCall reads a callin's harness fields: call, on, args, do.
func (d *decoder) callinCall(p *Purpose, c *Callin, m *mapping) {
	if f := m.opt("call"); f != nil {
		c.Call = d.javaName(p, f.value, "method")
	}
	if f := m.opt("on"); f != nil {
		c.On = d.literal(p, f.value)
	}
	if f := m.opt("args"); f != nil {
		c.Args = d.args(p, f.value)
	}
	if f := m.opt("do"); f != nil {
		c.Do = d.actions(p, f.value)
	}
	if f := m.opt("result"); f != nil {
		d.where(p, f.value)
		if s, ok := d.str(f.value); ok {
			if s != ResultTarget {
				d.errAt(f.pos, f.path, "unknown result %s: the one place a result can go is target (the call's result becomes the instance under test)", quoteShort(s))
			}
			c.Result = s
		}
	}
	// error_if: null is a value (err when the method returns null), so
	// the field counts when it is present, null or not.
	if f := m.get("error_if"); f != nil && f.ok {
		c.ErrorIf = d.errorValue(p, f.value)
	}
	// Without call the method is named like the symbol, unless the callin
	// only runs actions; then args, on, result and error_if have nothing
	// to go to.
	if c.Call == "" && len(c.Do) > 0 {
		hasArgs := c.On != nil || c.Args != nil
		for _, key := range []string{"args", "on", "result", "error_if"} {
			f := m.get(key)
			if f == nil || (key == "args" || key == "on") && !hasArgs {
				continue
			}
			d.errAt(f.keyPos, f.path, "a callin with do calls no method unless it says which: add call: METHOD")
			break
		}
	}
}

// errorValue reads a callin's error_if: the result that counts as err.
func (d *decoder) errorValue(p *Purpose, v value) *ErrorValue {
	d.where(p, v)
	switch n := v.node.(type) {
	case *ast.NullNode:
		return &ErrorValue{}
	case *ast.BoolNode:
		return &ErrorValue{Value: n.Value}
	case *ast.IntegerNode:
		if i, ok := d.integer(v); ok {
			return &ErrorValue{Value: int64(i)}
		}
		return nil
	case *ast.FloatNode:
		if math.IsInf(n.Value, 0) || math.IsNaN(n.Value) {
			d.errAt(v.pos, v.path, "want a finite number, got %s", kindOf(n))
			return nil
		}
		return &ErrorValue{Value: n.Value}
	}
	if s, ok := stringValue(v.node); ok {
		return &ErrorValue{Value: s}
	}
	d.errAt(v.pos, v.path, "want the result that counts as err: null, true, false, a number or a string, got %s", kindOf(v.node))
	return nil
}

// errorRole reads a callback's error: true (an error callback), false, or
// environment (the environment failed; the query fails).
func (d *decoder) errorRole(v value) (isError, environment bool) {
	if b, ok := v.node.(*ast.BoolNode); ok {
		return b.Value, false
	}
	if s, ok := stringValue(v.node); ok && s == ErrorEnvironment {
		return false, true
	}
	d.errAt(v.pos, v.path, "want true, false or environment, got %s", kindOf(v.node))
	return false, false
}

// detailKeys are the fields of a part of a callback's detail.
var detailKeys = []string{"arg", "call", "extra"}

// details reads where the detail of each callback method comes from:
// METHOD: PART, or METHOD: [PART, ...], a PART being {arg: N} with at
// most one of call: METHOD and extra: KEY. The harness gets the long form
// (always a list, arg written out), so a single part is recorded at
// METHOD[0], the path the harness names. When the callbacks were read
// without trouble, a method that no callback name uses with a detail is
// reported: its detail could never matter.
func (d *decoder) details(p *Purpose, v value, cbs []Callback, checkNames bool) Details {
	m := d.mapping(v, nil)
	if m == nil {
		return nil
	}
	d.where(p, v)
	var out Details
	for _, f := range m.order {
		if !f.ok {
			continue
		}
		if !javaIdent(f.key) {
			d.errAt(f.keyPos, f.path, "invalid method name %s: want the name of a callback method such as onReceive", quoteShort(f.key))
			continue
		}
		d.where(p, value{path: f.path, pos: f.keyPos})
		entry := Detail{Method: f.key, Pos: f.keyPos}
		var items []value
		switch f.node.(type) {
		case *ast.SequenceNode:
			items, _ = d.list(f.value, "detail parts")
			if len(items) == 0 {
				d.errAt(f.pos, f.path, "empty list: give at least one part, such as {arg: 0}")
			}
		case *ast.MappingNode:
			items = []value{{node: f.node, pos: f.pos, path: index(f.path, 0), ok: true}}
		default:
			d.errAt(f.pos, f.path, "want a part such as {arg: 1, extra: KEY}, or a list of parts, got %s", kindOf(f.node))
		}
		good := len(items) > 0
		for _, item := range items {
			part, ok := d.detailPart(p, item)
			good = good && ok
			entry.Parts = append(entry.Parts, part)
		}
		if checkNames && !usesDetail(cbs, f.key) {
			d.errAt(f.keyPos, f.path, "no callback name is %s/DETAIL, so this detail is never used: name one in a callback's from, such as %s/VALUE", f.key, f.key)
			good = false
		}
		if good {
			out = append(out, entry)
		}
	}
	return out
}

func (d *decoder) detailPart(p *Purpose, item value) (DetailPart, bool) {
	var part DetailPart
	if !item.ok {
		return part, false
	}
	if _, isMap := item.node.(*ast.MappingNode); !isMap {
		d.errAt(item.pos, item.path, "want a part such as {arg: 1, extra: KEY}, got %s", kindOf(item.node))
		return part, false
	}
	pm := d.mapping(item, detailKeys)
	if pm == nil {
		return part, false
	}
	d.where(p, item)
	ok := true
	if f := pm.opt("arg"); f != nil {
		d.where(p, f.value)
		n, good := d.integer(f.value)
		if good && n < 0 {
			d.errAt(f.pos, f.path, "must not be negative, got %d", n)
			good = false
		}
		part.Arg, ok = n, good
	}
	cf, ef := pm.opt("call"), pm.opt("extra")
	if cf != nil {
		part.Call = d.javaName(p, cf.value, "method")
	}
	if ef != nil {
		d.where(p, ef.value)
		s, good := d.str(ef.value)
		if good && s == "" {
			d.errAt(ef.pos, ef.path, "must not be empty")
			good = false
		}
		part.Extra, ok = s, ok && good
	}
	if cf != nil && ef != nil {
		d.errAt(ef.keyPos, ef.path, "give call or extra, not both (call is at %s)", cf.keyPos)
		ok = false
	}
	return part, ok
}

// usesDetail says whether a callback name is method/DETAIL.
func usesDetail(cbs []Callback, method string) bool {
	for _, c := range cbs {
		for _, n := range c.Sources() {
			if strings.HasPrefix(n, method+"/") {
				return true
			}
		}
	}
	return false
}

// instanceAtReset checks what needs the instance at the reset when a
// callin makes it (result: target) and the target says neither new nor
// factory: then a query starts without an instance, and nothing can be
// registered on it or called on it before that callin.
func (d *decoder) instanceAtReset(p *Purpose) {
	t := p.Target
	if t == nil || t.New != nil || t.Factory != nil {
		return
	}
	for k, c := range p.Callins {
		if !c.MakesTarget() {
			continue
		}
		made := fmt.Sprintf("callins[%d] (%s) makes it (result: target)", k, c.Symbol)
		for i, l := range t.Listeners {
			if l.Register != "" {
				path := fmt.Sprintf("target.listeners[%d].register", i)
				d.errAt(p.Where[path], path, "no instance exists at the reset to register the listener on: %s; pass the listener to a callin as an argument instead", made)
			}
		}
		for i := range t.Init {
			path := fmt.Sprintf("target.init[%d]", i)
			d.errAt(p.Where[path], path, "no instance exists at the reset to call init on: %s", made)
		}
		return
	}
}

func (d *decoder) files(p *Purpose, v value) []File {
	items, ok := d.list(v, "files")
	if !ok {
		return nil
	}
	var out []File
	seen := map[string]Pos{}
	for _, item := range items {
		if !item.ok {
			continue
		}
		// The harness names a jar by its index when it cannot load it.
		d.where(p, item)
		var f File
		var at value
		if s, isStr := stringValue(item.node); isStr {
			f = File{From: s, Name: filepath.Base(filepath.FromSlash(s))}
			at = item
		} else {
			fm := d.mapping(item, fileKeys)
			if fm == nil {
				continue
			}
			if ff := d.req(fm, "from"); ff != nil {
				f.From, _ = d.str(ff.value)
				f.Name = filepath.Base(filepath.FromSlash(f.From))
				at = ff.value
			}
			if nf := fm.opt("name"); nf != nil {
				f.Name, _ = d.str(nf.value)
				d.fileName(nf.value, f.Name)
			}
		}
		if strings.TrimSpace(f.From) == "" {
			d.errAt(item.pos, item.path, "want a file path")
			continue
		}
		if prev, dup := seen[f.Name]; dup {
			d.errAt(item.pos, item.path, "duplicate file name %s (first at %s)", strconv.Quote(f.Name), prev)
			continue
		}
		seen[f.Name] = item.pos
		f.Path = resolvePath(d.file, f.From)
		f.Pos = at.pos
		out = append(out, f)
	}
	return out
}

func (d *decoder) permissions(p *Purpose, v value) []string {
	items, ok := d.list(v, "permissions")
	if !ok {
		return nil
	}
	var out []string
	for _, item := range items {
		s, ok := d.str(item)
		if !ok {
			continue
		}
		if !strings.Contains(s, ".") || strings.ContainsAny(s, " \t\n;&|$`'\"") {
			d.errAt(item.pos, item.path, "invalid permission %s: want a name such as android.permission.RECORD_AUDIO", quoteShort(s))
			continue
		}
		if !slices.Contains(out, s) {
			// Recorded by index in Permissions, so that a backend that
			// cannot grant one points at its line.
			d.where(p, value{path: fmt.Sprintf("permissions[%d]", len(out)), pos: item.pos})
			out = append(out, s)
		}
	}
	return out
}

// adapters reads the adapter class names: classes in the purpose's jars
// that implement org.droidstar.harness.core.Adapter.
func (d *decoder) adapters(p *Purpose, v value) []string {
	items, ok := d.list(v, "adapter classes")
	if !ok {
		return nil
	}
	var out []string
	for _, item := range items {
		if s := d.javaName(p, item, "class"); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// rawLen counts the entries of a map node as written, unknown keys included.
func rawLen(v value) int {
	if mn, ok := v.node.(*ast.MappingNode); ok && mn != nil {
		return len(mn.Values)
	}
	return 0
}
