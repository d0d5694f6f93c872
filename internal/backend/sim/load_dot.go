package sim

import (
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/awalterschulze/gographviz"
	"github.com/awalterschulze/gographviz/ast"
)

// Reading DOT: gographviz parses, but it keeps no source positions and it
// rejects a few things Graphviz accepts and real model files contain. So a
// small lexer runs first. It
//   - rewrites the input so that gographviz accepts it, keeping every
//     newline so line numbers stay right: a UTF-8 byte-order mark is
//     dropped, ';' separators inside attribute lists become ',' (OpenSSH.dot
//     of the automata wiki has `[label="CH_CLOSE/CH_CLOSE";]`), a trailing
//     separator before ']' is dropped, "a" + "b" string concatenation is
//     joined, and a final newline is added (gographviz needs a newline to
//     end a // or # comment);
//   - records the line of every edge operator, outside attribute lists, in
//     source order. gographviz's AST keeps statements in source order, so the
//     k-th edge operator met while walking the AST is the k-th in the source:
//     that gives each edge its line.

// dotEdge is one edge of a DOT graph, with the unquoted label.
type dotEdge struct {
	from, to string
	label    string
	hasLabel bool
	html     bool // the label was an HTML string, <...>
	line     int  // 0 when unknown
	// labelAt is where the label's value stands, when it is the edge's
	// own (not an `edge [label=...]` default) and the lexer found it.
	labelAt dotPos
}

// dotPos is a place in the source; 0 is unknown.
type dotPos struct{ line, col int }

// labelPos is where messages about the edge's label point: the label
// itself when known, else the edge's line.
func (e dotEdge) labelPos() (line, col int) {
	if e.labelAt.line > 0 {
		return e.labelAt.line, e.labelAt.col
	}
	return e.line, 0
}

// dotGraph is what the model builders need from a DOT file.
type dotGraph struct {
	nodes    []string       // unquoted node IDs, in order of first declaration or use
	nodeLine map[string]int // line of the first mention of a node (0 when unknown)
	edges    []dotEdge      // in source order
}

type tokKind int

const (
	tkSpace  tokKind = iota // whitespace and comments
	tkID                    // bare ID or numeral
	tkString                // "..."
	tkHTML                  // <...>
	tkEdgeOp                // -> or --
	tkPunct                 // { } [ ] ; , = : +
	tkOther                 // anything else; gographviz reports it
)

type dotToken struct {
	kind tokKind
	text string
	line int
	col  int // in characters, from 1
}

// lexDOT splits DOT source into tokens, comments and whitespace included,
// so that joining the tokens' text gives the input back.
func lexDOT(src string) []dotToken {
	var toks []dotToken
	line, col := 1, 1
	emit := func(kind tokKind, text string) {
		toks = append(toks, dotToken{kind: kind, text: text, line: line, col: col})
		if k := strings.LastIndexByte(text, '\n'); k >= 0 {
			line += strings.Count(text, "\n")
			col = 1 + utf8.RuneCountInString(text[k+1:])
		} else {
			col += utf8.RuneCountInString(text)
		}
	}
	if strings.HasPrefix(src, "\uFEFF") {
		src = src[len("\uFEFF"):]
	}
	for i := 0; i < len(src); {
		c := src[i]
		rest := src[i:]
		j := i + 1
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			for j < len(src) && strings.IndexByte(" \t\r\n", src[j]) >= 0 {
				j++
			}
			emit(tkSpace, src[i:j])
		case c == '\f' || c == '\v':
			emit(tkSpace, " ") // gographviz knows only space, tab, CR and LF
		case strings.HasPrefix(rest, "//") || c == '#':
			j = i + strings.IndexByte(rest+"\n", '\n')
			emit(tkSpace, src[i:j])
		case strings.HasPrefix(rest, "/*"):
			if k := strings.Index(rest[2:], "*/"); k >= 0 {
				j = i + 2 + k + 2
				emit(tkSpace, src[i:j])
			} else {
				j = len(src)
				emit(tkOther, src[i:j]) // unterminated: let gographviz say where
			}
		case c == '"':
			for j < len(src) && src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(src))
			emit(tkString, src[i:j])
		case c == '<':
			depth := 1
			for ; j < len(src) && depth > 0; j++ {
				switch src[j] {
				case '<':
					depth++
				case '>':
					depth--
				}
			}
			emit(tkHTML, src[i:j])
		case strings.HasPrefix(rest, "->") || strings.HasPrefix(rest, "--"):
			j = i + 2
			emit(tkEdgeOp, src[i:j])
		case c == '-' || c == '.' || isDigit(c):
			j = i
			if c == '-' {
				j++
			}
			for j < len(src) && isDigit(src[j]) {
				j++
			}
			if j < len(src) && src[j] == '.' {
				j++
				for j < len(src) && isDigit(src[j]) {
					j++
				}
			}
			if j == i+1 && (c == '-' || c == '.') {
				emit(tkOther, src[i:j]) // a lone '-' or '.'
			} else {
				emit(tkID, src[i:j])
			}
		case isIDByte(c):
			for j < len(src) && (isIDByte(src[j]) || isDigit(src[j])) {
				j++
			}
			emit(tkID, src[i:j])
		case strings.IndexByte("{}[];,=:+", c) >= 0:
			emit(tkPunct, src[i:j])
		default:
			emit(tkOther, src[i:j])
		}
		i = j
	}
	return toks
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isIDByte(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80
}

