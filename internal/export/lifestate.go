package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
)

// The rule kinds.
const (
	RuleAllow    = "allow"    // callin: the app may call it
	RuleDisallow = "disallow" // callin: calling it is an error
	RuleEnable   = "enable"   // callback: the framework calls it next
	RuleDisable  = "disable"  // callback: the framework does not call it next
)

// Message kinds in lifestate rules.
const (
	MsgInit     = "init"     // a fresh instance (the rule's trigger only)
	MsgCallin   = "callin"   // a callin that returned normally
	MsgCallback = "callback" // a callback that was delivered
)

// LifestateFormat identifies the JSON form.
const LifestateFormat = "droidstar-lifestate"

// Message is a trigger or target of a rule.
type Message struct {
	Kind string `json:"kind"`
	Name string `json:"name,omitempty"`
}

func (m Message) String() string {
	switch m.Kind {
	case MsgInit:
		return "init"
	case MsgCallin:
		return "ci " + m.Name
	}
	return "cb " + m.Name
}

// Rule is one lifestate rule: right after After, Rule applies to Target.
type Rule struct {
	After  Message `json:"after"`
	Rule   string  `json:"rule"`
	Target Message `json:"target"`
}

// Pair is a trigger and a target with no rule.
type Pair struct {
	After  Message `json:"after"`
	Target Message `json:"target"`
}

// Lifestate is the rule set derived from a closure model.
type Lifestate struct {
	Format    string   `json:"format"`
	Version   int      `json:"version"`
	Name      string   `json:"name"`
	Class     string   `json:"class,omitempty"`
	Callins   []string `json:"callins"`
	Callbacks []string `json:"callbacks"`
	Rules     []Rule   `json:"rules"`
	// Depends lists the pairs whose outcome depends on the history
	// before the trigger.
	Depends []Pair `json:"depends,omitempty"`
	// Unknown lists the pairs that hinge on queries the purpose's
	// restrictions excluded.
	Unknown []Pair `json:"unknown,omitempty"`
	// Never lists the callins and callbacks the typestate never shows, so
	// they trigger no rule.
	Never []Message `json:"never,omitempty"`
}

// status of a message in one state.
type status int

const (
	stNo status = iota // disallowed / disabled
	stYes
	stUnknown
)

