package export

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode"

	"github.com/droidstar/droidstar/internal/model"
)

// Mermaid renders the model's picture (the graph TypestateDOT draws) as a
// Mermaid stateDiagram-v2, which GitHub and GitLab render in Markdown:
//
//	stateDiagram-v2
//	    direction LR
//	    [*] --> s0
//	    s1: exec
//	    s0 --> s1: exec
//	    s1 --> s5: ⇒ postexec
//
// Mermaid cannot style single transitions, so the kinds are told apart by
// their labels: a callin by its name, a callback by "⇒ name", a wait that
// timed out and changed state by "(quiet)", an err transition (with
// opts.ShowErrors) by "✗ name". An unnamed state gets the shortest way to
// reach it as its description (callbacks again marked ⇒); a named state is
// shown by its name; the error sink is a red state "err". Parallel
// transitions are written one per line. Labels are escaped with Mermaid's
// #code; entities wherever Mermaid's grammar gives a character a meaning.
func Mermaid(d *model.Document, opts PictureOptions) ([]byte, error) {
	var buf bytes.Buffer
	if err := mermaid(&buf, d, opts); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// mermaid writes Mermaid's text to w as it is made.
func mermaid(w io.Writer, d *model.Document, opts PictureOptions) error {
	v, err := newView(d)
	if err != nil {
		return err
	}
	// Mermaid lays out its own diagram from one line per transition.
	opts.Bundle = false
	gr, err := v.graph(opts)
	if err != nil {
		return err
	}
	ids := v.mermaidIDs()
	b := bufio.NewWriter(w)
	kind := "Mealy machine"
	if gr.closure {
		kind = "callback typestate"
	}
	fmt.Fprintf(b, "%%%% %s\n", mermaidComment(strings.TrimSpace(gr.title+" "+kind)+", drawn by droidstar"))
	if gr.closure {
		b.WriteString("%% transitions: callin, ⇒ callback, (quiet) a wait that timed out and changed state, ✗ err\n")
	}
	b.WriteString("stateDiagram-v2\n    direction LR\n")
	fmt.Fprintf(b, "    [*] --> %s\n", ids[gr.initial])
	hasSink := false
	for _, n := range gr.nodes {
		id := ids[n.q]
		switch {
		case n.sink:
			hasSink = true
			fmt.Fprintf(b, "    state \"%s\" as %s\n", mermaidText("err"), id)
		case n.named || id != v.ids[n.q]:
			fmt.Fprintf(b, "    state \"%s\" as %s\n", mermaidText(n.name), id)
		case len(n.path) > 0:
			fmt.Fprintf(b, "    %s: %s\n", id, mermaidText(pathText(n.path)))
		}
	}
	for _, e := range gr.edges {
		for _, l := range e.labels {
			switch e.kind {
			case kindCallback:
				l = "⇒ " + l
			case kindQuiet:
				l = "(quiet)"
			case kindErr:
				l = "✗ " + l
			}
			fmt.Fprintf(b, "    %s --> %s: %s\n", ids[e.from], ids[e.to], mermaidText(l))
		}
	}
	if hasSink {
		b.WriteString("    classDef err fill:#fee,stroke:#c00,color:#c00\n")
		for _, n := range gr.nodes {
			if n.sink {
				fmt.Fprintf(b, "    class %s err\n", ids[n.q])
			}
		}
	}
	return b.Flush()
}

var (
	mermaidBareID = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)
	// Words Mermaid's state-diagram lexer reads as keywords where a state
	// ID is expected (it matches case-insensitively, and "default" even as
	// a prefix).
	mermaidKeyword = map[string]bool{
		"state": true, "note": true, "class": true, "classdef": true, "direction": true,
		"end": true, "hide": true, "scale": true, "acctitle": true, "accdescr": true,
		"statediagram": true, "as": true, "left": true, "right": true, "of": true,
	}
	// The lexer's first rules turn any line with "direction TB|BT|RL|LR"
	// into a direction statement, wherever it appears.
	mermaidDirection = regexp.MustCompile(`(?i)directio(n)`)
)

// mermaidIDs gives every machine state a Mermaid state ID: its document ID
// when Mermaid reads that as an ID, else q0, q1, ... (by machine state).
func (v *view) mermaidIDs() []string {
	ids := make([]string, len(v.ids))
	taken := map[string]bool{}
	ok := func(id string) bool {
		l := strings.ToLower(id)
		return mermaidBareID.MatchString(id) && !mermaidKeyword[l] && !strings.HasPrefix(l, "default") && !taken[l]
	}
	for q, id := range v.ids {
		if ok(id) {
			ids[q] = id
			taken[strings.ToLower(id)] = true
		}
	}
	for q := range ids {
		if ids[q] != "" {
			continue
		}
		id := fmt.Sprintf("q%d", q)
		for !ok(id) {
			id += "_"
		}
		ids[q] = id
		taken[strings.ToLower(id)] = true
	}
	return ids
}

// mermaidText escapes text for a transition label, a state description or
// a quoted state name. Mermaid's lexer ends a label at ':', ';' or a line
// break, reads '#' and '%%' as comments and "..." as a string, and renders
// labels as HTML; every character outside a plain set is written as a
// #code; entity, which Mermaid decodes after parsing.
func mermaidText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteByte(' ')
		case unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune(" _.,()/|+=!?'-[]@$~^*", r):
			b.WriteRune(r)
		case r > 0x7f && unicode.IsPrint(r):
			b.WriteRune(r)
		default:
			fmt.Fprintf(&b, "#%d;", r)
		}
	}
	return mermaidDirection.ReplaceAllStringFunc(b.String(), func(m string) string {
		return m[:len(m)-1] + fmt.Sprintf("#%d;", m[len(m)-1])
	})
}

// mermaidComment makes text safe for a %% comment line: one line, no "%"
// (Mermaid reads "%%{" anywhere as the start of a directive, up to the
// next "}%%"; a full-width ％ stands in), and no "direction" that the
// lexer would take for a statement.
func mermaidComment(s string) string {
	s = strings.NewReplacer("\n", " ", "\r", " ", "%", "％").Replace(s)
	return mermaidDirection.ReplaceAllString(s, "directio-n")
}
