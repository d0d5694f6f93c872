// Package model defines droidstar's versioned JSON model document: a learned
// (or hand-written) Mealy machine with its alphabets, the reason behind every
// err transition, and the metadata of the run that produced it. The learner
// writes it, exports render it, and the simulation backend replays it.
package model

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/droidstar/droidstar/internal/mealy"
)

// Format and Version identify the document; readers reject other values.
const (
	Format  = "droidstar-model"
	Version = 1
)

// Semantics names how a model's queries are answered.
const (
	// SemanticsClosure is DroidStar's synchronous closure: err is
	// prefix-closed and a wait right after a quiet answers quiet at once.
	SemanticsClosure = "closure"
	// SemanticsMealy is a plain Mealy machine with no special symbols.
	SemanticsMealy = "mealy"
)

// ErrKind says why a query answered err.
type ErrKind string

const (
	ErrThrown        ErrKind = "thrown"         // a callin threw
	ErrErrorCallback ErrKind = "error-callback" // a callback the purpose declares as an error fired
	ErrReturned      ErrKind = "returned"       // a callin returned the result the purpose counts as err (error_if)
	// ErrNoCallback is a callin that takes an argument of a callback
	// ({callback: [METHOD, N]}) before any wait of the query delivered
	// that callback: the harness did not call it. The purpose's order of
	// things, not the class's exception; the detail names the callback.
	ErrNoCallback ErrKind = "no-callback"
	// ErrCrash is a query that killed the harness's process twice, the
	// second time alone in a fresh one: the symbol that killed it
	// answers err, and the detail holds how the process ended and its
	// last words (the JVM's stderr, the device's logcat crash buffer).
	ErrCrash    ErrKind = "crash"
	ErrExcluded ErrKind = "excluded" // the purpose's restrictions excluded the query; it never ran
	ErrUnknown  ErrKind = "unknown"  // the model source does not say (e.g. DroidStar DOT)
)

// Document is the JSON model.
type Document struct {
	Format      string       `json:"format"`
	Version     int          `json:"version"`
	Name        string       `json:"name"`
	Semantics   string       `json:"semantics"`
	Inputs      []string     `json:"inputs"`
	Outputs     []string     `json:"outputs"`
	Callins     []string     `json:"callins,omitempty"`
	Callbacks   []string     `json:"callbacks,omitempty"`
	Initial     string       `json:"initial"`
	States      []State      `json:"states"`
	Transitions []Transition `json:"transitions"`
	// Complete is false when transitions may be omitted; an omitted
	// transition of a closure model answers err and goes to the error sink.
	Complete bool   `json:"complete"`
	Bound    *Bound `json:"bound,omitempty"`
	// Conformance is the conformance test the final model passed, when
	// one ran.
	Conformance *Conformance `json:"conformance,omitempty"`
	Target      *TargetCheck `json:"target,omitempty"`
	Purpose     *PurposeInfo `json:"purpose,omitempty"`
	Backend     *BackendInfo `json:"backend,omitempty"`
	Stats       *Stats       `json:"stats,omitempty"`
	Warnings    []string     `json:"warnings,omitempty"`
	// Undeclared are the callbacks the purpose neither declares nor
	// ignores that arrived during the run's queries and were dropped, with
	// how often: the model was learned without them.
	Undeclared []Undeclared `json:"undeclared,omitempty"`
	Tool       *ToolInfo    `json:"tool,omitempty"`
	Learned    *time.Time   `json:"learned_at,omitempty"`
}

// Undeclared is a callback the purpose does not declare (METHOD, or
// METHOD/DETAIL when the purpose declares other details of the method)
// and how many times it arrived during the run's queries.
type Undeclared struct {
	Callback string `json:"callback"`
	Count    int    `json:"count"`
}

// UndeclaredWarning says which undeclared callbacks arrived, how often,
// what dropping them does to the answers, and what to do about it ("" for
// none).
func UndeclaredWarning(us []Undeclared) string {
	if len(us) == 0 {
		return ""
	}
	parts := make([]string, len(us))
	total := 0
	for k, u := range us {
		parts[k] = fmt.Sprintf("%s (%d)", u.Callback, u.Count)
		total += u.Count
	}
	return fmt.Sprintf("undeclared callbacks: %d calls the purpose does not declare arrived during queries and were dropped: %s; "+
		"a wait that would have answered one answered the next callback or quiet instead, so the model may differ from the class's: "+
		"declare each under callbacks (as its own symbol, in a from: list, or as an error), or list it under ignore: to drop it on purpose",
		total, strings.Join(parts, ", "))
}