// normalizedDOT is the lexer's rewrite of a DOT file.
type normalizedDOT struct {
	src       string
	edgeLines []int          // line of every edge operator outside attribute lists
	edgeLabel []dotPos       // for each of those, where its statement's label value stands
	firstLine map[string]int // line of the first mention of every ID outside attribute lists
	first     *dotToken      // first token that is not a space or comment
}

// normalizeDOT applies the rewrites described at the top of this file.
func normalizeDOT(src string) normalizedDOT {
	toks := lexDOT(src)
	n := normalizedDOT{firstLine: map[string]int{}}
	nextSolid := func(k int) int { // index of the next non-space token after k, or -1
		for k++; k < len(toks); k++ {
			if toks[k].kind != tkSpace {
				return k
			}
		}
		return -1
	}
	var b strings.Builder
	depth := 0 // inside [ ... ]
	for k := 0; k < len(toks); k++ {
		t := toks[k]
		if t.kind != tkSpace && n.first == nil {
			n.first = &toks[k]
		}
		switch {
		case t.kind == tkPunct && t.text == "[":
			depth++
		case t.kind == tkPunct && t.text == "]":
			depth = max(depth-1, 0)
		case t.kind == tkPunct && depth > 0 && (t.text == ";" || t.text == ","):
			if s := nextSolid(k); s >= 0 && toks[s].kind == tkPunct && toks[s].text == "]" {
				t.text = " "
			} else {
				t.text = ","
			}
		case t.kind == tkEdgeOp && depth == 0:
			n.edgeLines = append(n.edgeLines, t.line)
			n.edgeLabel = append(n.edgeLabel, edgeLabelPos(toks, k, nextSolid))
		case (t.kind == tkID || t.kind == tkString || t.kind == tkHTML) && depth == 0:
			if id := dotUnquote(t.text); n.firstLine[id] == 0 {
				n.firstLine[id] = t.line
			}
		}
		if t.kind == tkString {
			// "a" + "b" (+ ...) is one string; keep the newlines of what
			// was joined after it so later lines keep their numbers.
			var newlines string
			for {
				plus := nextSolid(k)
				if plus < 0 || toks[plus].kind != tkPunct || toks[plus].text != "+" {
					break
				}
				next := nextSolid(plus)
				if next < 0 || toks[next].kind != tkString || !strings.HasSuffix(t.text, `"`) {
					break
				}
				for _, skipped := range toks[k+1 : next] {
					newlines += strings.Repeat("\n", strings.Count(skipped.text, "\n"))
				}
				t.text = t.text[:len(t.text)-1] + toks[next].text[1:]
				k = next
			}
			b.WriteString(t.text)
			b.WriteString(newlines)
			continue
		}
		b.WriteString(t.text)
	}
	n.src = b.String()
	if !strings.HasSuffix(n.src, "\n") {
		n.src += "\n"
	}
	return n
}

