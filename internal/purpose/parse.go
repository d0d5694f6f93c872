package purpose

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/droidstar/droidstar/internal/inputfile"
)

// Backend kinds, in the order messages list them.
var backendKinds = []string{BackendSim, BackendJVM, BackendADB}

// Formats of the sim backend's model file.
var simFormats = []string{"auto", "droidstar-dot", "mealy-dot", "json"}

// Symbols the synchronous closure adds to every model. A callin may not be
// called wait (the closure's own input); a callback may not take any of the
// names, or its outputs could not be told apart from the closure's.
var reservedOutputs = []string{"ok", "quiet", "err", "wait"}

// Keys of each map in the schema, in the order the messages list them.
var (
	// harnessKeys are the top-level fields of the harness's configure
	// request (internal/harness.Request).
	harnessKeys     = []string{"name", "class", "target", "setup", "callins", "callbacks", "details", "timeouts", "jars", "adapters"}
	topKeys         = []string{"name", "class", "description", "target", "setup", "files", "permissions", "jars", "adapters", "callins", "callbacks", "details", "timeouts", "bound", "bound_counts", "restrictions", "backend"}
	callinKeys      = []string{"symbol", "call", "on", "args", "do", "result", "error_if"}
	callbackKeys    = []string{"symbol", "from", "error", "returns", "throws", "sleep_ms"}
	timeoutKeys     = []string{"quiescence", "settle", "post_reset"}
	restrictionKeys = []string{"at_most", "of", "first", "followed_by_wait"}
	simKeys         = []string{"model", "format", "latency", "realtime"}
	jvmKeys         = []string{"java", "options"}
	adbKeys         = []string{}
)

// maxErrors caps the problems collected from one file. Aliases can make a
// small file expand into many repeated problems; past this many, more
// messages would not help anyone.
const maxErrors = 100

// Load reads a purpose file and checks it, including that the sim model it
// names exists, so that a typo in a path fails before any learning starts.
func Load(path string) (*Purpose, error) {
	return LoadLimit(path, inputfile.DefaultMaxSize)
}

// LoadLimit is Load for a file of at most maxSize bytes: a purpose must be
// a regular file (not /dev/zero, a FIFO or a directory), and the cap keeps a
// runaway file from exhausting memory.
func LoadLimit(path string, maxSize int64) (*Purpose, error) {
	data, err := inputfile.Read(path, maxSize)
	if err != nil {
		return nil, err
	}
	p, err := Parse(path, data)
	if err != nil {
		return nil, err
	}
	if sim := p.Backend.Sim; sim != nil {
		if msg := checkFile(sim.ModelPath); msg != "" {
			return nil, ErrorList{{File: path, Line: sim.ModelPos.Line, Col: sim.ModelPos.Col, Field: "backend.sim.model", Msg: msg}}
		}
	}
	// The files and jars a harness needs are checked when a harness
	// backend stages them: a purpose may name jars a user supplies (a
	// library under test) and still be checked without them.
	return p, nil
}

// checkFile says what is wrong with a model path, or "" when the file
// exists. Whether it holds a model is for the sim backend to say, once it
// knows the format.
func checkFile(path string) string {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "file not found: " + path
	case err != nil:
		return err.Error()
	case fi.IsDir():
		return "is a directory, not a model file: " + path
	}
	return ""
}

// Parse checks the YAML text of a purpose; file names it in messages and
// anchors the sim model's relative path. Parse touches no files, so it
// suits purposes that do not live on disk; Load adds the file checks.
// Every problem found is returned at once, as an ErrorList.
func Parse(file string, data []byte) (p *Purpose, err error) {
	// The decoder is written not to panic, and FuzzParse checks that, but
	// the YAML parser underneath is not ours: a crash there must still
	// become a message, not take the CLI down.
	defer func() {
		if r := recover(); r != nil {
			p = nil
			err = ErrorList{{File: file, Line: 1, Col: 1, Msg: fmt.Sprintf("internal error while reading the purpose (please report it): %v", r)}}
		}
	}()
	return parse(file, data)
}

