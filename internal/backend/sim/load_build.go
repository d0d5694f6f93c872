package sim

import (
	"fmt"
	stdhtml "html"
	"slices"
	"strconv"
	"strings"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
)

const (
	deltaPrefix = "delta_"     // DroidStar: a wait that delivered a callback
	deltaQuiet  = "delta_beta" // DroidStar: a wait that stayed quiet
)

// isStateNumber reports whether a DOT node ID is a DroidStar state number.
func isStateNumber(s string) bool {
	if s == "" || len(s) > 9 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// isStartMarker reports whether a node is the invisible start node of
// AALpy/LearnLib DOT (`__start0 -> s0`), which is not a state.
func isStartMarker(s string) bool {
	rest, ok := strings.CutPrefix(s, "__start")
	if !ok {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if !isDigit(rest[i]) {
			return false
		}
	}
	return true
}

// transition is one edge read as input/output.
type transition struct {
	from, to string
	in, out  string
	line     int
}

// machineBuilder fills a machine from transitions, catching contradicting
// duplicates.
type machineBuilder struct {
	name  string
	m     *mealy.Machine
	state map[string]int
	names []string
	line  [][]int // line of the edge that set each transition
}

func newMachineBuilder(name string, inputs, outputs *mealy.Alphabet, states []string) *machineBuilder {
	b := &machineBuilder{name: name, m: mealy.NewMachine(inputs, outputs, len(states)), state: map[string]int{}, names: states}
	for q, s := range states {
		b.state[s] = q
		b.line = append(b.line, make([]int, inputs.Size()))
	}
	return b
}

func (b *machineBuilder) add(t transition) error {
	q, to := b.state[t.from], b.state[t.to]
	in, _ := b.m.Inputs.Index(t.in)
	out, _ := b.m.Outputs.Index(t.out)
	if prev := b.m.Next[q][in]; prev >= 0 {
		if prev == to && b.m.Out[q][in] == out {
			return nil // the same edge twice
		}
		where := ""
		if l := b.line[q][in]; l > 0 {
			where = fmt.Sprintf(" at line %d", l)
		}
		return &LoadError{Path: b.name, Line: t.line, Msg: fmt.Sprintf(
			"state %q has two transitions on input %q: %s / %s -> %s here and %s / %s -> %s%s",
			t.from, t.in, t.in, t.out, t.to, t.in, b.m.Outputs.Name(b.m.Out[q][in]), b.names[prev], where)}
	}
	b.m.SetTransition(q, in, out, to)
	b.line[q][in] = t.line
	return nil
}

// completeClosure sends the missing transitions to the error sink (an
// existing one, or an added state named "sink", or "sink2"... when a state
// of the file has that name).
func (b *machineBuilder) completeClosure() {
	b.names = model.CompleteWithSink(b.m, b.names)
}

// model validates the machine and wraps it up.
func (b *machineBuilder) model(semantics, format string) (*Model, error) {
	if err := b.m.Validate(); err != nil {
		return nil, &LoadError{Path: b.name, Msg: err.Error()}
	}
	return &Model{Machine: b.m, StateNames: b.names, Semantics: semantics, Format: format, Path: b.name}, nil
}

// appendNew appends s to list unless it is there already.
func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// buildDroidStar reads a graph in DroidStar's dialect.
func buildDroidStar(name string, g *dotGraph) (*Model, error) {
	if len(g.edges) == 0 {
		return nil, &LoadError{Path: name, Msg: "no edges: a model needs transitions"}
	}
	num := map[string]int{}
	var numbers []int
	for _, n := range g.nodes {
		v, err := strconv.Atoi(n)
		if !isStateNumber(n) || err != nil {
			return nil, &LoadError{Path: name, Line: g.nodeLine[n], Msg: fmt.Sprintf(
				"state %q is not a number: DroidStar's diagrams number their states, 0 being the initial state (is this a %s model?)", n, FormatMealyDOT)}
		}
		num[n] = v
		if !slices.Contains(numbers, v) {
			numbers = append(numbers, v)
		}
	}
	slices.Sort(numbers)
	if len(numbers) == 0 || numbers[0] != 0 {
		return nil, &LoadError{Path: name, Msg: "there is no state 0, DroidStar's initial state"}
	}
	var callins, callbacks []string
	var trs []transition
	for _, e := range g.edges {
		t := transition{from: strconv.Itoa(num[e.from]), to: strconv.Itoa(num[e.to]), line: e.line}
		l := e.label
		switch {
		case !e.hasLabel || strings.TrimSpace(l) == "":
			return nil, &LoadError{Path: name, Line: e.line, Msg: fmt.Sprintf(
				"edge %s -> %s has no label; DroidStar labels an edge with a callin or delta_<callback>", e.from, e.to)}
		case strings.Contains(l, "/"):
			return nil, &LoadError{Path: name, Line: e.line, Msg: fmt.Sprintf(
				"label %q has a '/', which DroidStar's dialect never has (is this a %s model?)", l, FormatMealyDOT)}
		case strings.ContainsAny(l, " \t\r\n"):
			return nil, &LoadError{Path: name, Line: e.line, Msg: fmt.Sprintf("label %q has spaces; DroidStar's symbols are single words", l)}
		case l == deltaQuiet:
			t.in, t.out = mealy.Wait, mealy.Quiet
		case strings.HasPrefix(l, deltaPrefix):
			cb := l[len(deltaPrefix):]
			switch cb {
			case "":
				return nil, &LoadError{Path: name, Line: e.line, Msg: fmt.Sprintf("label %q names no callback", l)}
			case mealy.OK, mealy.Quiet, mealy.Err:
				return nil, &LoadError{Path: name, Line: e.line, Msg: fmt.Sprintf(
					"label %q: callback %q clashes with the closure output of that name", l, cb)}
			}
			t.in, t.out = mealy.Wait, cb
			callbacks = appendNew(callbacks, cb)
		case l == mealy.Wait:
			return nil, &LoadError{Path: name, Line: e.line, Msg: fmt.Sprintf(
				"label %q: a callin cannot be called %q, the closure's own input (a wait is labelled delta_<callback> or %s)", l, mealy.Wait, deltaQuiet)}
		default:
			t.in, t.out = l, mealy.OK
			callins = appendNew(callins, l)
		}
		trs = append(trs, t)
	}
	inputs, outputs, err := mealy.ClosureAlphabets(callins, callbacks)
	if err != nil {
		return nil, &LoadError{Path: name, Msg: err.Error()}
	}
	states := make([]string, len(numbers))
	for k, v := range numbers {
		states[k] = strconv.Itoa(v)
	}
	b := newMachineBuilder(name, inputs, outputs, states)
	for _, t := range trs {
		if err := b.add(t); err != nil {
			return nil, err
		}
	}
	b.m.Initial = 0 // numbers are sorted and start at 0
	b.completeClosure()
	return b.model(model.SemanticsClosure, FormatDroidStarDOT)
}

// buildMealy reads a graph in AALpy/LearnLib's Mealy dialect.
func buildMealy(name string, g *dotGraph) (*Model, error) {
	var states []string
	for _, n := range g.nodes {
		if !isStartMarker(n) {
			states = append(states, n)
		}
	}
	initial, initialLine := "", 0
	var trs []transition
	var inputs, outputs []string
	for _, e := range g.edges {
		switch {
		case isStartMarker(e.to):
			return nil, &LoadError{Path: name, Line: e.line, Msg: fmt.Sprintf(
				"edge %s -> %s leads into the start marker %q, which is not a state", e.from, e.to, e.to)}
		case isStartMarker(e.from):
			if initial != "" && initial != e.to {
				return nil, &LoadError{Path: name, Line: e.line, Msg: fmt.Sprintf(
					"two initial states: %q here and %q at line %d", e.to, initial, initialLine)}
			}
			initial, initialLine = e.to, e.line
			continue
		}
		if !e.hasLabel {
			return nil, &LoadError{Path: name, Line: e.line, Msg: fmt.Sprintf(
				"edge %s -> %s has no label; %s labels read \"input / output\"", e.from, e.to, FormatMealyDOT)}
		}
		pairs, problem := mealyLabel(e.label, e.html)
		if problem != "" {
			line, col := e.labelPos()
			return nil, &LoadError{Path: name, Line: line, Col: col, Msg: fmt.Sprintf(
				"label %s of edge %s -> %s%s", showLabel(e.label, e.html), e.from, e.to, problem)}
		}
		for _, p := range pairs {
			inputs = appendNew(inputs, p.in)
			outputs = appendNew(outputs, p.out)
			trs = append(trs, transition{from: e.from, to: e.to, in: p.in, out: p.out, line: e.line})
		}
	}
	if len(trs) == 0 {
		return nil, &LoadError{Path: name, Msg: "no edges: a model needs transitions"}
	}
	if initial == "" {
		initial = states[0]
	}
	closure := slices.Contains(inputs, mealy.Wait)
	semantics := model.SemanticsMealy
	if closure {
		semantics = model.SemanticsClosure
		outputs = append([]string{mealy.OK, mealy.Quiet, mealy.Err}, slices.DeleteFunc(outputs, func(o string) bool {
			return o == mealy.OK || o == mealy.Quiet || o == mealy.Err
		})...)
		for _, t := range trs {
			switch {
			case t.in != mealy.Wait && t.out != mealy.OK && t.out != mealy.Err:
				return nil, &LoadError{Path: name, Line: t.line, Msg: fmt.Sprintf(
					"callin %q answers %q; in a closure model (one with a %q input) a callin answers %q or %q",
					t.in, t.out, mealy.Wait, mealy.OK, mealy.Err)}
			case t.in == mealy.Wait && t.out == mealy.OK:
				return nil, &LoadError{Path: name, Line: t.line, Msg: fmt.Sprintf(
					"%q answers %q; in a closure model a wait answers a callback, %q or %q", mealy.Wait, mealy.OK, mealy.Quiet, mealy.Err)}
			}
		}
	}
	in, err := mealy.NewAlphabet(inputs...)
	if err != nil {
		return nil, &LoadError{Path: name, Msg: "inputs: " + err.Error()}
	}
	out, err := mealy.NewAlphabet(outputs...)
	if err != nil {
		return nil, &LoadError{Path: name, Msg: "outputs: " + err.Error()}
	}
	b := newMachineBuilder(name, in, out, states)
	for _, t := range trs {
		if err := b.add(t); err != nil {
			return nil, err
		}
	}
	b.m.Initial = b.state[initial]
	if closure {
		b.completeClosure()
	} else if err := b.complete(); err != nil {
		return nil, err
	}
	return b.model(semantics, FormatMealyDOT)
}

// ioPair is one input and its output, as a Mealy label gives them.
type ioPair struct{ in, out string }

// mealyLabel reads a mealy-dot edge label. Besides AALpy's and LearnLib's
// one "input / output" per edge, it takes the forms of edges that carry
// several transitions, as in the automata wiki's models (issue 13 names a
// wiki TLS model with label=<A<br />B> and inputs joined by " | "):
//   - an HTML label: LearnLib's writer (AutomataLib's GraphDOT.appendParams,
//     serialization/dot) puts a label whose value starts with <HTML>
//     between < and > instead of quotes, and Graphviz's HTML-like labels
//     break lines with <BR/>, which may carry attributes (ALIGN) and, being
//     XML-like, escape &, <, > and " as entities. So each line is one
//     "input / output", lines break at <br/> in any case, with or without
//     the slash or attributes, and entities are decoded;
//   - several inputs sharing one output and target: "A | B / output". Only
//     the inputs are split: an output may hold " | " (vending-mealy.dot).
//
// Nothing else of HTML is read: another tag is a problem naming it, rather
// than a name with markup in it. A problem is said as the end of a
// sentence that begins with the label.
func mealyLabel(label string, html bool) (pairs []ioPair, problem string) {
	parts := []string{label}
	if html {
		if parts, problem = htmlLines(label); problem != "" {
			return nil, problem
		}
	}
	several := len(parts) > 1
	for k, part := range parts {
		where := ""
		if several {
			where = fmt.Sprintf(": line %d of it, %q,", k+1, part)
		}
		if several && strings.TrimSpace(part) == "" {
			continue // a <br/> at the end, or two in a row
		}
		in, out, found := strings.Cut(part, "/")
		in, out = strings.TrimSpace(in), strings.TrimSpace(out)
		switch {
		case !found:
			return nil, fmt.Sprintf("%s has no '/'; %s labels read \"input / output\"", where, FormatMealyDOT)
		case in == "":
			return nil, fmt.Sprintf("%s has no input before the '/'", where)
		case out == "":
			return nil, fmt.Sprintf("%s has no output after the '/'", where)
		}
		for _, i := range strings.Split(in, " | ") {
			if i = strings.TrimSpace(i); i == "" {
				return nil, fmt.Sprintf("%s has an empty input among the ones joined by \" | \"", where)
			}
			pairs = append(pairs, ioPair{in: i, out: out})
		}
	}
	if len(pairs) == 0 {
		return nil, " has no \"input / output\" line"
	}
	return pairs, ""
}

// htmlLines splits the inside of an HTML label at its <br/> tags and
// decodes the character entities of each line. Graphviz does not break
// lines at a newline in an HTML label, so newlines are spaces.
func htmlLines(s string) (lines []string, problem string) {
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '<' {
			continue
		}
		j := strings.IndexByte(s[i:], '>')
		if j < 0 {
			return nil, " has a '<' that no '>' closes"
		}
		tag := s[i+1 : i+j]
		name := strings.ToLower(strings.TrimSuffix(strings.TrimSpace(tag), "/"))
		if f := strings.Fields(name); len(f) > 0 {
			name = f[0]
		}
		if name != "br" {
			return nil, fmt.Sprintf(" has the HTML tag <%s>; only <br/> line breaks are read in a label", tag)
		}
		lines = append(lines, s[start:i])
		start = i + j + 1
		i += j
	}
	lines = append(lines, s[start:])
	for k, l := range lines {
		lines[k] = stdhtml.UnescapeString(strings.NewReplacer("\r\n", " ", "\n", " ").Replace(l))
	}
	return lines, ""
}

// showLabel writes a label back as it stood in the file, for messages.
func showLabel(label string, html bool) string {
	if html {
		return "<" + label + ">"
	}
	return fmt.Sprintf("%q", label)
}

// complete checks that a plain Mealy machine has every transition.
func (b *machineBuilder) complete() error {
	var missing []string
	for q := range b.m.Next {
		for i, to := range b.m.Next[q] {
			if to < 0 {
				missing = append(missing, fmt.Sprintf("state %q has no transition on input %q", b.names[q], b.m.Inputs.Name(i)))
			}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	msg := missing[0]
	if len(missing) > 1 {
		msg += fmt.Sprintf(" (and %d more missing transitions)", len(missing)-1)
	}
	return &LoadError{Path: b.name, Msg: msg + fmt.Sprintf(
		"; a plain Mealy model must be complete (only a closure model, one with a %q input, may omit transitions, which then answer %q)", mealy.Wait, mealy.Err)}
}
