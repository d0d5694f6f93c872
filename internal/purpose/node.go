package purpose

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"
)

// Helpers over go-yaml's AST. The purpose is decoded from the AST by hand,
// not with yaml.Unmarshal, because every message must point at the exact
// node that is wrong and name its field path, and because the reflection
// decoder's messages (Go type names, source excerpts) mean nothing to a
// user writing YAML.

// tokPos is the position of a token; a missing token gives the zero Pos,
// which callers replace with something better or 1:1.
func tokPos(tk *token.Token) Pos {
	if tk == nil || tk.Position == nil {
		return Pos{}
	}
	return Pos{Line: tk.Position.Line, Col: tk.Position.Column}
}

// nodeToken is n.GetToken() for any node, including typed nil nodes and
// go-yaml node types whose GetToken dereferences a nil child (a document
// without a body does).
func nodeToken(n ast.Node) (tk *token.Token) {
	if n == nil {
		return nil
	}
	defer func() {
		if recover() != nil {
			tk = nil
		}
	}()
	return n.GetToken()
}

// nodePos is where a user would look for a node. A block map's own token is
// the colon of its first entry, so a map is placed at its first key, which is
// also where a list item written as "- key: value" starts.
func nodePos(n ast.Node) Pos {
	var p Pos
	switch v := n.(type) {
	case nil:
	case *ast.MappingNode:
		if v == nil {
			break
		}
		if !v.IsFlowStyle && len(v.Values) > 0 && v.Values[0] != nil {
			p = nodePos(v.Values[0].Key)
		}
		if p == (Pos{}) {
			p = tokPos(v.Start)
		}
	case *ast.MappingValueNode:
		if v == nil {
			break
		}
		p = nodePos(v.Key)
		if p == (Pos{}) {
			p = tokPos(v.Start)
		}
	case *ast.DocumentNode:
		if v == nil {
			break
		}
		p = tokPos(v.Start)
		if p == (Pos{}) && v.Body != nil {
			p = nodePos(v.Body)
		}
	default:
		p = tokPos(nodeToken(n))
	}
	return p
}

// kindOf names the YAML type of a node for messages such as
// "want an integer, got string \"two\"".
func kindOf(n ast.Node) string {
	switch v := n.(type) {
	case nil, *ast.NullNode:
		return "null"
	case *ast.StringNode:
		return "string " + quoteShort(v.Value)
	case *ast.LiteralNode:
		s := ""
		if v.Value != nil {
			s = v.Value.Value
		}
		return "string " + quoteShort(s)
	case *ast.IntegerNode:
		return "integer " + tokenText(v.Token)
	case *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
		return "float " + tokenText(nodeToken(n))
	case *ast.BoolNode:
		return "bool " + tokenText(v.Token)
	case *ast.MappingNode:
		return "a map"
	case *ast.SequenceNode:
		return "a list"
	case *ast.TagNode:
		return "tag " + tokenText(v.Start)
	default:
		return "a " + strings.ToLower(n.Type().String())
	}
}

func tokenText(tk *token.Token) string {
	if tk == nil {
		return "?"
	}
	return shorten(tk.Value)
}

// quoteShort quotes a string for a message, cut so that a pasted paragraph
// does not flood the terminal.
func quoteShort(s string) string { return strconv.Quote(shorten(s)) }

func shorten(s string) string {
	const max = 40
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max]) + "..."
}

// anchorDef is one "&name" in the file.
type anchorDef struct {
	pos  Pos
	node ast.Node
}