// parse is Parse without the safety net, so that the fuzz target sees
// every panic.
func parse(file string, data []byte) (*Purpose, error) {
	d := &decoder{file: file, anchors: map[string][]anchorDef{}}
	// Editors on Windows may start a file with a byte-order mark; go-yaml
	// would read it as part of the first key.
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	// go-yaml's time and memory grow with the square of the nesting depth
	// (a 200 KB file nested 100,000 deep took 91 s and 15 GB), so the depth
	// is checked in one linear pass before the parser sees the text.
	var deep *inputfile.DepthError
	if errors.As(inputfile.CheckYAMLDepth(data, inputfile.MaxDepth), &deep) {
		d.errAt(Pos{deep.Line, deep.Col}, "", "%s", deep.Error())
		return nil, d.errs.err()
	}
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		d.syntaxError(err)
		return nil, d.errs.err()
	}
	var docs []*ast.DocumentNode
	if f != nil {
		for _, doc := range f.Docs {
			if doc != nil && doc.Body != nil {
				docs = append(docs, doc)
			}
		}
	}
	if len(docs) == 0 {
		d.errAt(Pos{1, 1}, "", "empty purpose: want a map with at least name, callins and backend")
		return nil, d.errs.err()
	}
	if len(docs) > 1 {
		d.errAt(nodePos(docs[1]), "", "a purpose file holds one YAML document, found a second one")
	}
	collectAnchors(docs[0], d.anchors, 0)
	p := d.purpose(docs[0].Body)
	if err := d.errs.err(); err != nil {
		return nil, err
	}
	return p, nil
}

// decoder walks the AST of one purpose and collects problems.
type decoder struct {
	file    string
	errs    ErrorList
	anchors map[string][]anchorDef
	// found counts every problem, also those past maxErrors, so that a
	// section can tell whether it was clean.
	found int
	// returning holds, for each callin read so far, whether it calls a
	// method: a {result: SYMBOL} literal may name only such an earlier one.
	returning map[string]bool
}

func (d *decoder) errAt(pos Pos, field, format string, args ...any) {
	d.found++
	if len(d.errs) >= maxErrors {
		return
	}
	if pos.Line <= 0 {
		pos = Pos{1, 1}
	}
	if pos.Col <= 0 {
		pos.Col = 1
	}
	d.errs = append(d.errs, &Error{File: d.file, Line: pos.Line, Col: pos.Col, Field: field, Msg: fmt.Sprintf(format, args...)})
}

var (
	ansiRE      = regexp.MustCompile(`\x1b\[[0-9;]*m`)
	dupKeyRE    = regexp.MustCompile(`^mapping key (".*") already defined at \[(\d+):(\d+)\]$`)
	posPrefixRE = regexp.MustCompile(`^\[(\d+):(\d+)\]\s*`)
)

// syntaxError turns a go-yaml error into an Error at the token it names.
// go-yaml's own text repeats the position and appends a source excerpt
// (coloured on a terminal); only the message itself is kept.
func (d *decoder) syntaxError(err error) {
	pos := Pos{1, 1}
	var msg string
	var ye yaml.Error
	if errors.As(err, &ye) {
		msg = ye.GetMessage()
		if p := tokPos(ye.GetToken()); p.Line > 0 {
			pos = p
		}
	} else {
		msg = err.Error()
		if m := posPrefixRE.FindStringSubmatch(msg); m != nil {
			l, _ := strconv.Atoi(m[1])
			c, _ := strconv.Atoi(m[2])
			pos = Pos{l, c}
			msg = msg[len(m[0]):]
		}
	}
	msg = ansiRE.ReplaceAllString(msg, "")
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	msg = strings.TrimSpace(msg)
	if m := dupKeyRE.FindStringSubmatch(msg); m != nil {
		d.errAt(pos, "", "duplicate key %s (first defined at %s:%s)", m[1], m[2], m[3])
		return
	}
	if msg == "" {
		msg = "invalid YAML"
	}
	d.errAt(pos, "", "YAML syntax error: %s", msg)
}

// join builds a field path.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

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

// latencyRange reads a sim latency: a duration (80ms), or a uniform range
// MIN..MAX (80ms..400ms) that the simulator draws each callback's latency
// from. A plain duration is its own range.
func (d *decoder) latencyRange(v value) (least, most time.Duration, ok bool) {
	if !v.ok {
		return 0, 0, false
	}
	s, isStr := stringValue(v.node)
	lo, hi, isRange := strings.Cut(s, "..")
	if !isStr || !isRange {
		dur, ok := d.nonNegDuration(v)
		return dur, dur, ok
	}
	lo, hi = strings.TrimSpace(lo), strings.TrimSpace(hi)
	a, err1 := time.ParseDuration(lo)
	b, err2 := time.ParseDuration(hi)
	switch {
	case err1 != nil || err2 != nil:
		d.errAt(v.pos, v.path, "bad latency range %s: want MIN..MAX with units, e.g. 80ms..400ms", quoteShort(strings.TrimSpace(s)))
		return 0, 0, false
	case a < 0:
		d.errAt(v.pos, v.path, "must not be negative, got %s", shorten(lo))
		return 0, 0, false
	case b < a:
		d.errAt(v.pos, v.path, "the range %s ends below its start", quoteShort(strings.TrimSpace(s)))
		return 0, 0, false
	}
	return a, b, true
}

