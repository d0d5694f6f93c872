package simharness

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
)

// The Java harness reads requests with its own small JSON reader
// (harness-apk/src/core/java/org/droidstar/harness/core/Json.java), which
// differs from encoding/json where a harness can be told apart: it refuses
// duplicate keys, keeps an object's keys in document order, reads a number
// without fraction or exponent that fits a long as an integer and any
// other as a double, and says what is wrong at a UTF-16 offset. This file
// is that reader in Go, so that the simulated harness refuses what the
// Java harness refuses with the same message; the protocol corpus
// (harness-apk/testdata/protocol) checks that the two agree.

// object is a JSON object with its keys in document order.
type object struct {
	keys []string
	vals map[string]any
}

// get returns the value of key, nil when it is absent (or null).
func (o *object) get(key string) any { return o.vals[key] }

// maxDepth is Json.MAX_DEPTH: deeper nesting is a syntax error.
const maxDepth = 200

// syntaxError is Json.SyntaxException.
type syntaxError struct{ msg string }

func (e *syntaxError) Error() string { return e.msg }

// parseJSON reads text holding exactly one JSON value (surrounding white
// space allowed). Values are nil, bool, string, int64, float64, []any and
// *object.
func parseJSON(text string) (any, error) {
	r := &jsonReader{s: utf16.Encode([]rune(text))}
	r.skipSpace()
	v, err := r.value(0)
	if err != nil {
		return nil, err
	}
	r.skipSpace()
	if r.pos != len(r.s) {
		return nil, r.error("unexpected text after the value")
	}
	return v, nil
}

// jsonReader walks UTF-16 code units, as Java's String does, so that
// offsets in messages count the same units.
type jsonReader struct {
	s   []uint16
	pos int
}

func (r *jsonReader) error(what string) error {
	return &syntaxError{fmt.Sprintf("%s at offset %d", what, r.pos)}
}

func (r *jsonReader) skipSpace() {
	for r.pos < len(r.s) {
		switch r.s[r.pos] {
		case ' ', '\t', '\n', '\r':
			r.pos++
		default:
			return
		}
	}
}

func (r *jsonReader) value(depth int) (any, error) {
	if depth > maxDepth {
		return nil, r.error("nesting too deep")
	}
	if r.pos >= len(r.s) {
		return nil, r.error("unexpected end of input")
	}
	switch c := r.s[r.pos]; {
	case c == '{':
		return r.object(depth)
	case c == '[':
		return r.array(depth)
	case c == '"':
		return r.string()
	case c == 't':
		return true, r.literal("true")
	case c == 'f':
		return false, r.literal("false")
	case c == 'n':
		return nil, r.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return r.number()
	default:
		return nil, r.error("unexpected character '" + string(utf16.Decode([]uint16{c})) + "'")
	}
}

func (r *jsonReader) literal(word string) error {
	for i := 0; i < len(word); i++ {
		if r.pos+i >= len(r.s) || r.s[r.pos+i] != uint16(word[i]) {
			return r.error("invalid literal")
		}
	}
	r.pos += len(word)
	return nil
}

func (r *jsonReader) object(depth int) (any, error) {
	o := &object{vals: map[string]any{}}
	r.pos++
	r.skipSpace()
	if r.pos < len(r.s) && r.s[r.pos] == '}' {
		r.pos++
		return o, nil
	}
	for {
		r.skipSpace()
		if r.pos >= len(r.s) || r.s[r.pos] != '"' {
			return nil, r.error("expected a string key")
		}
		key, err := r.string()
		if err != nil {
			return nil, err
		}
		r.skipSpace()
		if r.pos >= len(r.s) || r.s[r.pos] != ':' {
			return nil, r.error("expected ':'")
		}
		r.pos++
		r.skipSpace()
		v, err := r.value(depth + 1)
		if err != nil {
			return nil, err
		}
		if _, dup := o.vals[key]; dup {
			return nil, r.error(`duplicate key "` + key + `"`)
		}
		o.keys = append(o.keys, key)
		o.vals[key] = v
		r.skipSpace()
		if r.pos >= len(r.s) {
			return nil, r.error("unexpected end of input")
		}
		c := r.s[r.pos]
		r.pos++
		if c == '}' {
			return o, nil
		}
		if c != ',' {
			r.pos--
			return nil, r.error("expected ',' or '}'")
		}
	}
}

func (r *jsonReader) array(depth int) (any, error) {
	l := []any{}
	r.pos++
	r.skipSpace()
	if r.pos < len(r.s) && r.s[r.pos] == ']' {
		r.pos++
		return l, nil
	}
	for {
		r.skipSpace()
		v, err := r.value(depth + 1)
		if err != nil {
			return nil, err
		}
		l = append(l, v)
		r.skipSpace()
		if r.pos >= len(r.s) {
			return nil, r.error("unexpected end of input")
		}
		c := r.s[r.pos]
		r.pos++
		if c == ']' {
			return l, nil
		}
		if c != ',' {
			r.pos--
			return nil, r.error("expected ',' or ']'")
		}
	}
}

