package diff

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/nouns"
)

// The report formats.
const (
	FormatText     = "text"
	FormatMarkdown = "markdown"
	FormatJSON     = "json"
)

// Formats lists the report formats.
func Formats() []string { return []string{FormatText, FormatMarkdown, FormatJSON} }

// Write renders the report in a format.
func (r *Report) Write(format string) ([]byte, error) {
	var buf bytes.Buffer
	if err := r.WriteTo(&buf, format); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteTo writes the report in a format to w; the JSON of large models is
// written list element by list element, not built whole first.
func (r *Report) WriteTo(w io.Writer, format string) error {
	switch format {
	case FormatText:
		_, err := io.WriteString(w, r.Text())
		return err
	case FormatMarkdown:
		_, err := io.WriteString(w, r.Markdown())
		return err
	case FormatJSON:
		return r.WriteJSON(w)
	}
	return fmt.Errorf("unknown format %q (formats: %s)", format, strings.Join(Formats(), ", "))
}

// JSON is the report as indented JSON with a trailing newline.
func (r *Report) JSON() ([]byte, error) {
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteJSON writes the report as indented JSON with a trailing newline.
// The lists that grow with the models (state pairs, unmatched states,
// transitions) are encoded one element at a time into the encoding of the
// rest, so the bytes are those of encoding the whole report at once
// without the whole encoding (twice over: encoding/json indents a copy) in
// memory.
func (r *Report) WriteJSON(w io.Writer) error {
	rest := *r
	rest.States.Pairs, rest.States.OnlyOld, rest.States.OnlyNew = []StatePair{}, []string{}, []string{}
	rest.Transitions.Removed, rest.Transitions.Added, rest.Transitions.Changed = []Change{}, []Change{}, []Change{}
	head, err := encodeJSON(&rest, "")
	if err != nil {
		return err
	}
	lists := []struct {
		key  string
		n    int
		elem func(k int) any
	}{
		{"pairs", len(r.States.Pairs), func(k int) any { return r.States.Pairs[k] }},
		{"only_old", len(r.States.OnlyOld), func(k int) any { return r.States.OnlyOld[k] }},
		{"only_new", len(r.States.OnlyNew), func(k int) any { return r.States.OnlyNew[k] }},
		{"removed", len(r.Transitions.Removed), func(k int) any { return r.Transitions.Removed[k] }},
		{"added", len(r.Transitions.Added), func(k int) any { return r.Transitions.Added[k] }},
		{"changed", len(r.Transitions.Changed), func(k int) any { return r.Transitions.Changed[k] }},
	}
	// The lists are fields of the report's fields: two levels deep, on
	// lines of their own (a newline inside a string is escaped).
	const indent = "    "
	bw := bufio.NewWriter(w)
	for _, l := range lists {
		marker := "\n" + indent + `"` + l.key + `": []`
		at := bytes.Index(head, []byte(marker))
		if at < 0 {
			return fmt.Errorf("JSON report: no %q list", l.key)
		}
		bw.Write(head[:at+len(marker)-2])
		head = head[at+len(marker):]
		if l.n == 0 {
			bw.WriteString("[]")
			continue
		}
		bw.WriteString("[\n")
		for k := 0; k < l.n; k++ {
			e, err := encodeJSON(l.elem(k), indent+"  ")
			if err != nil {
				return err
			}
			bw.WriteString(indent + "  ")
			bw.Write(e[:len(e)-1])
			if k+1 < l.n {
				bw.WriteByte(',')
			}
			bw.WriteByte('\n')
		}
		bw.WriteString(indent + "]")
	}
	bw.Write(head)
	return bw.Flush()
}

// encodeJSON is v encoded as the report is: indented by two spaces after
// prefix, HTML characters as they are, with a trailing newline.
func encodeJSON(v any, prefix string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent(prefix, "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func (r *Report) closure() bool { return r.Semantics == model.SemanticsClosure }

// Verdict is the one-line answer: same or different, and why.
func (r *Report) Verdict() string {
	switch {
	case r.Same:
		return "same: the two models accept the same traces"
	case !r.Alphabet.Same() && r.SameBehaviour:
		return "different: the alphabets differ; on the shared inputs the two models accept the same traces"
	case !r.Alphabet.Same():
		return "different: the alphabets differ, and on the shared inputs the two models accept different traces"
	}
	return "different: the two models accept different traces"
}

func (r *Report) inputWord() string {
	if r.closure() {
		return "callin"
	}
	return "input"
}

func (r *Report) outputWord() string {
	if r.closure() {
		return "callback"
	}
	return "output"
}

// alphabetLines describes the alphabet differences, one per line.
func (r *Report) alphabetLines() []string {
	var lines []string
	add := func(names []string, what, where string) {
		if len(names) == 0 {
			return
		}
		s := ""
		if len(names) > 1 {
			s = "s"
		}
		lines = append(lines, fmt.Sprintf("%s%s %s only in %s", what, s, strings.Join(names, ", "), where))
	}
	a := r.Alphabet
	add(a.InputsOnlyOld, r.inputWord(), "old")
	add(a.InputsOnlyNew, r.inputWord(), "new")
	add(a.OutputsOnlyOld, r.outputWord(), "old")
	add(a.OutputsOnlyNew, r.outputWord(), "new")
	if a.Restricted {
		shared := a.SharedInputs
		if r.closure() {
			shared = minus(shared, []string{mealy.Wait})
		}
		// Compare refuses models with no shared input, so the list is never empty.
		line := "behaviour compared on the shared " + r.inputWord() + "s only: " + strings.Join(shared, ", ")
		if r.closure() {
			line += " (and wait)"
		}
		lines = append(lines, line)
	}
	return lines
}

// traceString renders a trace: callins by name, waits as wait/answer
// (plain Mealy steps as input/output).
func (r *Report) traceString(steps []Step) string {
	parts := make([]string, len(steps))
	for k, s := range steps {
		if r.closure() && s.Input != mealy.Wait && s.Output == mealy.OK {
			parts[k] = s.Input
		} else {
			parts[k] = s.Input + "/" + s.Output
		}
	}
	return strings.Join(parts, " · ")
}

// answerString renders what a model does on one input: "start → err
// (thrown: detail)".
func answerString(input string, t *Transition) string {
	s := input + " → " + t.Output
	if t.Err != nil {
		why := string(t.Err.Kind)
		if t.Err.Detail != "" {
			why += ": " + t.Err.Detail
		}
		s += " (" + why + ")"
	}
	return s
}

// edgeString renders a typestate edge in the notation of the summary:
// --> callin, ==> callback, ..> a quiet wait that changes state; a plain
// Mealy transition as --input/output-->. Anything else (an err, a quiet
// self-loop) is rendered as "from: input → output".
func (r *Report) edgeString(input string, t *Transition) string {
	if !r.closure() {
		return fmt.Sprintf("%s --%s/%s--> %s", t.From, input, t.Output, t.To)
	}
	switch {
	case input != mealy.Wait && t.Output == mealy.OK:
		return fmt.Sprintf("%s --%s--> %s", t.From, input, t.To)
	case input == mealy.Wait && t.Output == mealy.Quiet && t.To != t.From:
		return fmt.Sprintf("%s ..quiet..> %s", t.From, t.To)
	case input == mealy.Wait && t.Output != mealy.Quiet && t.Output != mealy.Err:
		return fmt.Sprintf("%s ==%s==> %s", t.From, t.Output, t.To)
	}
	return t.From + ": " + answerString(input, t)
}

// listLimit is how many state pairs, and transitions of each kind, the
// text and Markdown reports list; the rest are counted ("... and 12 more").
// Only models of hundreds of states reach it; the JSON lists everything.
const listLimit = 1000

func listed[T any](xs []T) []T { return xs[:min(len(xs), listLimit)] }

func (r *Report) matchingLine() string {
	var parts []string
	for _, p := range listed(r.States.Pairs) {
		parts = append(parts, p.Old+"="+p.New)
	}
	line := "states (old=new): " + strings.Join(parts, " ") + andMore(r.States.Pairs)
	if len(parts) == 0 {
		line = "states: none matched"
	}
	if len(r.States.OnlyOld) > 0 {
		line += "; only in old: " + strings.Join(listed(r.States.OnlyOld), " ") + andMore(r.States.OnlyOld)
	}
	if len(r.States.OnlyNew) > 0 {
		line += "; only in new: " + strings.Join(listed(r.States.OnlyNew), " ") + andMore(r.States.OnlyNew)
	}
	return line
}

// andMore counts what listed left out: " ... and 12 more", or "".
func andMore[T any](xs []T) string {
	if len(xs) <= listLimit {
		return ""
	}
	return fmt.Sprintf(" ... and %d more", len(xs)-listLimit)
}

func modelLine(which string, mi ModelInfo) string {
	s := which + ": "
	if mi.File != "" {
		s += mi.File + ": "
	}
	s += mi.Name
	if mi.Name == "" {
		s += "(unnamed model)"
	}
	if mi.Class != "" && mi.Class != mi.Name {
		s += " (" + mi.Class + ")"
	}
	if mi.SDK > 0 {
		s += fmt.Sprintf(", API %d", mi.SDK)
	}
	return s + ", " + nouns.Count(mi.States, "state") + ", " + nouns.Count(mi.Transitions, "transition")
}

// Text is the report for a terminal or a CI log.
func (r *Report) Text() string {
	var b strings.Builder
	fmt.Fprintln(&b, modelLine("old", r.Old))
	fmt.Fprintln(&b, modelLine("new", r.New))
	fmt.Fprintln(&b, r.Verdict())
	for _, l := range r.alphabetLines() {
		fmt.Fprintln(&b, "  "+l)
	}
	if r.Same {
		return b.String()
	}
	witnessText := func(w Witnesses, accepted, rejected string) {
		fmt.Fprintf(&b, "\ntraces accepted by %s, rejected by %s:", accepted, rejected)
		if w.Total == 0 {
			fmt.Fprintln(&b, " none")
			return
		}
		if len(w.Traces) < w.Total || w.StoppedAfter > 0 {
			fmt.Fprintf(&b, " %d shortest of %s", len(w.Traces), w.total())
		}
		fmt.Fprintln(&b)
		for k, t := range w.Traces {
			state := t.NewState
			if rejected == "old" {
				state = t.OldState
			}
			fmt.Fprintf(&b, "  %d. %s\n", k+1, r.traceString(t.Trace))
			fmt.Fprintf(&b, "     %s (in %s): %s\n", rejected, state, answerString(t.Trace[len(t.Trace)-1].Input, &t.Other))
		}
	}
	witnessText(r.OldOnly, "old", "new")
	witnessText(r.NewOnly, "new", "old")

	td := r.Transitions
	fmt.Fprintf(&b, "\ntransitions under the best state matching: %d unchanged, %d changed, %d removed, %d added\n",
		td.Unchanged, len(td.Changed), len(td.Removed), len(td.Added))
	fmt.Fprintln(&b, "  "+r.matchingLine())
	more := func(kind string, changes []Change) {
		if len(changes) > listLimit {
			fmt.Fprintf(&b, "  ... and %d more %s\n", len(changes)-listLimit, kind)
		}
	}
	for _, c := range listed(td.Changed) {
		fmt.Fprintf(&b, "  changed: %s  now  %s\n", r.edgeString(c.Input, c.Old), r.edgeString(c.Input, c.New))
	}
	more("changed", td.Changed)
	for _, c := range listed(td.Removed) {
		fmt.Fprintf(&b, "  removed: %s%s\n", r.edgeString(c.Input, c.Old), parenthesise(r.otherNote(c.Input, c.New, "new")))
	}
	more("removed", td.Removed)
	for _, c := range listed(td.Added) {
		fmt.Fprintf(&b, "  added:   %s%s\n", r.edgeString(c.Input, c.New), parenthesise(r.otherNote(c.Input, c.Old, "old")))
	}
	more("added", td.Added)
	return b.String()
}

// otherNote is what the other model does on an edge only one model has:
// "new s3: start → err (thrown: ...)", or "" when its state is unmatched
// or the input is not in its alphabet.
func (r *Report) otherNote(input string, t *Transition, which string) string {
	if t == nil {
		return ""
	}
	return which + " " + t.From + ": " + answerString(input, t) + r.toNote(input, t)
}

// toNote names the target of a quiet wait that moved, which answerString
// does not show.
func (r *Report) toNote(input string, t *Transition) string {
	if r.closure() && input == mealy.Wait && t.Output == mealy.Quiet && t.To != t.From {
		return ", to " + t.To
	}
	if !r.closure() {
		return ", to " + t.To
	}
	return ""
}

func parenthesise(s string) string {
	if s == "" {
		return ""
	}
	return "  (" + s + ")"
}

// Markdown is the report for a pull request or a CI summary page.
func (r *Report) Markdown() string {
	var b strings.Builder
	title := r.Old.Name
	if r.New.Name != r.Old.Name {
		title += " → " + r.New.Name
	}
	fmt.Fprintf(&b, "## droidstar diff: %s\n\n", mdText(title))
	fmt.Fprintln(&b, "| | old | new |")
	fmt.Fprintln(&b, "|---|---|---|")
	if r.Old.File != "" || r.New.File != "" {
		fmt.Fprintf(&b, "| file | %s | %s |\n", mdCode(r.Old.File), mdCode(r.New.File))
	}
	fmt.Fprintf(&b, "| model | %s | %s |\n", mdText(r.Old.Name), mdText(r.New.Name))
	if r.Old.Class != "" || r.New.Class != "" {
		fmt.Fprintf(&b, "| class | %s | %s |\n", mdCode(r.Old.Class), mdCode(r.New.Class))
	}
	if r.Old.SDK > 0 || r.New.SDK > 0 {
		fmt.Fprintf(&b, "| API level | %s | %s |\n", sdk(r.Old.SDK), sdk(r.New.SDK))
	}
	fmt.Fprintf(&b, "| states | %d | %d |\n", r.Old.States, r.New.States)
	fmt.Fprintf(&b, "| transitions | %d | %d |\n\n", r.Old.Transitions, r.New.Transitions)
	verdict, rest, _ := strings.Cut(r.Verdict(), ": ")
	fmt.Fprintf(&b, "**%s**: %s\n", strings.ToUpper(verdict[:1])+verdict[1:], rest)
	if lines := r.alphabetLines(); len(lines) > 0 {
		fmt.Fprintln(&b)
		for _, l := range lines {
			fmt.Fprintf(&b, "- %s\n", mdText(l))
		}
	}
	if r.Same {
		return b.String()
	}
	witnessMD := func(w Witnesses, accepted, rejected string) {
		fmt.Fprintf(&b, "\n### Traces accepted by %s, rejected by %s\n\n", accepted, rejected)
		if w.Total == 0 {
			fmt.Fprintln(&b, "None.")
			return
		}
		if len(w.Traces) < w.Total || w.StoppedAfter > 0 {
			fmt.Fprintf(&b, "The %d shortest of %s:\n\n", len(w.Traces), w.total())
		}
		for k, t := range w.Traces {
			state := t.NewState
			if rejected == "old" {
				state = t.OldState
			}
			fmt.Fprintf(&b, "%d. `%s`  \n   %s (in %s): `%s`\n", k+1, r.traceString(t.Trace), rejected, state,
				answerString(t.Trace[len(t.Trace)-1].Input, &t.Other))
		}
	}
	witnessMD(r.OldOnly, "old", "new")
	witnessMD(r.NewOnly, "new", "old")

	td := r.Transitions
	fmt.Fprintf(&b, "\n### Transitions under the best state matching\n\n")
	fmt.Fprintf(&b, "%d unchanged, %d changed, %d removed, %d added. %s\n", td.Unchanged, len(td.Changed), len(td.Removed), len(td.Added),
		mdText(strings.ToUpper(r.matchingLine()[:1])+r.matchingLine()[1:])+".")
	if len(td.Changed)+len(td.Removed)+len(td.Added) == 0 {
		return b.String()
	}
	fmt.Fprintln(&b, "\n| change | old | new |")
	fmt.Fprintln(&b, "|---|---|---|")
	row := func(kind string, c Change, edgeOld, edgeNew bool) {
		cell := func(t *Transition, isEdge bool) string {
			switch {
			case t == nil:
				return ""
			case isEdge:
				return mdCode(r.edgeString(c.Input, t))
			}
			return mdCode(t.From+": "+answerString(c.Input, t)) + mdText(r.toNote(c.Input, t))
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", kind, cell(c.Old, edgeOld), cell(c.New, edgeNew))
	}
	rows := func(kind string, changes []Change, edgeOld, edgeNew bool) {
		for _, c := range listed(changes) {
			row(kind, c, edgeOld, edgeNew)
		}
		if len(changes) > listLimit {
			fmt.Fprintf(&b, "| %s | ... and %d more | |\n", kind, len(changes)-listLimit)
		}
	}
	rows("changed", td.Changed, true, true)
	rows("removed", td.Removed, true, false)
	rows("added", td.Added, false, true)
	return b.String()
}

// total is how many witnesses there are, "at least" so many when the
// search stopped early.
func (w Witnesses) total() string {
	if w.StoppedAfter > 0 {
		return fmt.Sprintf("at least %d (the search stopped after %d pairs of states)", w.Total, w.StoppedAfter)
	}
	return fmt.Sprint(w.Total)
}

func sdk(n int) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprint(n)
}

// mdText escapes the characters Markdown would read in running text or a
// table cell.
func mdText(s string) string {
	return strings.NewReplacer(`\`, `\\`, "|", `\|`, "*", `\*`, "_", `\_`, "`", "\\`", "<", "&lt;", ">", "&gt;").Replace(s)
}

// mdCode is s as inline code (empty for ""); a pipe still needs escaping
// inside a table.
func mdCode(s string) string {
	if s == "" {
		return ""
	}
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	return fence + pad + strings.ReplaceAll(s, "|", `\|`) + pad + fence
}