// symDef is a place where a symbol or callback name is defined, kept to
// report duplicates at the later definition and point to the earlier one.
type symDef struct {
	name  string
	pos   Pos
	path  string
	owner int // callback index for callback names, -1 for callins
	self  bool
}

// purpose decodes the top-level map.
func (d *decoder) purpose(body ast.Node) *Purpose {
	top := d.val(body, "", Pos{1, 1})
	if !top.ok {
		return nil
	}
	if _, ok := top.node.(*ast.MappingNode); !ok {
		d.errAt(top.pos, "", "want a map at the top level (name, callins, backend, ...), got %s", kindOf(top.node))
		return nil
	}
	m := d.mapping(top, topKeys)
	if m == nil {
		return nil
	}
	p := &Purpose{
		File:  d.file,
		Bound: DefaultBound,
		Timeouts: Timeouts{
			Quiescence: DefaultQuiescence,
			Settle:     DefaultSettle,
			PostReset:  DefaultPostReset,
		},
	}

	// The fields the harness is sent: a complaint about one of them, or
	// about a field the host filled in under it, points here.
	for _, key := range harnessKeys {
		if f := m.get(key); f != nil && f.ok {
			d.where(p, f.value)
		}
	}
	if f := d.req(m, "name"); f != nil {
		if s, ok := d.str(f.value); ok {
			if msg := checkName(s); msg != "" {
				d.errAt(f.pos, f.path, "invalid name %s: %s", quoteShort(s), msg)
			}
			p.Name = s
		}
	}
	if f := m.opt("class"); f != nil {
		p.Class, _ = d.str(f.value)
	}
	if f := m.opt("description"); f != nil {
		p.Description, _ = d.str(f.value)
	}
	if f := m.opt("target"); f != nil {
		p.Target = d.target(p, f.value)
	}
	if f := m.opt("setup"); f != nil {
		p.Setup = d.actions(p, f.value)
	}
	if f := m.opt("files"); f != nil {
		p.Files = d.files(p, f.value)
	}
	if f := m.opt("permissions"); f != nil {
		p.Permissions = d.permissions(p, f.value)
	}
	if f := m.opt("jars"); f != nil {
		p.Jars = d.files(p, f.value)
	}
	if f := m.opt("adapters"); f != nil {
		p.Adapters = d.adapters(p, f.value)
	}

	var defs []symDef
	callinsOK := false
	if f := d.req(m, "callins"); f != nil {
		before := d.found
		p.Callins, defs = d.callins(p, f.value, defs)
		callinsOK = d.found == before
	}
	callbacksOK := true
	if f := m.opt("callbacks"); f != nil {
		before := d.found
		p.Callbacks, defs = d.callbacks(p, f.value, defs)
		callbacksOK = d.found == before
	}
	d.duplicates(defs)
	if f := m.opt("details"); f != nil {
		p.Details = d.details(p, f.value, p.Callbacks, callbacksOK)
	}
	if callinsOK {
		d.instanceAtReset(p)
	}

	if f := m.opt("timeouts"); f != nil {
		d.timeouts(p, f.value)
	}
	if f := m.opt("bound"); f != nil {
		_, isInteger := f.value.node.(*ast.IntegerNode)
		if s, _ := stringValue(f.value.node); f.value.ok && !isInteger {
			if s != "auto" {
				d.errAt(f.pos, f.path, "want an integer or auto, got %s", kindOf(f.value.node))
			}
			p.BoundAuto = s == "auto"
		} else if b, ok := d.integer(f.value); ok {
			if b < 1 {
				d.errAt(f.pos, f.path, "must be at least 1, got %d", b)
			}
			p.Bound = b
		}
	}
	if f := m.opt("bound_counts"); f != nil {
		switch s, _ := stringValue(f.value.node); {
		case !f.value.ok:
		case s == "every":
			p.BoundCountsEvery = true
		case s != "free":
			d.errAt(f.pos, f.path, "want free or every, got %s", kindOf(f.value.node))
		}
	}
	if f := m.opt("restrictions"); f != nil {
		var inputs []string
		if callinsOK {
			// A duplicate callin is reported where it is defined; the
			// lists of known symbols name it once.
			for _, s := range append(p.CallinSymbols(), "wait") {
				if !slices.Contains(inputs, s) {
					inputs = append(inputs, s)
				}
			}
		}
		p.Restrictions = d.restrictions(f.value, inputs, p.Callbacks)
	}
	if f := d.req(m, "backend"); f != nil {
		var names []string
		if callbacksOK {
			names = callbackNames(p.Callbacks)
		}
		p.Backend = d.backend(p, f.value, names, callbacksOK)
	}
	return p
}

