package manual

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"
)

// The Markdown the topics are written in is a small subset, the one that
// reads well both on GitHub and in a terminal: headings, paragraphs,
// lists (nested by indentation), fenced code, pipe tables, and inline
// code, bold and links. Render lays it out for a terminal: paragraphs and
// list items are wrapped to the width, code and tables are kept as they
// are (a wrapped command or table row misleads more than a long line),
// headings are flush left and everything else indented under them.

// Style says how Render marks what a terminal can mark.
type Style struct {
	// Width is the column Render wraps at.
	Width int
	// Bold is true on a terminal: headings and **strong** text are bold.
	// Without it the output has no escape codes at all.
	Bold bool
}

// DefaultWidth is the width when the output is not a terminal.
const DefaultWidth = 80

const (
	bodyIndent = "  "
	codeIndent = "    "
	boldOn     = "\x1b[1m"
	boldOff    = "\x1b[0m"
)

// Render writes markdown laid out for people.
func Render(w io.Writer, markdown string, style Style) error {
	if style.Width < 40 {
		style.Width = 40
	}
	var out strings.Builder
	r := renderer{style: style, out: &out}
	r.blocks(strings.Split(stripComments(markdown), "\n"))
	text := strings.TrimRight(out.String(), "\n") + "\n"
	if _, err := io.WriteString(w, text); err != nil {
		return fmt.Errorf("writing the help text: %w", err)
	}
	return nil
}

var comment = regexp.MustCompile(`(?s)<!--.*?-->\n?`)

func stripComments(s string) string { return comment.ReplaceAllString(s, "") }

type renderer struct {
	style Style
	out   *strings.Builder
	// blank says the last thing written ends in a blank line, so the next
	// block needs no separator.
	blank bool
}

func (r *renderer) separate() {
	if !r.blank && r.out.Len() > 0 {
		r.out.WriteString("\n")
	}
	r.blank = true
}

func (r *renderer) line(s string) {
	r.out.WriteString(strings.TrimRight(s, " "))
	r.out.WriteString("\n")
	r.blank = false
}

func (r *renderer) blocks(lines []string) {
	for i := 0; i < len(lines); {
		l := lines[i]
		trimmed := strings.TrimSpace(l)
		switch {
		case trimmed == "":
			i++
		case strings.HasPrefix(trimmed, "```"):
			i = r.code(lines, i)
		case strings.HasPrefix(l, "#"):
			r.heading(l)
			i++
		case strings.HasPrefix(trimmed, "|"):
			i = r.table(lines, i)
		case listMarker(l) != "":
			i = r.list(lines, i)
		default:
			i = r.paragraph(lines, i)
		}
	}
}

func (r *renderer) heading(l string) {
	level := len(l) - len(strings.TrimLeft(l, "#"))
	text := r.inline(strings.TrimSpace(l[level:]))
	if level == 1 {
		text = strings.ToUpper(text)
	}
	if r.style.Bold {
		text = boldOn + text + boldOff
	}
	r.separate()
	indent := ""
	if level > 2 {
		indent = bodyIndent
	}
	r.line(indent + text)
	r.blank = false
}

// code copies a fenced block as it is, indented, without its fences.
func (r *renderer) code(lines []string, i int) int {
	fence := strings.TrimSpace(lines[i])
	fence = fence[:len(fence)-len(strings.TrimLeft(fence, "`"))]
	r.separate()
	for i++; i < len(lines); i++ {
		if strings.HasPrefix(strings.TrimSpace(lines[i]), fence) {
			i++
			break
		}
		r.line(codeIndent + strings.TrimRight(lines[i], " "))
	}
	r.separate()
	return i
}

// table lays a pipe table out in aligned columns; it is not wrapped.
func (r *renderer) table(lines []string, i int) int {
	var rows [][]string
	for ; i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), "|"); i++ {
		cells := splitRow(lines[i])
		if isRule(cells) {
			continue
		}
		for k := range cells {
			cells[k] = r.inline(cells[k])
		}
		rows = append(rows, cells)
	}
	var widths []int
	for _, row := range rows {
		for k, c := range row {
			if k == len(widths) {
				widths = append(widths, 0)
			}
			widths[k] = max(widths[k], visibleWidth(c))
		}
	}
	r.separate()
	for n, row := range rows {
		var b strings.Builder
		b.WriteString(bodyIndent)
		for k, c := range row {
			b.WriteString(c)
			if k < len(row)-1 {
				b.WriteString(strings.Repeat(" ", widths[k]-visibleWidth(c)+2))
			}
		}
		r.line(b.String())
		if n == 0 && len(rows) > 1 {
			var rule strings.Builder
			rule.WriteString(bodyIndent)
			for k, wd := range widths {
				rule.WriteString(strings.Repeat("-", wd))
				if k < len(widths)-1 {
					rule.WriteString("  ")
				}
			}
			r.line(rule.String())
		}
	}
	r.separate()
	return i
}