// collectAnchors records every anchor so that aliases can be resolved. YAML
// lets an anchor name be redefined; an alias refers to the closest
// definition before it, which is why definitions keep their positions.
func collectAnchors(n ast.Node, into map[string][]anchorDef, depth int) {
	if n == nil || depth > maxDepth {
		return
	}
	switch v := n.(type) {
	case *ast.DocumentNode:
		if v != nil {
			collectAnchors(v.Body, into, depth+1)
		}
	case *ast.MappingNode:
		if v == nil {
			return
		}
		for _, mv := range v.Values {
			collectAnchors(mv, into, depth+1)
		}
	case *ast.MappingValueNode:
		if v == nil {
			return
		}
		collectAnchors(v.Key, into, depth+1)
		collectAnchors(v.Value, into, depth+1)
	case *ast.MappingKeyNode:
		if v != nil {
			collectAnchors(v.Value, into, depth+1)
		}
	case *ast.SequenceNode:
		if v == nil {
			return
		}
		for _, x := range v.Values {
			collectAnchors(x, into, depth+1)
		}
	case *ast.TagNode:
		if v != nil {
			collectAnchors(v.Value, into, depth+1)
		}
	case *ast.AnchorNode:
		if v == nil {
			return
		}
		if name := nameOf(v.Name); name != "" {
			into[name] = append(into[name], anchorDef{pos: tokPos(v.Start), node: v.Value})
		}
		collectAnchors(v.Value, into, depth+1)
	}
}

// maxDepth bounds the recursion over the AST. A purpose is at most five
// levels deep; anything far deeper is garbage and is reported by the schema
// walk as a wrong type long before this limit matters.
const maxDepth = 100

// nameOf is the text of an anchor's or alias's name node.
func nameOf(n ast.Node) string {
	if s, ok := n.(*ast.StringNode); ok && s != nil {
		return s.Value
	}
	return tokenText(nodeToken(n))
}

// before reports whether a comes strictly before b in the file.
func (a Pos) before(b Pos) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
}

// resolve strips anchors and tags and follows aliases, so that the schema
// walk sees plain maps, lists and scalars. A "!!str" tag turns any scalar
// into a string, as YAML says; other tags are ignored. It reports an
// unknown alias and returns false, and the caller skips the node. A nil
// node stands for null and resolves to itself.
func (d *decoder) resolve(n ast.Node, path string) (ast.Node, bool) {
	// The bound stops alias chains that point back at themselves.
	for i := 0; i < 2*maxDepth; i++ {
		switch v := n.(type) {
		case *ast.AnchorNode:
			if v == nil {
				return nil, true
			}
			n = v.Value
		case *ast.AliasNode:
			if v == nil {
				return nil, true
			}
			name := nameOf(v.Value)
			at := nodePos(v)
			var target *anchorDef
			for j := range d.anchors[name] {
				if def := &d.anchors[name][j]; def.pos.before(at) {
					target = def
				}
			}
			if target == nil {
				d.errAt(at, path, "unknown alias *%s (no anchor &%s before it)", name, name)
				return nil, false
			}
			n = target.node
		case *ast.TagNode:
			if v == nil {
				return nil, true
			}
			if tokenText(v.Start) == "!!str" {
				return strNode(v), true
			}
			n = v.Value
		case *ast.MappingKeyNode:
			if v == nil {
				return nil, true
			}
			n = v.Value
		default:
			return n, true
		}
	}
	d.errAt(nodePos(n), path, "aliases nested too deeply")
	return nil, false
}

// strNode makes the string a "!!str" tag asks for out of the scalar it
// tags; a tag on a map or a list is left for the type check to reject.
func strNode(t *ast.TagNode) ast.Node {
	var start *token.Position
	if t.Start != nil {
		start = t.Start.Position
	}
	var tk *token.Token
	switch v := t.Value.(type) {
	case nil, *ast.NullNode:
		tk = &token.Token{Value: "", Position: start}
	case *ast.LiteralNode:
		if v != nil && v.Value != nil {
			return v.Value
		}
		tk = &token.Token{Value: "", Position: start}
	case *ast.MappingNode, *ast.SequenceNode:
		return v
	default:
		tk = nodeToken(v)
	}
	if tk == nil {
		tk = &token.Token{Position: start}
	}
	return &ast.StringNode{BaseNode: &ast.BaseNode{}, Token: tk, Value: tk.Value}
}

// stringValue is the text of a string scalar (plain, quoted or block).
func stringValue(n ast.Node) (string, bool) {
	switch v := n.(type) {
	case *ast.StringNode:
		if v == nil {
			return "", false
		}
		return v.Value, true
	case *ast.LiteralNode:
		if v == nil || v.Value == nil {
			return "", false
		}
		return v.Value.Value, true
	}
	return "", false
}

func isNull(n ast.Node) bool {
	switch v := n.(type) {
	case nil:
		return true
	case *ast.NullNode:
		return v != nil
	}
	return false
}