// State is one state. Access is the shortest input word reaching it.
type State struct {
	ID     string   `json:"id"`
	Name   string   `json:"name,omitempty"`
	Access []string `json:"access"`
	Sink   bool     `json:"sink,omitempty"`
}

// Transition is one transition; Err explains an err output.
type Transition struct {
	From   string   `json:"from"`
	Input  string   `json:"input"`
	Output string   `json:"output"`
	To     string   `json:"to"`
	Err    *ErrInfo `json:"err,omitempty"`
}

// ErrInfo tells an excluded query from a real error.
type ErrInfo struct {
	Kind   ErrKind `json:"kind"`
	Detail string  `json:"detail,omitempty"`
}

// Bound is the distinguisher bound the run assumed and the one the
// learned model needs, both in free symbols: a wait that a
// followed_by_wait restriction forces after a callin is not counted
// (unless CountsEvery: then every symbol is, as DroidStar counted).
// LearnedNeeds is computed on the learned model, so it is only a lower
// bound for the target's: a bound too small for the target yields a
// smaller, wrong model that needs no more than the bound used.
type Bound struct {
	Used         int  `json:"used"`
	LearnedNeeds int  `json:"learned_model_needs"`
	CountsEvery  bool `json:"counts_every_symbol,omitempty"`
	// Auto is how --bound auto chose Used (absent for a fixed bound).
	Auto *AutoBound `json:"auto,omitempty"`
	// Needed is the key earlier versions wrote for LearnedNeeds, which
	// claimed more than it knew; Unmarshal moves it there.
	Needed *int `json:"needed,omitempty"`
}

// AutoBound records how --bound auto settled: it started at Start, and
// raised the bound after the hypothesis passed a bound whose rounds had
// found counterexamples, up to Max. Found[k] counts the counterexamples
// the rounds at bound Start+k found; the bound settled on is the first
// whose rounds found none, unless Capped (Max reached while its rounds
// still found some).
type AutoBound struct {
	Start  int   `json:"start"`
	Max    int   `json:"max"`
	Found  []int `json:"found"`
	Capped bool  `json:"capped,omitempty"`
}

// Conformance is the conformance test that checked the final model after
// the bound check: Method is "random" (Walks random words drawn with
// Seed) or "wp" (the Wp-method to Depth extra states).
type Conformance struct {
	Method string `json:"method"`
	Walks  int    `json:"walks,omitempty"`
	Seed   uint64 `json:"seed,omitempty"`
	Depth  int    `json:"depth,omitempty"`
}

// String is the flag form: random:N or wp:K.
func (c Conformance) String() string {
	if c.Method == "wp" {
		return fmt.Sprintf("wp:%d", c.Depth)
	}
	return fmt.Sprintf("%s:%d", c.Method, c.Walks)
}

// TargetCheck compares the learned model with a target known in full (the
// model of a simulated run): whether they are equal, the bound the target
// needs (computed from the target, in the units of Bound), and when they
// differ a shortest word on which they do. Perfect says the equivalence
// oracle itself compared hypotheses with the target.
type TargetCheck struct {
	Equal          bool                  `json:"equal"`
	NeededBound    int                   `json:"needed_bound"`
	Perfect        bool                  `json:"perfect_oracle,omitempty"`
	Counterexample *TargetCounterexample `json:"counterexample,omitempty"`
}

// TargetCounterexample is an input word with the target's answer to it
// (Expected) and the learned model's.
type TargetCounterexample struct {
	Input    []string `json:"input"`
	Expected []string `json:"expected"`
	Learned  []string `json:"learned"`
}

// PurposeInfo identifies the learning purpose.
type PurposeInfo struct {
	Name        string `json:"name"`
	Class       string `json:"class,omitempty"`
	File        string `json:"file,omitempty"`
	Fingerprint string `json:"fingerprint"`
	// Parameters are the values the purpose's parameters had (--set
	// NAME=VALUE, the environment or their defaults): the paired device,
	// the URL the model was learned with.
	Parameters map[string]string `json:"parameters,omitempty"`
}

// BackendInfo identifies what answered the queries.
type BackendInfo struct {
	Kind    string            `json:"kind"`
	Model   string            `json:"model,omitempty"`
	Devices []DeviceInfo      `json:"devices,omitempty"`
	Options map[string]string `json:"options,omitempty"`
}