// checkName says what is wrong with a purpose name or symbol, or "". The
// characters are the ones that survive unquoted in file names, DOT
// identifiers and command lines, where names and symbols end up.
func checkName(s string) string {
	if s == "" {
		return "must not be empty"
	}
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
		case (r == '-' || r == '.') && i > 0:
		default:
			return "use letters, digits, '_', '-' and '.', starting with a letter, digit or '_'"
		}
	}
	return ""
}

// checkSymbol validates a symbol and reports it; false means it is unusable
// and is left out of the duplicate checks.
func (d *decoder) checkSymbol(s string, v value) bool {
	if msg := checkName(s); msg != "" {
		d.errAt(v.pos, v.path, "invalid symbol %s: %s", quoteShort(s), msg)
		return false
	}
	return true
}

// symbolItem reads a list item that is either a bare symbol or a map with a
// symbol key; it returns the symbol's value for positions and messages.
func (d *decoder) symbolItem(item value, keys []string, what string) (sym string, symVal value, m *mapping, ok bool) {
	if !item.ok {
		return "", item, nil, false
	}
	switch item.node.(type) {
	case *ast.StringNode, *ast.LiteralNode:
		s, _ := stringValue(item.node)
		return s, item, nil, true
	case *ast.MappingNode:
		m = d.mapping(item, keys)
		f := d.req(m, "symbol")
		if f == nil {
			return "", item, m, false
		}
		s, ok := d.str(f.value)
		return s, f.value, m, ok
	}
	d.errAt(item.pos, item.path, "want a %s symbol or a map with symbol, got %s", what, kindOf(item.node))
	return "", item, nil, false
}

func (d *decoder) callins(p *Purpose, v value, defs []symDef) ([]Callin, []symDef) {
	items, ok := d.list(v, "callins")
	if !ok {
		return nil, defs
	}
	if len(items) == 0 {
		d.errAt(v.pos, v.path, "want at least one callin")
		return nil, defs
	}
	out := make([]Callin, 0, len(items))
	for _, item := range items {
		sym, sv, m, ok := d.symbolItem(item, callinKeys, "callin")
		c := Callin{Symbol: sym, Pos: item.pos}
		if m != nil {
			d.callinCall(p, &c, m)
		}
		if !ok || !d.checkSymbol(sym, sv) {
			continue
		}
		if sym == "wait" {
			d.errAt(sv.pos, sv.path, "reserved symbol \"wait\": it is the built-in input that delivers callbacks")
			continue
		}
		d.where(p, item)
		out = append(out, c)
		defs = append(defs, symDef{name: sym, pos: sv.pos, path: sv.path, owner: -1})
		if d.returning == nil {
			d.returning = map[string]bool{}
		}
		d.returning[sym] = c.Call != ""
	}
	return out, defs
}