// edgeLabelPos finds the label value of the edge statement whose edge
// operator is toks[k]: past the rest of the chain (a -> b -> c) to the
// attribute lists that follow, where the last label wins as in label. It
// gives up (zero) on a subgraph end or anything it does not expect.
func edgeLabelPos(toks []dotToken, k int, nextSolid func(int) int) dotPos {
	isValue := func(i int) bool {
		return i >= 0 && (toks[i].kind == tkID || toks[i].kind == tkString || toks[i].kind == tkHTML)
	}
	isPunct := func(i int, p string) bool { return i >= 0 && toks[i].kind == tkPunct && toks[i].text == p }
	j := k
	for {
		d := nextSolid(j) // the edge's destination
		if !isValue(d) {
			return dotPos{}
		}
		j = d
		for isPunct(nextSolid(j), ":") { // a port, node:port or node:port:compass
			if p := nextSolid(nextSolid(j)); isValue(p) {
				j = p
			} else {
				return dotPos{}
			}
		}
		if n := nextSolid(j); n >= 0 && toks[n].kind == tkEdgeOp {
			j = n
			continue
		}
		break
	}
	var at dotPos
	for n := nextSolid(j); isPunct(n, "["); n = nextSolid(n) {
		for n++; n < len(toks) && !isPunct(n, "]"); n++ {
			if isValue(n) && dotUnquote(toks[n].text) == "label" && isPunct(nextSolid(n), "=") {
				if v := nextSolid(nextSolid(n)); isValue(v) {
					at, n = dotPos{line: toks[v].line, col: toks[v].col}, v
				}
			}
		}
		if n >= len(toks) {
			break
		}
	}
	return at
}