func splitRow(l string) []string {
	l = strings.TrimSpace(l)
	l = strings.TrimPrefix(l, "|")
	l = strings.TrimSuffix(l, "|")
	// A pipe inside inline code is the code's: split outside backticks,
	// and read \| as a pipe.
	var cells []string
	var cur strings.Builder
	inCode := false
	for k := 0; k < len(l); k++ {
		c := l[k]
		switch {
		case c == '\\' && k+1 < len(l) && l[k+1] == '|':
			cur.WriteByte('|')
			k++
		case c == '`':
			inCode = !inCode
			cur.WriteByte(c)
		case c == '|' && !inCode:
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

func isRule(cells []string) bool {
	for _, c := range cells {
		if strings.Trim(c, "-: ") != "" {
			return false
		}
	}
	return true
}

// listMarker returns a list item's marker ("- ", "1. "), or "".
var numbered = regexp.MustCompile(`^\d+\. `)

func listMarker(l string) string {
	t := strings.TrimLeft(l, " ")
	if strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") {
		return t[:2]
	}
	return numbered.FindString(t)
}

func indentOf(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

// list renders consecutive items; an item's continuation lines are those
// indented past its marker's column, and a more indented item nests.
func (r *renderer) list(lines []string, i int) int {
	r.separate()
	for i < len(lines) {
		l := lines[i]
		marker := listMarker(l)
		if marker == "" {
			break
		}
		depth := indentOf(l)
		text := []string{strings.TrimSpace(strings.TrimLeft(l, " ")[len(marker):])}
		for i++; i < len(lines); i++ {
			next := lines[i]
			if strings.TrimSpace(next) == "" || listMarker(next) != "" || indentOf(next) <= depth ||
				strings.HasPrefix(strings.TrimSpace(next), "```") {
				break
			}
			text = append(text, strings.TrimSpace(next))
		}
		lead := bodyIndent + strings.Repeat(" ", depth) + strings.TrimSpace(marker) + " "
		hang := strings.Repeat(" ", utf8.RuneCountInString(lead))
		r.wrap(r.inline(strings.Join(text, " ")), lead, hang)
		// A blank line between items of one list keeps them one list.
		if i+1 < len(lines) && strings.TrimSpace(lines[i]) == "" && listMarker(lines[i+1]) != "" {
			i++
		}
	}
	r.separate()
	return i
}

func (r *renderer) paragraph(lines []string, i int) int {
	var text []string
	quote := strings.HasPrefix(strings.TrimSpace(lines[i]), ">")
	for ; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "```") || strings.HasPrefix(lines[i], "#") ||
			strings.HasPrefix(l, "|") || listMarker(lines[i]) != "" {
			break
		}
		if quote {
			l = strings.TrimSpace(strings.TrimPrefix(l, ">"))
		}
		text = append(text, l)
	}
	r.separate()
	indent := bodyIndent
	if quote {
		indent += "| "
	}
	r.wrap(r.inline(strings.Join(text, " ")), indent, indent)
	r.separate()
	return i
}

// wrap fills text into lines of at most the width, the first starting
// with lead and the rest with hang. A word longer than a line gets a line
// of its own.
func (r *renderer) wrap(text, lead, hang string) {
	var b strings.Builder
	b.WriteString(lead)
	col := utf8.RuneCountInString(lead)
	fresh := true
	for _, word := range strings.Fields(text) {
		wd := visibleWidth(word)
		if !fresh && col+1+wd > r.style.Width {
			r.line(b.String())
			b.Reset()
			b.WriteString(hang)
			col = utf8.RuneCountInString(hang)
			fresh = true
		}
		if !fresh {
			b.WriteByte(' ')
			col++
		}
		b.WriteString(word)
		col += wd
		fresh = false
	}
	r.line(b.String())
}

var (
	link   = regexp.MustCompile(`\[([^\]]+)\]\(([^)]+)\)`)
	strong = regexp.MustCompile(`\*\*([^*]+)\*\*`)
	escape = regexp.MustCompile(`\x1b\[[0-9;]*m`)
)

// inline renders links as their text (and the address when it is one a
// reader can open), strong text as bold or plain, and inline code as the
// code itself: in a terminal the backticks are noise.
func (r *renderer) inline(s string) string {
	s = link.ReplaceAllStringFunc(s, func(m string) string {
		parts := link.FindStringSubmatch(m)
		text, target := parts[1], parts[2]
		switch {
		case strings.HasPrefix(target, "#"), text == target, strings.Trim(text, "`") == target:
			return text
		default:
			return text + " (" + target + ")"
		}
	})
	s = strong.ReplaceAllStringFunc(s, func(m string) string {
		inner := strings.Trim(m, "*")
		if r.style.Bold {
			return boldOn + inner + boldOff
		}
		return inner
	})
	return strings.ReplaceAll(s, "`", "")
}

func visibleWidth(s string) int { return utf8.RuneCountInString(escape.ReplaceAllString(s, "")) }