func (d *decoder) callbacks(p *Purpose, v value, defs []symDef) ([]Callback, []symDef) {
	items, ok := d.list(v, "callbacks")
	if !ok {
		return nil, defs
	}
	out := make([]Callback, 0, len(items))
	var names []symDef
	for _, item := range items {
		sym, sv, m, ok := d.symbolItem(item, callbackKeys, "callback")
		if ok && !d.checkSymbol(sym, sv) {
			ok = false
		}
		if ok && slices.Contains(reservedOutputs, sym) {
			d.errAt(sv.pos, sv.path, "reserved symbol %s: ok, quiet, err and wait are built into every model", strconv.Quote(sym))
			ok = false
		}
		cb := Callback{Symbol: sym, Pos: item.pos}
		owner := len(out)
		if item.ok {
			d.where(p, item)
		}
		if f := m.opt("from"); f != nil {
			cb.From = d.fromList(f.value, owner, &names)
		}
		if f := m.opt("error"); f != nil {
			d.where(p, f.value)
			cb.Error, cb.Environment = d.errorRole(f.value)
		}
		d.behaviour(p, &cb, m)
		if !ok {
			continue
		}
		names = append(names, symDef{name: sym, pos: sv.pos, path: sv.path, owner: owner, self: true})
		defs = append(defs, symDef{name: sym, pos: sv.pos, path: sv.path, owner: owner})
		out = append(out, cb)
	}
	d.callbackNameClashes(names, out)
	for _, n := range names {
		d.where(p, value{pos: n.pos, path: n.path})
	}
	return out, defs
}

// fromList reads the callback names merged into one symbol. These are
// names the harness reports (onEvent/MODIFY, Listener$onDone), not
// symbols, so they are only required to be free of spaces.
func (d *decoder) fromList(v value, owner int, names *[]symDef) []string {
	items, ok := d.list(v, "callback names")
	if !ok {
		return nil
	}
	if len(items) == 0 {
		d.errAt(v.pos, v.path, "empty list: leave from out to use the symbol itself")
		return nil
	}
	var out []string
	for _, item := range items {
		s, ok := d.str(item)
		if !ok {
			continue
		}
		if s == "" || strings.IndexFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
			d.errAt(item.pos, item.path, "invalid callback name %s: must be non-empty, without spaces", quoteShort(s))
			continue
		}
		out = append(out, s)
		*names = append(*names, symDef{name: s, pos: item.pos, path: item.path, owner: owner})
	}
	return out
}

// callbackNameClashes checks that every callback name a backend may report
// maps to one symbol: a symbol maps to itself, and each from name to its
// callback. Two callbacks with the same symbol are left to duplicates.
func (d *decoder) callbackNameClashes(names []symDef, cbs []Callback) {
	sortDefs(names)
	first := map[string]symDef{}
	for _, n := range names {
		prev, seen := first[n.name]
		if !seen {
			first[n.name] = n
			continue
		}
		switch {
		case prev.owner == n.owner && (prev.self || n.self):
			// A callback may list its own symbol among its names.
		case prev.owner == n.owner:
			d.errAt(n.pos, n.path, "duplicate name %s (first defined at %s)", strconv.Quote(n.name), prev.pos)
		case prev.self && n.self:
			// Same symbol twice: reported as a duplicate symbol.
		default:
			sym := n.name
			if prev.owner >= 0 && prev.owner < len(cbs) {
				sym = cbs[prev.owner].Symbol
			}
			d.errAt(n.pos, n.path, "callback name %s already maps to %s (at %s)", strconv.Quote(n.name), strconv.Quote(sym), prev.pos)
		}
	}
}

// duplicates reports symbols defined twice among callins and callbacks
// together: input and output names share one namespace in queries, models
// and reports.
func (d *decoder) duplicates(defs []symDef) {
	sortDefs(defs)
	first := map[string]symDef{}
	for _, s := range defs {
		if prev, seen := first[s.name]; seen {
			d.errAt(s.pos, s.path, "duplicate symbol %s (first defined at %s)", strconv.Quote(s.name), prev.pos)
			continue
		}
		first[s.name] = s
	}
}

func sortDefs(defs []symDef) {
	sort.SliceStable(defs, func(i, j int) bool { return defs[i].pos.before(defs[j].pos) })
}

