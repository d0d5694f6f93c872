// Package purpose reads and checks learning purposes: the YAML files that say
// which class to learn, its callins and callbacks, the timeouts, the
// distinguisher bound, the restrictions that keep the class regular, and the
// backend that answers the queries. They replace DroidStar's per-class Java
// LearningPurpose and need no rebuild.
package purpose

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/droidstar/droidstar/internal/mealy"
)

// Defaults for fields a purpose may leave out.
const (
	DefaultBound      = 2
	DefaultQuiescence = 500 * time.Millisecond
	DefaultSettle     = 100 * time.Millisecond
	DefaultPostReset  = 50 * time.Millisecond
	DefaultLatency    = 50 * time.Millisecond
)

// Pos is a 1-based line and column in the purpose file (0 when built in code).
type Pos struct {
	Line, Col int
}

func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// Purpose is a parsed, validated learning purpose.
type Purpose struct {
	// File is the path the purpose was read from; relative paths inside the
	// purpose (the sim model) are resolved against its directory.
	File        string `json:"-"`
	Name        string `json:"name"`
	Class       string `json:"class,omitempty"`
	Description string `json:"description,omitempty"`

	Callins      []Callin      `json:"callins"`
	Callbacks    []Callback    `json:"callbacks,omitempty"`
	Timeouts     Timeouts      `json:"timeouts"`
	Bound        int           `json:"bound"`
	Restrictions []Restriction `json:"restrictions,omitempty"`
	Backend      Backend       `json:"backend"`
}

// Callin is an input symbol. The harness fields (which method to call, with
// which arguments and environment set-up) arrive with the JVM and device
// backends; the sim backend needs only the symbol.
type Callin struct {
	Symbol string `json:"symbol"`
	Pos    Pos    `json:"-"`
}

// Callback is an output symbol. From lists the callback names that map to
// it (several merge into one symbol); it defaults to the symbol itself.
// An Error callback answers err instead of appearing as an output.
type Callback struct {
	Symbol string   `json:"symbol"`
	From   []string `json:"from,omitempty"`
	Error  bool     `json:"error,omitempty"`
	Pos    Pos      `json:"-"`
}

// Sources is From, or the symbol itself when From is empty.
func (c Callback) Sources() []string {
	if len(c.From) == 0 {
		return []string{c.Symbol}
	}
	return c.From
}

// Timeouts of the query runner.
type Timeouts struct {
	// Quiescence is how long a wait waits for a callback before answering quiet.
	Quiescence time.Duration `json:"quiescence"`
	// Settle is how long the runner lets an instance settle before disposing of it.
	Settle time.Duration `json:"settle"`
	// PostReset is how long the runner waits after creating a fresh instance.
	PostReset time.Duration `json:"post_reset"`
}

// RestrictionKind names a kind of restriction.
type RestrictionKind string

const (
	// AtMost allows at most Count occurrences, in total, of Symbols.
	AtMost RestrictionKind = "at_most"
	// First requires the first symbol of every query to be one of Symbols.
	First RestrictionKind = "first"
	// FollowedByWait requires each of Symbols to be directly followed by a
	// wait (a query may still end with one of them).
	FollowedByWait RestrictionKind = "followed_by_wait"
)

// Restriction excludes queries from learning, to keep a non-regular class
// regular or to stay inside the behaviour of interest. Excluded queries
// answer err without running and are recorded as excluded.
type Restriction struct {
	Kind    RestrictionKind `json:"kind"`
	Symbols []string        `json:"symbols"`
	Count   int             `json:"count,omitempty"`
	Pos     Pos             `json:"-"`
}

func (r Restriction) String() string {
	switch r.Kind {
	case AtMost:
		return fmt.Sprintf("at most %d of %v", r.Count, r.Symbols)
	case First:
		return fmt.Sprintf("first symbol one of %v", r.Symbols)
	default:
		return fmt.Sprintf("%v followed by wait", r.Symbols)
	}
}

// Backend kinds.
const (
	BackendSim = "sim"
)

// Backend says what answers the queries. Exactly one kind is set.
type Backend struct {
	Kind string      `json:"kind"`
	Sim  *SimBackend `json:"sim,omitempty"`
}

// SimBackend answers queries from a model on a virtual clock.
type SimBackend struct {
	// Model is the model file as written in the purpose; ModelPath is the
	// same path resolved against the purpose's directory.
	Model     string `json:"model"`
	ModelPath string `json:"-"`
	// ModelPos is where the model is named, for errors found later, when
	// the file is opened.
	ModelPos Pos `json:"-"`
	// Format is "auto" (by extension and content), "droidstar-dot",
	// "mealy-dot" or "json".
	Format string `json:"format"`
	// Latency is the virtual time a wait takes to deliver each callback
	// (keyed by the model's output name); DefaultLatency covers the rest.
	Latency        map[string]time.Duration `json:"latency,omitempty"`
	DefaultLatency time.Duration            `json:"default_latency"`
	// Realtime makes the simulator sleep instead of advancing a virtual clock.
	Realtime bool `json:"realtime,omitempty"`
}

// CallinSymbols lists the callin symbols in declaration order.
func (p *Purpose) CallinSymbols() []string {
	s := make([]string, len(p.Callins))
	for i, c := range p.Callins {
		s[i] = c.Symbol
	}
	return s
}

// OutputCallbacks lists the callback symbols that appear as outputs (the
// non-error ones), in declaration order.
func (p *Purpose) OutputCallbacks() []string {
	var s []string
	for _, c := range p.Callbacks {
		if !c.Error {
			s = append(s, c.Symbol)
		}
	}
	return s
}

// Alphabets returns the synchronous-closure alphabets of the purpose.
func (p *Purpose) Alphabets() (inputs, outputs *mealy.Alphabet, err error) {
	return mealy.ClosureAlphabets(p.CallinSymbols(), p.OutputCallbacks())
}

// MapCallback maps a callback name reported by a backend to its symbol and
// says whether it is an error callback. A name that is already a symbol maps
// to itself.
func (p *Purpose) MapCallback(name string) (symbol string, isError, ok bool) {
	for _, c := range p.Callbacks {
		if c.Symbol == name {
			return c.Symbol, c.Error, true
		}
		for _, f := range c.From {
			if f == name {
				return c.Symbol, c.Error, true
			}
		}
	}
	return "", false, false
}

// Fingerprint identifies the purpose's content (not its layout or
// comments): equal fingerprints mean equal learning problems.
func (p *Purpose) Fingerprint() string {
	data, err := json.Marshal(p)
	if err != nil {
		// Every field is plain data; Marshal cannot fail.
		panic(err)
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}