// Lifestate rules (Meier et al., "Lifestate: Event-Driven Protocols and
// Callback Control Flow", ECOOP 2019) say how a message changes what may
// happen next: a callin or callback enables or disables a callback (the
// framework may, or may not, call it next) and allows or disallows a callin
// (the app may, or must not, call it next).
//
// droidstar derives them exactly from the learned typestate. For every
// trigger m (a fresh instance, a callin that returned, a callback that was
// delivered) it takes the states the typestate can be in right after m, in
// any history: the targets of every m transition, plus the states a quiet
// timeout leads to from there (the object moves on by itself, with no
// message, so a rule must hold until the next message). For every message
// x it then checks x in all those states:
//
//   - callin x: allowed where x returns normally, disallowed where x answers
//     err (it throws, or an error callback follows);
//   - callback x: enabled where the next wait delivers x, disabled where it
//     delivers another callback, nothing, or an error callback.
//
// If x is allowed (enabled) in all of them, m allows (enables) x; if in
// none, m disallows (disables) x; otherwise whether x may follow m depends
// on the history before m, and there is no rule. Where the purpose's
// restrictions excluded x (err of kind excluded), x was never tried, so a
// pair that would hinge on it is reported as unknown rather than guessed.
//
// DeriveLifestate derives these rules. They are ordered by trigger (init,
// then the callins, then the callbacks, in the model's order) and then by
// target in the same order. Plain Mealy models have none.
func DeriveLifestate(d *model.Document) (*Lifestate, error) {
	v, err := newView(d)
	if err != nil {
		return nil, err
	}
	if !v.closure() {
		return nil, fmt.Errorf("model %q: lifestate rules are for callback typestates (semantics %q), not %q",
			d.Name, model.SemanticsClosure, d.Semantics)
	}
	m := v.m
	ts, err := m.Typestate()
	if err != nil {
		return nil, fmt.Errorf("model %q: %w", d.Name, err)
	}
	wait, _ := m.Inputs.Index(mealy.Wait)
	ok, _ := m.Outputs.Index(mealy.OK)
	errOut, _ := m.Outputs.Index(mealy.Err)

	var callins, callbacks []int // inputs; outputs
	for i := 0; i < m.Inputs.Size(); i++ {
		if i != wait {
			callins = append(callins, i)
		}
	}
	for o := 0; o < m.Outputs.Size(); o++ {
		if n := m.Outputs.Name(o); n != mealy.OK && n != mealy.Quiet && n != mealy.Err {
			callbacks = append(callbacks, o)
		}
	}
	spec := &Lifestate{Format: LifestateFormat, Version: 1, Name: d.Name, Callins: []string{}, Callbacks: []string{}, Rules: []Rule{}}
	if d.Purpose != nil {
		spec.Class = d.Purpose.Class
	}
	for _, i := range callins {
		spec.Callins = append(spec.Callins, m.Inputs.Name(i))
	}
	for _, o := range callbacks {
		spec.Callbacks = append(spec.Callbacks, m.Outputs.Name(o))
	}

	// The status of a callin or callback in a state.
	callin := func(q, i int) status {
		switch {
		case m.Out[q][i] == ok:
			return stYes
		case m.Out[q][i] == errOut && v.errKind(q, i) == model.ErrExcluded:
			return stUnknown
		}
		return stNo
	}
	callback := func(q, o int) status {
		switch {
		case m.Out[q][wait] == o:
			return stYes
		case m.Out[q][wait] == errOut && v.errKind(q, wait) == model.ErrExcluded:
			return stUnknown
		}
		return stNo
	}

	// after closes a set of states under quiet timeouts.
	timeouts := map[int][]int{}
	for _, e := range ts.Edges {
		if e.Kind == mealy.Timeout {
			timeouts[e.From] = append(timeouts[e.From], e.To)
		}
	}
	after := func(states []int) []int {
		seen := map[int]bool{}
		var out []int
		for k := 0; k < len(states); k++ {
			q := states[k]
			if seen[q] {
				continue
			}
			seen[q] = true
			out = append(out, q)
			states = append(states, timeouts[q]...)
		}
		return out
	}

	type trigger struct {
		msg    Message
		states []int
	}
	triggers := []trigger{{Message{Kind: MsgInit}, after([]int{ts.Initial})}}
	for _, i := range callins {
		var to []int
		for _, e := range ts.Edges {
			if e.Kind == mealy.Callin && e.Input == i {
				to = append(to, e.To)
			}
		}
		triggers = append(triggers, trigger{Message{MsgCallin, m.Inputs.Name(i)}, after(to)})
	}
	for _, o := range callbacks {
		var to []int
		for _, e := range ts.Edges {
			if e.Kind == mealy.Callback && e.Label == m.Outputs.Name(o) {
				to = append(to, e.To)
			}
		}
		triggers = append(triggers, trigger{Message{MsgCallback, m.Outputs.Name(o)}, after(to)})
	}

	for _, t := range triggers {
		if len(t.states) == 0 {
			spec.Never = append(spec.Never, t.msg)
			continue
		}
		decide := func(target Message, st func(q int) status, yes, no string) {
			var seen [3]bool
			for _, q := range t.states {
				seen[st(q)] = true
			}
			switch {
			case seen[stYes] && seen[stNo]:
				spec.Depends = append(spec.Depends, Pair{t.msg, target})
			case seen[stUnknown]:
				spec.Unknown = append(spec.Unknown, Pair{t.msg, target})
			case seen[stYes]:
				spec.Rules = append(spec.Rules, Rule{t.msg, yes, target})
			default:
				spec.Rules = append(spec.Rules, Rule{t.msg, no, target})
			}
		}
		for _, i := range callins {
			decide(Message{MsgCallin, m.Inputs.Name(i)}, func(q int) status { return callin(q, i) }, RuleAllow, RuleDisallow)
		}
		for _, o := range callbacks {
			decide(Message{MsgCallback, m.Outputs.Name(o)}, func(q int) status { return callback(q, o) }, RuleEnable, RuleDisable)
		}
	}
	return spec, nil
}