// callbackNames lists the names a latency may be keyed by: every callback
// symbol and every from name, without repeats.
func callbackNames(cbs []Callback) []string {
	var names []string
	for _, c := range cbs {
		for _, n := range append([]string{c.Symbol}, c.From...) {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	return names
}

func (d *decoder) timeouts(p *Purpose, v value) {
	t := &p.Timeouts
	m := d.mapping(v, timeoutKeys)
	if m != nil {
		d.where(p, v)
		for _, f := range m.order {
			d.where(p, f.value)
		}
	}
	if f := m.opt("quiescence"); f != nil {
		if dur, text, ok := d.duration(f.value); ok {
			if dur <= 0 {
				d.errAt(f.pos, f.path, "must be positive, got %s", shorten(text))
			}
			t.Quiescence = dur
		}
	}
	if f := m.opt("settle"); f != nil {
		t.Settle, _ = d.nonNegDuration(f.value)
	}
	if f := m.opt("post_reset"); f != nil {
		t.PostReset, _ = d.nonNegDuration(f.value)
	}
}

// restrictions reads the restriction list. inputs is nil when the callins
// were broken, to avoid a wave of follow-on "unknown symbol" messages.
func (d *decoder) restrictions(v value, inputs []string, cbs []Callback) []Restriction {
	items, ok := d.list(v, "restrictions")
	if !ok {
		return nil
	}
	var out []Restriction
	for _, item := range items {
		if !item.ok {
			continue
		}
		if _, isMap := item.node.(*ast.MappingNode); !isMap {
			d.errAt(item.pos, item.path, "want a map such as {at_most: 1, of: [start]}, got %s", kindOf(item.node))
			continue
		}
		m := d.mapping(item, restrictionKeys)
		if m == nil {
			continue
		}
		var kinds []*field
		for _, f := range m.order {
			if f.key != "of" {
				kinds = append(kinds, f)
			}
		}
		if len(kinds) == 0 {
			if m.get("of") != nil {
				d.errAt(m.pos, join(m.path, "at_most"), "required field is missing: of only lists the symbols that at_most counts")
			} else {
				d.errAt(m.pos, m.path, "no restriction given: want one of at_most (with of), first, followed_by_wait")
			}
			continue
		}
		for _, f := range kinds[1:] {
			d.errAt(f.keyPos, f.path, "one restriction per item, but %s is also given (at %s): write two items", kinds[0].key, kinds[0].keyPos)
		}
		kind := kinds[0]
		if !kind.ok {
			continue
		}
		r := Restriction{Kind: RestrictionKind(kind.key), Pos: item.pos}
		good := len(kinds) == 1
		switch r.Kind {
		case AtMost:
			n, ok := d.integer(kind.value)
			if ok && n < 0 {
				d.errAt(kind.pos, kind.path, "must not be negative, got %d", n)
				ok = false
			}
			r.Count = n
			good = good && ok
			of := d.req(m, "of", "it lists the symbols that at_most counts")
			if of == nil {
				good = false
				break
			}
			syms, ok := d.symbolList(of.value, inputs, cbs)
			r.Symbols = syms
			good = good && ok
		default:
			if of := m.get("of"); of != nil {
				d.errAt(of.keyPos, of.path, "of belongs to at_most, not %s", kind.key)
				good = false
			}
			syms, ok := d.symbolList(kind.value, inputs, cbs)
			r.Symbols = syms
			good = good && ok
		}
		if good {
			out = append(out, r)
		}
	}
	return out
}

// symbolList reads the symbols of a restriction: callins or wait.
func (d *decoder) symbolList(v value, inputs []string, cbs []Callback) ([]string, bool) {
	items, ok := d.list(v, "symbols")
	if !ok {
		return nil, false
	}
	if len(items) == 0 {
		d.errAt(v.pos, v.path, "empty list: name at least one symbol")
		return nil, false
	}
	seen := map[string]Pos{}
	var out []string
	for _, item := range items {
		s, ok1 := d.str(item)
		if !ok1 {
			ok = false
			continue
		}
		if prev, dup := seen[s]; dup {
			d.errAt(item.pos, item.path, "duplicate symbol %s (first defined at %s)", strconv.Quote(s), prev)
			ok = false
			continue
		}
		seen[s] = item.pos
		if inputs != nil && !slices.Contains(inputs, s) {
			isCallback := false
			for _, c := range cbs {
				isCallback = isCallback || c.Symbol == s
			}
			if isCallback {
				d.errAt(item.pos, item.path, "unknown symbol %s: it is a callback, and restrictions name inputs (callins: %s)", quoteShort(s), strings.Join(inputs, ", "))
			} else {
				d.errAt(item.pos, item.path, "unknown symbol %s (callins: %s)", quoteShort(s), strings.Join(inputs, ", "))
			}
			ok = false
			continue
		}
		out = append(out, s)
	}
	return out, ok
}

func (d *decoder) backend(p *Purpose, v value, cbNames []string, checkNames bool) Backend {
	if !v.ok {
		return Backend{}
	}
	available := strings.Join(backendKinds, ", ")
	if _, ok := v.node.(*ast.MappingNode); !ok {
		d.errAt(v.pos, v.path, "want a map such as {sim: {model: model.dot}}, got %s", kindOf(v.node))
		return Backend{}
	}
	m := d.mapping(v, nil)
	if m == nil {
		return Backend{}
	}
	if len(m.order) == 0 {
		d.errAt(m.pos, m.path, "no backend given (available: %s)", available)
		return Backend{}
	}
	var b Backend
	for _, kind := range m.order {
		switch {
		case kind.key == BackendSim:
			b.Sim = d.sim(kind.value, cbNames, checkNames)
		case kind.key == BackendJVM || kind.key == BackendADB:
			if kind.key == BackendJVM {
				b.JVM = d.jvm(kind.value)
			} else {
				d.mapping(kind.value, adbKeys)
				b.ADB = &ADBBackend{}
			}
			if p.Class == "" {
				d.errAt(kind.keyPos, m.path, "backend %s runs the harness, which needs class: the class to learn", kind.key)
			}
		default:
			d.errAt(kind.keyPos, m.path, "unknown backend %s (available: %s)", quoteShort(kind.key), available)
			continue
		}
		b.Kinds = append(b.Kinds, kind.key)
	}
	if len(b.Kinds) > 0 {
		b.Kind = b.Kinds[0]
	}
	return b
}

func (d *decoder) jvm(v value) *JVMBackend {
	m := d.mapping(v, jvmKeys)
	if m == nil {
		return nil
	}
	j := &JVMBackend{}
	if f := m.opt("java"); f != nil {
		j.Java, _ = d.str(f.value)
	}
	if f := m.opt("options"); f != nil {
		items, _ := d.list(f.value, "JVM options")
		for _, item := range items {
			if s, ok := d.str(item); ok {
				j.Options = append(j.Options, s)
			}
		}
	}
	return j
}

func (d *decoder) sim(v value, cbNames []string, checkNames bool) *SimBackend {
	m := d.mapping(v, simKeys)
	if m == nil {
		return nil
	}
	sim := &SimBackend{Format: "auto", DefaultLatency: DefaultLatency}
	if f := d.req(m, "model"); f != nil {
		if s, ok := d.str(f.value); ok {
			if strings.TrimSpace(s) == "" {
				d.errAt(f.pos, f.path, "must not be empty")
			}
			sim.Model = s
			sim.ModelPos = f.pos
			sim.ModelPath = resolvePath(d.file, s)
		}
	}
	if f := m.opt("format"); f != nil {
		if s, ok := d.str(f.value); ok {
			if !slices.Contains(simFormats, s) {
				d.errAt(f.pos, f.path, "unknown format %s (allowed: %s)", quoteShort(s), strings.Join(simFormats, ", "))
			}
			sim.Format = s
		}
	}
	if f := m.opt("latency"); f != nil {
		lm := d.mapping(f.value, nil)
		for _, lf := range lmOrder(lm) {
			dur, most, ok := d.latencyRange(lf.value)
			if lf.key == "default" {
				if ok {
					sim.DefaultLatency, sim.DefaultLatencyMax = dur, 0
					if most > dur {
						sim.DefaultLatencyMax = most
					}
				}
				continue
			}
			if checkNames && !slices.Contains(cbNames, lf.key) {
				known := "none declared"
				if len(cbNames) > 0 {
					known = strings.Join(cbNames, ", ")
				}
				d.errAt(lf.keyPos, lf.path, "unknown symbol %s (callbacks: %s)", quoteShort(lf.key), known)
				continue
			}
			if ok {
				if sim.Latency == nil {
					sim.Latency = map[string]time.Duration{}
				}
				sim.Latency[lf.key] = dur
				if most > dur {
					if sim.LatencyMax == nil {
						sim.LatencyMax = map[string]time.Duration{}
					}
					sim.LatencyMax[lf.key] = most
				}
			}
		}
	}
	if f := m.opt("realtime"); f != nil {
		sim.Realtime, _ = d.boolean(f.value)
	}
	return sim
}

func lmOrder(m *mapping) []*field {
	if m == nil {
		return nil
	}
	return m.order
}

// resolvePath anchors a path written in a purpose at the purpose's
// directory, so that a purpose and its model can move together.
func resolvePath(file, p string) string {
	p = filepath.FromSlash(p)
	if filepath.IsAbs(p) || file == "" {
		return p
	}
	return filepath.Join(filepath.Dir(file), p)
}
