package purpose

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"
)

// value is a resolved node with the position where it is written and the
// field path it sits at. ok is false when it could not be resolved (an
// unknown alias, already reported), and then the caller skips it.
type value struct {
	node ast.Node
	pos  Pos
	path string
	ok   bool
}

// val resolves a node found at path.
func (d *decoder) val(raw ast.Node, path string, fallback Pos) value {
	pos := nodePos(raw)
	if pos == (Pos{}) {
		pos = fallback
	}
	n, ok := d.resolve(raw, path)
	return value{node: n, pos: pos, path: path, ok: ok}
}

func (v value) null() bool { return v.ok && isNull(v.node) }

// field is one key of a map.
type field struct {
	key    string
	keyPos Pos
	value
}

// mapping is a map node whose keys were checked against a schema.
type mapping struct {
	pos    Pos
	path   string
	fields map[string]*field
	order  []*field
}

// get returns a field that is present, or nil.
func (m *mapping) get(key string) *field {
	if m == nil {
		return nil
	}
	return m.fields[key]
}

// opt returns a field that is present with a non-null value: in a purpose
// an empty value ("callbacks:" with nothing after it) means the same as
// leaving the key out.
func (m *mapping) opt(key string) *field {
	f := m.get(key)
	if f == nil || !f.ok || f.null() {
		return nil
	}
	return f
}

// req returns a required field, reporting it at the map when it is absent.
// A null value is returned, for the type check to report at the value.
func (d *decoder) req(m *mapping, key string, why ...string) *field {
	if m == nil {
		return nil
	}
	f := m.get(key)
	if f == nil {
		msg := "required field is missing"
		if len(why) > 0 {
			msg += ": " + why[0]
		}
		d.errAt(m.pos, join(m.path, key), "%s", msg)
		return nil
	}
	if !f.ok {
		return nil
	}
	return f
}

// mapping checks that v is a map whose keys are among allowed (or any
// string key when allowed is nil) and indexes its fields.
func (d *decoder) mapping(v value, allowed []string) *mapping {
	if !v.ok {
		return nil
	}
	mn, ok := v.node.(*ast.MappingNode)
	if !ok || mn == nil {
		if isNull(v.node) {
			// An empty value stands for an empty map, so that "sim:" with
			// nothing under it reports the missing model, not a type.
			return &mapping{pos: v.pos, path: v.path, fields: map[string]*field{}}
		}
		d.errAt(v.pos, v.path, "want a map, got %s", kindOf(v.node))
		return nil
	}
	m := &mapping{pos: v.pos, path: v.path, fields: map[string]*field{}}
	for _, mv := range mn.Values {
		if mv == nil {
			continue
		}
		keyPos := nodePos(mv.Key)
		if keyPos == (Pos{}) {
			keyPos = v.pos
		}
		if _, merge := mv.Key.(*ast.MergeKeyNode); merge {
			d.errAt(keyPos, v.path, "merge keys (<<) are not supported: write the fields out")
			continue
		}
		kn, ok := d.resolve(mv.Key, v.path)
		if !ok {
			continue
		}
		key, ok := keyName(kn)
		if !ok {
			d.errAt(keyPos, v.path, "want a field name, got %s", kindOf(kn))
			continue
		}
		if allowed != nil && !slices.Contains(allowed, key) {
			d.errAt(keyPos, v.path, "unknown field %s (allowed: %s)", strconv.Quote(key), strings.Join(allowed, ", "))
			continue
		}
		if prev := m.fields[key]; prev != nil {
			d.errAt(keyPos, join(v.path, key), "duplicate key %s (first defined at %s)", strconv.Quote(key), prev.keyPos)
			continue
		}
		f := &field{key: key, keyPos: keyPos, value: d.val(mv.Value, join(v.path, key), keyPos)}
		if f.null() {
			// A null has no text of its own; its key is what the user wrote.
			f.pos = keyPos
		}
		m.fields[key] = f
		m.order = append(m.order, f)
	}
	return m
}

// keyName is the text of a scalar key; YAML allows "1: x" or "true: x",
// which name fields too, if not ours.
func keyName(n ast.Node) (string, bool) {
	if s, ok := stringValue(n); ok {
		return s, true
	}
	switch n.(type) {
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.NullNode, *ast.InfinityNode, *ast.NanNode:
		return tokenText(nodeToken(n)), true
	}
	return "", false
}