// DeviceInfo describes one device (or simulated lane) that ran queries.
type DeviceInfo struct {
	Serial string `json:"serial"`
	// Platform is "android" or "jvm" for a harness (as its hello says),
	// empty for the simulator.
	Platform string `json:"platform,omitempty"`
	Model    string `json:"model,omitempty"`
	Release  string `json:"release,omitempty"`
	SDK      int    `json:"sdk,omitempty"`
	// User is the Android user the harness ran as (the current user; 0
	// before Android 7), nil for a device that has none (the JVM, the
	// simulator).
	User *int `json:"user,omitempty"`
	// Queries is how many queries this device ran.
	Queries int `json:"queries,omitempty"`
}

// PhaseStats counts the membership queries of one phase.
type PhaseStats struct {
	Asked     int `json:"asked"`
	CacheHits int `json:"cache_hits"`
	// Stored counts the queries answered from the query store: run by an
	// earlier, stopped run of the same command.
	Stored     int     `json:"stored,omitempty"`
	Excluded   int     `json:"excluded"`
	Executed   int     `json:"executed"`
	Symbols    int     `json:"symbols"`
	DeviceSecs float64 `json:"device_seconds"`
	// Padded counts the symbols the padding stage (--pad) appended to
	// the phase's queries; they are among Symbols.
	Padded int `json:"padded,omitempty"`
}

// Stats are the statistics of a learning run, in the columns of the
// DroidStar paper's Table 1 and more.
type Stats struct {
	// Learner names the learner (lstar when absent: documents written
	// before there was a choice).
	Learner     string     `json:"learner,omitempty"`
	States      int        `json:"states"`
	EQs         int        `json:"equivalence_queries"`
	Learning    PhaseStats `json:"learning"`
	Equivalence PhaseStats `json:"equivalence"`
	// Verification is the final check: answers run once more before the
	// model was declared final (absent when there was none).
	Verification PhaseStats `json:"verification,omitzero"`
	// Conformance is the conformance test that ran after the bound check
	// passed (absent when there was none).
	Conformance PhaseStats `json:"conformance,omitzero"`
	// Counterexamples says which check found each counterexample, in
	// round order.
	Counterexamples []FoundCounterexample `json:"counterexamples,omitempty"`
	WallSecs        float64               `json:"wall_seconds"`
	DeviceSecs      float64               `json:"device_seconds"`
	// EstimatedWallSecs is what the run takes on its lanes and devices in
	// real time: each batch's makespan as the scheduler gave its queries
	// to the lanes, summed over the batches (which run one after
	// another). DeviceSecs sums the lanes; on one lane the two agree.
	EstimatedWallSecs float64 `json:"estimated_wall_seconds,omitempty"`
	VirtualClock      bool    `json:"virtual_clock,omitempty"`
	// Determinism is what the run measured of the target's determinism:
	// the re-runs, and the votes that settled contradicting answers.
	Determinism *Determinism `json:"determinism,omitempty"`
	// Timeout is what --timeout auto chose; absent for a fixed timeout.
	Timeout *AutoTimeout `json:"timeout,omitempty"`
}

// AutoTimeout is the calibrated quiescence timeouts of a --timeout auto
// run: one per wait context (the callin before the wait and how many
// waits since), each starting at StartMs and raised to Margin times the
// slowest callback seen in its context, never above the ceiling, the
// purpose's timeout. SettledMs is the longest they settled at, SlowestMs
// the slowest callback seen anywhere, Contexts the ones raised above the
// start (the others stayed there), after Raises raises in all; Late
// callbacks came after their wait had answered quiet, and Stale quiet
// answers were asked again under a longer timeout.
type AutoTimeout struct {
	StartMs   float64          `json:"start_ms"`
	SettledMs float64          `json:"settled_ms"`
	CeilingMs float64          `json:"ceiling_ms"`
	SlowestMs float64          `json:"slowest_callback_ms"`
	Raises    int              `json:"raises"`
	Late      int              `json:"late_callbacks"`
	Stale     int              `json:"stale_answers"`
	Contexts  []ContextTimeout `json:"contexts,omitempty"`
}

// ContextTimeout is the timeout a calibrated run settled at for the waits
// of one context: "start+2" is the second wait after the callin start,
// "+1" the first from the initial state.
type ContextTimeout struct {
	Context   string  `json:"context"`
	TimeoutMs float64 `json:"timeout_ms"`
	SlowestMs float64 `json:"slowest_callback_ms"`
}