// LifestateJSON is DeriveLifestate as indented JSON.
func LifestateJSON(d *model.Document) ([]byte, error) {
	spec, err := DeriveLifestate(d)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(spec); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// LifestateText writes the rules one per line, "TRIGGER RULE TARGET" in
// aligned columns, with ci and cb marking callins and callbacks:
//
//	ci exec  disallow  ci exec
//	ci exec  allow     ci cancel
//	cb postexec  disable  cb cancelled
//
// A header of comments (#) names the class and says what the rules mean;
// after each trigger's rules, comments list the targets that depend on the
// history and those the purpose's restrictions left unknown.
func LifestateText(d *model.Document) ([]byte, error) {
	spec, err := DeriveLifestate(d)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	what := spec.Name
	if spec.Class != "" && spec.Class != spec.Name {
		what = spec.Class + " (" + spec.Name + ")"
	}
	fmt.Fprintf(&b, "# Lifestate rules of %s, derived by droidstar from its learned callback typestate.\n", what)
	b.WriteString(`# One rule per line: TRIGGER RULE TARGET. Right after TRIGGER, whatever happened before,
# until the next message:
#   allow ci X      the callin X returns normally
#   disallow ci X   the callin X fails (throws, or an error callback follows)
#   enable cb Y     the framework delivers the callback Y next
#   disable cb Y    the framework does not deliver Y next
# TRIGGER is init (a fresh instance), ci X (X returned) or cb Y (Y was delivered).
# A pair with no rule depends on the history before TRIGGER ("depends" below)
# or on queries the purpose's restrictions excluded ("unknown" below).
`)
	fmt.Fprintf(&b, "# callins: %s\n", listOrNone(spec.Callins))
	fmt.Fprintf(&b, "# callbacks: %s\n", listOrNone(spec.Callbacks))
	w0, w1 := 0, 0
	for _, r := range spec.Rules {
		w0 = max(w0, len([]rune(r.After.String())))
		w1 = max(w1, len(r.Rule))
	}
	pairs := func(label string, ps []Pair, after Message) {
		var names []string
		for _, p := range ps {
			if p.After == after {
				names = append(names, p.Target.String())
			}
		}
		if len(names) > 0 {
			fmt.Fprintf(&b, "# %s, %s: %s\n", after, label, strings.Join(names, ", "))
		}
	}
	never := map[Message]bool{}
	for _, n := range spec.Never {
		never[n] = true
	}
	triggers := []Message{{Kind: MsgInit}}
	for _, n := range spec.Callins {
		triggers = append(triggers, Message{MsgCallin, n})
	}
	for _, n := range spec.Callbacks {
		triggers = append(triggers, Message{MsgCallback, n})
	}
	for _, t := range triggers {
		if never[t] {
			continue
		}
		b.WriteString("\n")
		for _, r := range spec.Rules {
			if r.After == t {
				fmt.Fprintf(&b, "%s  %s  %s\n", pad(r.After.String(), w0), pad(r.Rule, w1), r.Target)
			}
		}
		pairs("depends", spec.Depends, t)
		pairs("unknown", spec.Unknown, t)
	}
	if len(spec.Never) > 0 {
		names := make([]string, len(spec.Never))
		for k, n := range spec.Never {
			names[k] = n.String()
		}
		fmt.Fprintf(&b, "\n# never happen in the typestate: %s\n", strings.Join(names, ", "))
	}
	return []byte(b.String()), nil
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "(none)"
	}
	return strings.Join(s, ", ")
}