// list checks that v is a list and resolves its items.
func (d *decoder) list(v value, what string) ([]value, bool) {
	if !v.ok {
		return nil, false
	}
	sn, ok := v.node.(*ast.SequenceNode)
	if !ok || sn == nil {
		d.errAt(v.pos, v.path, "want a list of %s, got %s", what, kindOf(v.node))
		return nil, false
	}
	items := make([]value, 0, len(sn.Values))
	for i, raw := range sn.Values {
		items = append(items, d.val(raw, index(v.path, i), v.pos))
	}
	return items, true
}

// str checks for a string.
func (d *decoder) str(v value) (string, bool) {
	if !v.ok {
		return "", false
	}
	s, ok := stringValue(v.node)
	if !ok {
		d.errAt(v.pos, v.path, "want a string, got %s", kindOf(v.node))
	}
	return s, ok
}

// integer checks for an integer that fits an int.
func (d *decoder) integer(v value) (int, bool) {
	if !v.ok {
		return 0, false
	}
	in, ok := v.node.(*ast.IntegerNode)
	if !ok || in == nil {
		d.errAt(v.pos, v.path, "want an integer, got %s", kindOf(v.node))
		return 0, false
	}
	const maxInt = int64(^uint(0) >> 1)
	switch n := in.Value.(type) {
	case int64:
		if n <= maxInt && n >= -maxInt-1 {
			return int(n), true
		}
	case uint64:
		if n <= uint64(maxInt) {
			return int(n), true
		}
	case int:
		return n, true
	}
	d.errAt(v.pos, v.path, "integer %s is out of range", tokenText(in.Token))
	return 0, false
}

// boolean checks for true or false.
func (d *decoder) boolean(v value) (bool, bool) {
	if !v.ok {
		return false, false
	}
	b, ok := v.node.(*ast.BoolNode)
	if !ok || b == nil {
		d.errAt(v.pos, v.path, "want true or false, got %s", kindOf(v.node))
		return false, false
	}
	return b.Value, true
}

// duration reads a duration written with a unit. A bare number is refused
// rather than guessed: DroidStar's purposes gave timeouts in milliseconds
// and Go code in nanoseconds, so either guess would be wrong for someone.
// The one exception is 0, which means the same in every unit. It also
// returns the text as written, for messages.
func (d *decoder) duration(v value) (time.Duration, string, bool) {
	if !v.ok {
		return 0, "", false
	}
	var text string
	switch n := v.node.(type) {
	case *ast.IntegerNode, *ast.FloatNode:
		text = tokenText(nodeToken(n))
		if f, err := strconv.ParseFloat(text, 64); err == nil && f == 0 {
			return 0, text, true
		}
		d.errAt(v.pos, v.path, "%s has no unit: add a unit, e.g. %sms", text, text)
		return 0, text, false
	default:
		s, ok := stringValue(n)
		if !ok {
			d.errAt(v.pos, v.path, "want a duration such as 500ms, got %s", kindOf(n))
			return 0, "", false
		}
		text = strings.TrimSpace(s)
	}
	dur, err := time.ParseDuration(text)
	if err != nil {
		if _, ferr := strconv.ParseFloat(text, 64); ferr == nil {
			d.errAt(v.pos, v.path, "%s has no unit: add a unit, e.g. %sms", shorten(text), shorten(text))
		} else {
			d.errAt(v.pos, v.path, "bad duration %s: want a number and a unit (ns, us, ms, s, m, h), e.g. 500ms", quoteShort(text))
		}
		return 0, text, false
	}
	return dur, text, true
}

// nonNegDuration is a duration that may be zero but not negative.
func (d *decoder) nonNegDuration(v value) (time.Duration, bool) {
	dur, text, ok := d.duration(v)
	if ok && dur < 0 {
		d.errAt(v.pos, v.path, "must not be negative, got %s", shorten(text))
		return 0, false
	}
	return dur, ok
}

// rawLen counts the entries of a map node as written, unknown keys included.
func rawLen(v value) int {
	if mn, ok := v.node.(*ast.MappingNode); ok && mn != nil {
		return len(mn.Values)
	}
	return 0
}