// Determinism is the measured determinism of a run.
type Determinism struct {
	// Repeat is the re-runs a contradiction got (--repeat).
	Repeat int `json:"repeat"`
	// Verify is the fraction of executed queries run again (--verify),
	// drawn with Seed.
	Verify float64 `json:"verify,omitempty"`
	Seed   uint64  `json:"seed"`
	// Reruns counts the queries run again to check an answer (--verify
	// and votes), Agreements those that answered as before.
	Reruns     int    `json:"reruns"`
	Agreements int    `json:"agreements"`
	Votes      []Vote `json:"votes,omitempty"`
}

// Vote is one contradiction settled by a majority.
type Vote struct {
	// Query is the input word whose answers disagreed.
	Query []string `json:"query"`
	// Answers are the distinct answers, the winner first.
	Answers []VoteAnswer `json:"answers"`
}

// VoteAnswer is one answer of a vote and how often it came.
type VoteAnswer struct {
	Outputs []string `json:"outputs"`
	Votes   int      `json:"votes"`
	// Devices ran it (empty names left out).
	Devices []string `json:"devices,omitempty"`
}

// Total adds the two phases.
func (s *Stats) Total() PhaseStats {
	var t PhaseStats
	for _, p := range []PhaseStats{s.Learning, s.Equivalence, s.Verification, s.Conformance} {
		t.Asked += p.Asked
		t.CacheHits += p.CacheHits
		t.Excluded += p.Excluded
		t.Executed += p.Executed
		t.Symbols += p.Symbols
		t.DeviceSecs += p.DeviceSecs
		t.Stored += p.Stored
		t.Padded += p.Padded
	}
	return t
}

// FoundCounterexample is one counterexample an equivalence check found:
// the round (equivalence query) it answered, the check (CheckBound or
// CheckConformance) and the input word.
type FoundCounterexample struct {
	Round int      `json:"round"`
	Check string   `json:"check"`
	Input []string `json:"input"`
}

// The checks that find counterexamples.
const (
	CheckBound       = "bound"
	CheckConformance = "conformance"
)

// ToolInfo names the program that wrote the document.
type ToolInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Marshal encodes the document as indented JSON with a trailing newline.
func (d *Document) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(d); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Encode writes the document to w exactly as Marshal encodes it, but the
// states and transitions one at a time, so that a model of a million
// transitions is never held twice in memory as its JSON text.
func (d *Document) Encode(w io.Writer) error {
	// The rest of the document is small: encode it whole with empty lists
	// and splice the lists in where encoding/json put them.
	head := *d
	head.States, head.Transitions = nil, nil
	data, err := head.Marshal()
	if err != nil {
		return err
	}
	// Top-level keys are the only ones at this indentation, and a string
	// cannot hold a raw newline, so each marker occurs exactly once.
	const statesKey, transitionsKey = "\n  \"states\": null,", "\n  \"transitions\": null,"
	i := bytes.Index(data, []byte(statesKey))
	j := bytes.Index(data, []byte(transitionsKey))
	if i < 0 || j != i+len(statesKey) {
		return fmt.Errorf("encoding the model: states and transitions are not where expected")
	}
	bw := bufio.NewWriter(w)
	bw.Write(data[:i])
	bw.WriteString("\n  \"states\": ")
	if err := encodeList(bw, d.States == nil, len(d.States), func(k int) any { return &d.States[k] }); err != nil {
		return err
	}
	bw.WriteString(",\n  \"transitions\": ")
	if err := encodeList(bw, d.Transitions == nil, len(d.Transitions), func(k int) any { return &d.Transitions[k] }); err != nil {
		return err
	}
	bw.WriteString(",")
	bw.Write(data[j+len(transitionsKey):])
	return bw.Flush()
}