func (r *jsonReader) string() (string, error) {
	r.pos++ // the opening quote
	var out []uint16
	for {
		if r.pos >= len(r.s) {
			return "", r.error("unterminated string")
		}
		c := r.s[r.pos]
		if c == '"' {
			r.pos++
			return string(utf16.Decode(out)), nil
		}
		if c < 0x20 {
			return "", r.error("control character in string")
		}
		r.pos++
		if c != '\\' {
			out = append(out, c)
			continue
		}
		if r.pos >= len(r.s) {
			return "", r.error("unterminated string")
		}
		e := r.s[r.pos]
		r.pos++
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			if r.pos+4 > len(r.s) {
				return "", r.error(`bad \u escape`)
			}
			var cp uint16
			for i := 0; i < 4; i++ {
				d := hexDigit(r.s[r.pos+i])
				if d < 0 {
					return "", r.error(`bad \u escape`)
				}
				cp = cp*16 + uint16(d)
			}
			r.pos += 4
			out = append(out, cp)
		default:
			r.pos--
			return "", r.error(`bad escape '\` + string(utf16.Decode([]uint16{e})) + "'")
		}
	}
}

// hexDigit is Character.digit(c, 16) for the digits JSON allows (Java
// also takes other scripts' digits, which no host sends).
func hexDigit(c uint16) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

func (r *jsonReader) number() (any, error) {
	start := r.pos
	integral := true
	digit := func() bool { return r.pos < len(r.s) && r.s[r.pos] >= '0' && r.s[r.pos] <= '9' }
	if r.s[r.pos] == '-' {
		r.pos++
	}
	if r.pos >= len(r.s) {
		return nil, r.error("bad number")
	}
	switch c := r.s[r.pos]; {
	case c == '0':
		r.pos++
	case c >= '1' && c <= '9':
		for digit() {
			r.pos++
		}
	default:
		return nil, r.error("bad number")
	}
	if r.pos < len(r.s) && r.s[r.pos] == '.' {
		integral = false
		r.pos++
		from := r.pos
		for digit() {
			r.pos++
		}
		if r.pos == from {
			return nil, r.error("bad number")
		}
	}
	if r.pos < len(r.s) && (r.s[r.pos] == 'e' || r.s[r.pos] == 'E') {
		integral = false
		r.pos++
		if r.pos < len(r.s) && (r.s[r.pos] == '+' || r.s[r.pos] == '-') {
			r.pos++
		}
		from := r.pos
		for digit() {
			r.pos++
		}
		if r.pos == from {
			return nil, r.error("bad number")
		}
	}
	text := string(utf16.Decode(r.s[start:r.pos]))
	if integral {
		if n, err := strconv.ParseInt(text, 10, 64); err == nil {
			return n, nil
		}
		// too large for a long: a double, as in Java
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && !isRangeError(err) {
		return nil, r.error("bad number")
	}
	// Java's Double.parseDouble gives ±Infinity or 0 out of range, as
	// ParseFloat does along with its range error.
	return f, nil
}

func isRangeError(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// typeName names a JSON value's type in messages, as Json.typeName does.
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int64, float64:
		return "a number"
	case *object:
		return "an object"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("%T", v)
}

// describe is Json.describe: an integer as written, anything else by its
// type.
func describe(v any) string {
	if n, ok := v.(int64); ok {
		return strconv.FormatInt(n, 10)
	}
	return typeName(v)
}

// javaNumber writes a number as Java's string concatenation does: a long
// in decimal, a double as Double.toString writes it ("1.5", "2.0",
// "1.0E20", "1.0E-5"). Double.toString of Java 19 and later gives the
// shortest digits that read back as the same double, as Go does; Java 17
// agrees on every number but a few long-fraction ones that no purpose
// writes.
func javaNumber(v any) string {
	switch n := v.(type) {
	case int64:
		return strconv.FormatInt(n, 10)
	case float64:
		return javaDouble(n)
	}
	return fmt.Sprint(v)
}

func javaDouble(d float64) string {
	switch {
	case math.IsNaN(d):
		return "NaN"
	case math.IsInf(d, 1):
		return "Infinity"
	case math.IsInf(d, -1):
		return "-Infinity"
	case d == 0:
		if math.Signbit(d) {
			return "-0.0"
		}
		return "0.0"
	}
	abs := math.Abs(d)
	if abs >= 1e-3 && abs < 1e7 {
		s := strconv.FormatFloat(d, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	// Computerized scientific notation: one digit, a fraction of at least
	// one digit, E and the exponent without a plus sign or leading zeros.
	s := strconv.FormatFloat(d, 'e', -1, 64)
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}