// dotUnquote turns a DOT ID into its value: quotes are removed with the
// escapes \" and \\ and backslash-newline continuations; the brackets of an
// HTML string are removed; a bare ID is itself.
func dotUnquote(s string) string {
	switch {
	case len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"':
		s = s[1 : len(s)-1]
		if !strings.Contains(s, `\`) {
			return s
		}
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			if s[i] != '\\' || i+1 == len(s) {
				b.WriteByte(s[i])
				continue
			}
			switch next := s[i+1]; {
			case next == '"' || next == '\\':
				b.WriteByte(next)
				i++
			case next == '\n':
				i++
			case next == '\r' && i+2 < len(s) && s[i+2] == '\n':
				i += 2
			default:
				b.WriteByte('\\')
			}
		}
		return b.String()
	case len(s) >= 2 && s[0] == '<' && s[len(s)-1] == '>':
		return s[1 : len(s)-1]
	}
	return s
}

// readDOT parses a DOT digraph into nodes and labelled edges. Errors carry
// the file name and, where known, the line.
func readDOT(name string, data []byte) (*dotGraph, error) {
	src, stand := hideReplacementChar(string(data))
	g, err := readHiddenDOT(name, src)
	if stand == "" {
		return g, err
	}
	back := func(s string) string { return strings.ReplaceAll(s, stand, "\uFFFD") }
	if err != nil {
		if le, ok := err.(*LoadError); ok {
			le.Msg = back(le.Msg)
		}
		return nil, err
	}
	lines := make(map[string]int, len(g.nodeLine))
	for k, v := range g.nodeLine {
		lines[back(k)] = v
	}
	g.nodeLine = lines
	for k := range g.nodes {
		g.nodes[k] = back(g.nodes[k])
	}
	for k := range g.edges {
		e := &g.edges[k]
		e.from, e.to, e.label = back(e.from), back(e.to), back(e.label)
	}
	return g, nil
}

// hideReplacementChar swaps U+FFFD, which Graphviz accepts in IDs and
// strings like any other character but gographviz's lexer takes for a
// decoding failure, for a private-use character the source does not
// contain, which readDOT swaps back in the names it returns. It returns
// the stand-in, or "" when the source has no U+FFFD (or, absurdly, every
// private-use character).
func hideReplacementChar(src string) (string, string) {
	if !strings.Contains(src, "\uFFFD") {
		return src, ""
	}
	for r := rune(0xE000); r <= 0xF8FF; r++ {
		if stand := string(r); !strings.Contains(src, stand) {
			return strings.ReplaceAll(src, "\uFFFD", stand), stand
		}
	}
	return src, ""
}

func readHiddenDOT(name string, src string) (*dotGraph, error) {
	n := normalizeDOT(src)
	if n.first == nil {
		return nil, &LoadError{Path: name, Msg: "empty file"}
	}
	switch strings.ToLower(n.first.text) {
	case "digraph", "graph", "strict":
	default:
		return nil, &LoadError{Path: name, Line: n.first.line,
			Msg: fmt.Sprintf("not a DOT digraph: it starts with %q, want \"digraph {\" (or a JSON model starting with '{')", clip(n.first.text))}
	}
	g, err := parseDOT(n.src)
	if err != nil {
		return nil, dotSyntaxError(name, err)
	}
	if g.Type != ast.DIGRAPH {
		return nil, &LoadError{Path: name, Line: n.first.line, Msg: "not a digraph: the graph is undirected (\"graph\"); a model is a \"digraph\" with \"->\" edges"}
	}
	w := &dotWalker{name: name, lines: n.edgeLines, labels: n.edgeLabel, g: &dotGraph{nodeLine: map[string]int{}}, seen: map[string]bool{}, firstLine: n.firstLine}
	if err := w.stmts(g.StmtList, ""); err != nil {
		return nil, err
	}
	if w.arrows != len(n.edgeLines) {
		// The lexer and gographviz disagree on the edges: do not guess lines.
		for k := range w.g.edges {
			w.g.edges[k].line = 0
			w.g.edges[k].labelAt = dotPos{}
		}
	}
	return w.g, nil
}

// parseDOT calls gographviz, turning a panic in the generated parser into an error.
func parseDOT(src string) (g *ast.Graph, err error) {
	defer func() {
		if r := recover(); r != nil {
			g, err = nil, fmt.Errorf("the DOT parser failed: %v", r)
		}
	}()
	return gographviz.ParseString(src)
}

type dotWalker struct {
	name      string
	lines     []int
	labels    []dotPos // parallel to lines
	arrows    int      // edge operators met so far
	g         *dotGraph
	seen      map[string]bool
	firstLine map[string]int
}

// node records a node ID (unquoted) and returns it.
func (w *dotWalker) node(id ast.ID) string {
	s := dotUnquote(string(id))
	if !w.seen[s] {
		w.seen[s] = true
		w.g.nodes = append(w.g.nodes, s)
		w.g.nodeLine[s] = w.firstLine[s]
	}
	return s
}

// stmts walks a statement list in source order; edgeLabel is the label set
// by an enclosing `edge [label=...]` default, if any.
func (w *dotWalker) stmts(list ast.StmtList, edgeLabel string) error {
	hasDefault := edgeLabel != ""
	for _, st := range list {
		switch s := st.(type) {
		case *ast.NodeStmt:
			w.node(s.NodeID.ID)
		case ast.EdgeAttrs:
			if l, ok, _ := label(ast.AttrList(s)); ok {
				edgeLabel, hasDefault = l, true
			}
		case *ast.SubGraph:
			if err := w.stmts(s.StmtList, edgeLabel); err != nil {
				return err
			}
		case *ast.EdgeStmt:
			if err := w.edge(s, edgeLabel, hasDefault); err != nil {
				return err
			}
		}
	}
	return nil
}

// endpoint returns the nodes an edge end stands for: one node, or every
// node of a subgraph (whose own statements are walked first).
func (w *dotWalker) endpoint(loc ast.Location, edgeLabel string) ([]string, error) {
	switch l := loc.(type) {
	case *ast.NodeID:
		return []string{w.node(l.ID)}, nil
	case *ast.SubGraph:
		mark := map[string]bool{}
		var ids []string
		var collect func(ast.StmtList)
		collect = func(list ast.StmtList) {
			for _, st := range list {
				var locs []ast.Location
				switch s := st.(type) {
				case *ast.NodeStmt:
					locs = append(locs, s.NodeID)
				case *ast.EdgeStmt:
					locs = append(locs, s.Source)
					for _, rh := range s.EdgeRHS {
						locs = append(locs, rh.Destination)
					}
				case *ast.SubGraph:
					collect(s.StmtList)
				}
				for _, l := range locs {
					switch l := l.(type) {
					case *ast.NodeID:
						if id := dotUnquote(string(l.ID)); !mark[id] {
							mark[id] = true
							ids = append(ids, id)
						}
					case *ast.SubGraph:
						collect(l.StmtList)
					}
				}
			}
		}
		if err := w.stmts(l.StmtList, edgeLabel); err != nil {
			return nil, err
		}
		collect(l.StmtList)
		return ids, nil
	}
	return nil, fmt.Errorf("%s: unexpected edge end %T", w.name, loc)
}

func (w *dotWalker) edge(s *ast.EdgeStmt, edgeLabel string, hasDefault bool) error {
	lbl, has, html := label(s.Attrs)
	own := has
	if !has {
		// A default's HTML form is not tracked: droidstar's own DOT never
		// sets one, and LearnLib's and the automata wiki's label edges one by one.
		lbl, has = edgeLabel, hasDefault
	}
	from, err := w.endpoint(s.Source, edgeLabel)
	if err != nil {
		return err
	}
	for _, rh := range s.EdgeRHS {
		line, at := 0, dotPos{}
		if w.arrows < len(w.lines) {
			line = w.lines[w.arrows]
			if own {
				at = w.labels[w.arrows]
			}
		}
		w.arrows++
		if rh.Op != ast.DIRECTED {
			return &LoadError{Path: w.name, Line: line, Msg: "undirected edge \"--\" in a digraph; use \"->\""}
		}
		to, err := w.endpoint(rh.Destination, edgeLabel)
		if err != nil {
			return err
		}
		for _, f := range from {
			for _, t := range to {
				w.g.edges = append(w.g.edges, dotEdge{from: f, to: t, label: lbl, hasLabel: has, html: html && own, line: line, labelAt: at})
			}
		}
		from = to
	}
	return nil
}

// label returns the (last) label attribute of an attribute list,
// unquoted, and whether it was an HTML string (<...>).
func label(attrs ast.AttrList) (val string, found, html bool) {
	for _, alist := range attrs {
		for _, a := range alist {
			if dotUnquote(string(a.Field)) == "label" {
				v := string(a.Value)
				val, found, html = dotUnquote(v), true, strings.HasPrefix(v, "<")
			}
		}
	}
	return val, found, html
}

// dotSyntaxError rewrites gographviz's parser error ("Error in S115:
// ;(7,;), Pos(offset=..., line=360, column=36), expected one of: ] , id")
// as "name: line 360, column 36: syntax error at ";", expected one of ...".
// The error type lives in an internal package of gographviz, so its fields
// are read by reflection, falling back to the raw message.
func dotSyntaxError(name string, err error) error {
	v := reflect.ValueOf(err)
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return &LoadError{Path: name, Msg: "DOT syntax error: " + err.Error()}
	}
	tok := v.FieldByName("ErrorToken")
	if !tok.IsValid() || tok.Kind() != reflect.Pointer || tok.IsNil() {
		return &LoadError{Path: name, Msg: "DOT syntax error: " + err.Error()}
	}
	t := tok.Elem()
	lit, pos := t.FieldByName("Lit"), t.FieldByName("Pos")
	if !lit.IsValid() || lit.Kind() != reflect.Slice || !pos.IsValid() || pos.Kind() != reflect.Struct {
		return &LoadError{Path: name, Msg: "DOT syntax error: " + err.Error()}
	}
	line, col := pos.FieldByName("Line"), pos.FieldByName("Column")
	if !line.IsValid() || !line.CanInt() || !col.IsValid() || !col.CanInt() {
		return &LoadError{Path: name, Msg: "DOT syntax error: " + err.Error()}
	}
	at := "end of file"
	switch b := string(lit.Bytes()); {
	case b == "":
	case b[0] == '"' && (len(b) == 1 || b[len(b)-1] != '"'):
		at = "an unterminated string"
	default:
		first, _, _ := strings.Cut(b, "\n")
		at = fmt.Sprintf("%q", clip(first))
	}
	msg := "DOT syntax error at " + at
	if inner := v.FieldByName("Err"); inner.IsValid() && !inner.IsNil() {
		msg += fmt.Sprintf(": %v", inner.Interface())
	} else if exp := v.FieldByName("ExpectedTokens"); exp.IsValid() && exp.Kind() == reflect.Slice && exp.Len() > 0 {
		var want []string
		for k := 0; k < exp.Len(); k++ {
			switch e := exp.Index(k).String(); e {
			case "id":
				want = append(want, "an ID")
			case "$":
				want = append(want, "end of file")
			case "graphx":
				want = append(want, `"graph"`)
			default:
				want = append(want, fmt.Sprintf("%q", e))
			}
		}
		msg += ", want " + strings.Join(want, " or ")
	}
	return &LoadError{Path: name, Line: int(line.Int()), Col: int(col.Int()), Msg: msg}
}

// clip shortens a piece of source text quoted in an error.
func clip(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}