// encodeList writes a top-level list of the document as Marshal would
// indent it, element by element.
func encodeList(w *bufio.Writer, null bool, n int, elem func(k int) any) error {
	switch {
	case null:
		_, err := w.WriteString("null")
		return err
	case n == 0:
		_, err := w.WriteString("[]")
		return err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("    ", "  ")
	enc.SetEscapeHTML(false)
	w.WriteString("[")
	for k := 0; k < n; k++ {
		buf.Reset()
		if err := enc.Encode(elem(k)); err != nil {
			return err
		}
		if k > 0 {
			w.WriteString(",")
		}
		w.WriteString("\n    ")
		w.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	}
	_, err := w.WriteString("\n  ]")
	return err
}

// Unmarshal decodes and checks a document; unknown fields are errors, so a
// typo in a hand-written model is not silently ignored.
func Unmarshal(data []byte) (*Document, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	// encoding/json appends to a slice's spare capacity: sized from a count
	// of their keys, the two long lists are allocated once instead of
	// doubled (and copied) twenty times over.
	nStates, nTransitions := bytes.Count(data, []byte(`"access"`)), bytes.Count(data, []byte(`"from"`))
	var d Document
	if nStates > 0 {
		d.States = make([]State, 0, nStates)
	}
	if nTransitions > 0 {
		d.Transitions = make([]Transition, 0, nTransitions)
	}
	if err := dec.Decode(&d); err != nil {
		return nil, jsonError(data, err)
	}
	// A list the document leaves out stays nil, as without the sizing (an
	// empty list in the document decodes to a new empty slice, which keeps
	// its place: only a list sized here can be one the document left out).
	if nStates > 0 && len(d.States) == 0 && cap(d.States) == nStates {
		d.States = nil
	}
	if nTransitions > 0 && len(d.Transitions) == 0 && cap(d.Transitions) == nTransitions {
		d.Transitions = nil
	}
	if b := d.Bound; b != nil && b.Needed != nil {
		b.LearnedNeeds, b.Needed = *b.Needed, nil
	}
	if d.Format != Format {
		return nil, fmt.Errorf("format is %q, want %q", d.Format, Format)
	}
	if d.Version != Version {
		return nil, fmt.Errorf("version %d is not supported (this droidstar reads version %d)", d.Version, Version)
	}
	return &d, nil
}

// ReadFile reads a document from disk.
func ReadFile(path string) (*Document, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	d, err := Unmarshal(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

var unknownField = regexp.MustCompile(`^json: unknown field "((?:[^"\\]|\\.)*)"$`)

// jsonError adds line:col to encoding/json's errors.
func jsonError(data []byte, err error) error {
	var off int64 = -1
	switch e := err.(type) {
	case *json.SyntaxError:
		off = e.Offset - 1 // encoding/json reports the offset after the offending byte
	case *json.UnmarshalTypeError:
		off = e.Offset - 1
	default:
		// encoding/json gives no offset for an unknown field: point at the
		// first key of that name.
		if m := unknownField.FindStringSubmatch(err.Error()); m != nil {
			key := regexp.MustCompile(`"` + regexp.QuoteMeta(m[1]) + `"\s*:`)
			if loc := key.FindIndex(data); loc != nil {
				off = int64(loc[0])
			}
		}
	}
	if off < 0 {
		return err
	}
	line, col := 1, 1
	for _, b := range data[:min(int(off), len(data))] {
		if b == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return fmt.Errorf("%d:%d: %w", line, col, err)
}

// Machine rebuilds the Mealy machine. For an incomplete closure model the
// omitted transitions answer err and lead to an error sink that is added
// when no state is one already. It returns the machine and the state IDs
// in machine order.
func (d *Document) Machine() (*mealy.Machine, []string, error) {
	inputs, err := mealy.NewAlphabet(d.Inputs...)
	if err != nil {
		return nil, nil, fmt.Errorf("inputs: %w", err)
	}
	outputs, err := mealy.NewAlphabet(d.Outputs...)
	if err != nil {
		return nil, nil, fmt.Errorf("outputs: %w", err)
	}
	if d.Semantics != SemanticsClosure && d.Semantics != SemanticsMealy {
		return nil, nil, fmt.Errorf("semantics is %q, want %q or %q", d.Semantics, SemanticsClosure, SemanticsMealy)
	}
	ids := make(map[string]int, len(d.States))
	names := make([]string, 0, len(d.States)+1)
	m := mealy.NewMachine(inputs, outputs, len(d.States))
	for q, s := range d.States {
		if _, dup := ids[s.ID]; dup {
			return nil, nil, fmt.Errorf("state %q listed twice", s.ID)
		}
		ids[s.ID] = q
		names = append(names, s.ID)
	}
	init, ok := ids[d.Initial]
	if !ok {
		return nil, nil, fmt.Errorf("initial state %q is not among the states", d.Initial)
	}
	m.Initial = init
	for k, t := range d.Transitions {
		from, ok1 := ids[t.From]
		to, ok2 := ids[t.To]
		in, ok3 := inputs.Index(t.Input)
		out, ok4 := outputs.Index(t.Output)
		switch {
		case !ok1:
			return nil, nil, fmt.Errorf("transition %d: unknown state %q", k+1, t.From)
		case !ok2:
			return nil, nil, fmt.Errorf("transition %d: unknown state %q", k+1, t.To)
		case !ok3:
			return nil, nil, fmt.Errorf("transition %d: unknown input %q", k+1, t.Input)
		case !ok4:
			return nil, nil, fmt.Errorf("transition %d: unknown output %q", k+1, t.Output)
		}
		if m.Next[from][in] >= 0 {
			return nil, nil, fmt.Errorf("transition %d: state %q has two transitions on %q", k+1, t.From, t.Input)
		}
		m.SetTransition(from, in, out, to)
	}
	if !d.Complete {
		if d.Semantics != SemanticsClosure {
			return nil, nil, fmt.Errorf("an incomplete model needs semantics %q", SemanticsClosure)
		}
		names = CompleteWithSink(m, names)
	}
	if err := m.Validate(); err != nil {
		return nil, nil, err
	}
	return m, names, nil
}

// CompleteWithSink sends every unset transition of a closure machine to an
// error sink (an existing one, or a new state named "sink") with output err,
// the reading DroidStar's diagrams need. names are the state names, extended
// when a sink is added.
func CompleteWithSink(m *mealy.Machine, names []string) []string {
	errOut, ok := m.Outputs.Index(mealy.Err)
	if !ok {
		return names // Validate reports the missing transitions
	}
	missing := false
	for q := range m.Next {
		for i := range m.Next[q] {
			missing = missing || m.Next[q][i] < 0
		}
	}
	if !missing {
		return names
	}
	sink := -1
	for q := range m.Next {
		all := true
		for i := range m.Next[q] {
			if n := m.Next[q][i]; n >= 0 && (n != q || m.Out[q][i] != errOut) {
				all = false
			}
		}
		if all {
			sink = q
			break
		}
	}
	if sink < 0 {
		sink = m.AddState()
		names = append(names, freshName("sink", names))
	}
	for q := range m.Next {
		for i := range m.Next[q] {
			if m.Next[q][i] < 0 {
				m.SetTransition(q, i, errOut, sink)
			}
		}
	}
	return names
}

// FromMachine builds a complete document for m, numbering states s0, s1, ...
// in breadth-first order so equal machines give equal documents. errInfo,
// when given, explains each err transition (q and i are m's own numbers).
func FromMachine(name, semantics string, m *mealy.Machine, errInfo func(q, i int) *ErrInfo) *Document {
	canon, renum := m.Canonical()
	back := make([]int, canon.NumStates())
	for old, nw := range renum {
		if nw >= 0 {
			back[nw] = old
		}
	}
	access, _ := canon.AccessWords()
	sink := -1
	errOut, hasErr := canon.Outputs.Index(mealy.Err)
	if hasErr && semantics == SemanticsClosure {
		if s, ok := canon.Sink(errOut); ok {
			sink = s
		}
	}
	d := &Document{
		Format: Format, Version: Version, Name: name, Semantics: semantics,
		Inputs: canon.Inputs.Names(), Outputs: canon.Outputs.Names(),
		Initial: "s0", Complete: true,
	}
	for q := 0; q < canon.NumStates(); q++ {
		d.States = append(d.States, State{ID: fmt.Sprintf("s%d", q), Access: canon.Inputs.Strings(access[q]), Sink: q == sink})
	}
	for q := 0; q < canon.NumStates(); q++ {
		for i := 0; i < canon.Inputs.Size(); i++ {
			t := Transition{
				From: fmt.Sprintf("s%d", q), Input: canon.Inputs.Name(i),
				Output: canon.Outputs.Name(canon.Out[q][i]), To: fmt.Sprintf("s%d", canon.Next[q][i]),
			}
			if hasErr && canon.Out[q][i] == errOut && errInfo != nil && q != sink {
				t.Err = errInfo(back[q], i)
			}
			d.Transitions = append(d.Transitions, t)
		}
	}
	return d
}

// freshName returns base, or base2, base3, ... whichever is not in taken.
func freshName(base string, taken []string) string {
	name := base
	for n := 2; ; n++ {
		clash := false
		for _, t := range taken {
			clash = clash || t == name
		}
		if !clash {
			return name
		}
		name = fmt.Sprintf("%s%d", base, n)
	}
}

// FileBase makes a model's name safe as a file name: the base of the
// files a model is written to (NAME.json, NAME.dot, NAME.partial.json).
func FileBase(name string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 {
			return '_'
		}
		return r
	}, name)
}
