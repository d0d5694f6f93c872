// Package purpose reads and checks learning purposes: the YAML files that say
// which class to learn, its callins and callbacks, the timeouts, the
// distinguisher bound, the restrictions that keep the class regular, and the
// backend that answers the queries. They replace DroidStar's per-class Java
// LearningPurpose and need no rebuild.
package purpose

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
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

	Callins   []Callin   `json:"callins"`
	Callbacks []Callback `json:"callbacks,omitempty"`
	Details   Details    `json:"details,omitempty"`
	Timeouts  Timeouts   `json:"timeouts"`
	Bound     int        `json:"bound"`
	// BoundAuto is bound: auto (the bound oracle chooses its bound; see
	// equivalence.AutoBound); Bound is then the default, unused.
	BoundAuto bool `json:"bound_auto,omitempty"`
	// BoundCountsEvery is bound_counts: every (the bound counts every
	// symbol, the waits followed_by_wait forces too, as DroidStar did);
	// free, the default, counts only the symbols left to choose.
	BoundCountsEvery bool          `json:"bound_counts_every,omitempty"`
	Restrictions     []Restriction `json:"restrictions,omitempty"`
	Backend          Backend       `json:"backend"`
	// RestrictionsPos is where the restrictions key is (zero when the
	// file has none) and BackendPos where the backend key is: a run that
	// finds its target counting says where a restriction goes.
	RestrictionsPos, BackendPos Pos `json:"-"`

	// The harness part (jvm and adb backends): how to make and wire a fresh
	// instance, the environment it needs, and the user's adapters.
	Target      *Target  `json:"target,omitempty"`
	Setup       []Action `json:"setup,omitempty"`
	Files       []File   `json:"files,omitempty"`
	Permissions []string `json:"permissions,omitempty"`
	// Jars are user jars the harness loads at run time: libraries under
	// test (OkHttp, Volley) and adapters (static factories, shims for
	// abstract classes). Adapters names the classes in them implementing
	// org.droidstar.harness.core.Adapter.
	Jars     []File   `json:"jars,omitempty"`
	Adapters []string `json:"adapters,omitempty"`
	// Ignore are the callback names (METHOD or METHOD/DETAIL) that the
	// purpose drops on purpose: undeclared callbacks are reported, these
	// are not. They change what is said, not the learning problem, so
	// they are not in the fingerprint (a query store stays valid).
	Ignore []string `json:"-"`

	// Params are the values the purpose leaves to its user (parameters),
	// in the file's order; Values, set by Bind, what each one got. They
	// are left out of the fingerprint: the values are in the literals of
	// a bound purpose, and a parameter's doc changes no answer.
	Params []Param           `json:"-"`
	Values map[string]string `json:"-"`
	// template is the purpose Bind bound (Unbind).
	template *Purpose

	// Where maps the YAML path of every harness field ("callins[2].args[0]")
	// to its position, so that the harness's complaints about a field point
	// at the line that wrote it.
	Where map[string]Pos `json:"-"`
}

// Callin is an input symbol. The harness fields say what it does on the
// jvm and adb backends: run the environment actions Do, then call the
// method Call on the instance (or on On) with Args. With neither Call nor
// Do, the method has the symbol's name. The sim backend needs only the
// symbol.
type Callin struct {
	Symbol string   `json:"symbol"`
	Call   string   `json:"call,omitempty"`
	On     Arg      `json:"on,omitempty"`
	Args   []Arg    `json:"args,omitempty"`
	Do     []Action `json:"do,omitempty"`
	// Result says where the call's return value goes: ResultTarget makes
	// it the instance under test (DroidStar's OkHttp build_valid, a callin
	// that builds the Call the later callins act on).
	Result string `json:"result,omitempty"`
	// ErrorIf is the return value that counts as err (BluetoothAdapter's
	// enable() answers false instead of throwing); nil when none does.
	ErrorIf *ErrorValue `json:"error_if,omitempty"`
	Pos     Pos         `json:"-"`
}

// ResultTarget is the one place a callin's result can go: it becomes the
// instance under test, which later callins, {target: true} and dispose
// act on.
const ResultTarget = "target"

// ErrorValue is a callin's error_if: a JSON scalar (nil, bool, int64,
// float64 or string) that the method's result is compared with. A pointer
// to it tells "error_if: null" from no error_if.
type ErrorValue struct {
	Value any
}

// MarshalJSON writes the value itself, null included.
func (e ErrorValue) MarshalJSON() ([]byte, error) { return json.Marshal(e.Value) }

// MakesTarget says whether the callin's result becomes the instance under
// test.
func (c Callin) MakesTarget() bool { return c.Result == ResultTarget }

// Method is the method the harness calls for the callin, or "" when it
// only runs actions.
func (c Callin) Method() string {
	if c.Call == "" && len(c.Do) == 0 {
		return c.Symbol
	}
	return c.Call
}

// Callback is an output symbol. From lists the callback names that map to
// it (several merge into one symbol); it defaults to the symbol itself.
// An Error callback answers err instead of appearing as an output. An
// Environment callback says that the environment failed (no microphone, a
// permission revoked), not the class: a query that meets one fails, and
// learning stops with the reason rather than learn the broken
// environment's answers as the class's (DroidStar's SpeechRecognizer
// purpose counted them as errors, and its model would have shown them as
// the class's behaviour). At most one of the two is set.
type Callback struct {
	Symbol      string   `json:"symbol"`
	From        []string `json:"from,omitempty"`
	Error       bool     `json:"-"`
	Environment bool     `json:"-"`
	// Returns, Throws and SleepMs say what a proxy listener does on the
	// calls that match the callback (harness-apk/PROTOCOL.md): Returns
	// and Throws are argument literals in wire form, nil when absent.
	Returns Arg   `json:"-"`
	Throws  Arg   `json:"-"`
	SleepMs int64 `json:"-"`
	Pos     Pos   `json:"-"`
}

// ErrorEnvironment is the value of error that marks an environment
// callback, in the file and on the wire.
const ErrorEnvironment = "environment"

// MarshalJSON writes error as the file does: true, "environment", or
// nothing.
func (c Callback) MarshalJSON() ([]byte, error) {
	type plain struct {
		Symbol  string   `json:"symbol"`
		From    []string `json:"from,omitempty"`
		Error   any      `json:"error,omitempty"`
		Returns any      `json:"returns,omitempty"`
		Throws  any      `json:"throws,omitempty"`
		SleepMs int64    `json:"sleep_ms,omitempty"`
	}
	v := plain{Symbol: c.Symbol, From: c.From, Returns: c.Returns, Throws: c.Throws, SleepMs: c.SleepMs}
	switch {
	case c.Environment:
		v.Error = ErrorEnvironment
	case c.Error:
		v.Error = true
	}
	return json.Marshal(v)
}

// Role says what a callback does in the model.
type Role int

const (
	// RoleOutput is a callback that a wait answers as an output symbol.
	RoleOutput Role = iota
	// RoleError is an error callback: the wait answers err.
	RoleError
	// RoleEnvironment is an environment callback: the query fails.
	RoleEnvironment
)

// Role is the callback's role.
func (c Callback) Role() Role {
	switch {
	case c.Environment:
		return RoleEnvironment
	case c.Error:
		return RoleError
	}
	return RoleOutput
}

// Details says, per callback method, where a call's detail comes from
// (the text after the slash of METHOD/DETAIL): parts of the call's
// arguments, joined with '/'. A method without an entry keeps the
// harness's own detail (a proxy's first argument, what a shim says).
type Details []Detail

// Detail is one method's entry of details.
type Detail struct {
	Method string
	Parts  []DetailPart
	Pos    Pos
}

// DetailPart is one part of a detail: argument Arg of the call, or what
// its public no-argument method Call returns, or its extra Extra (an
// Intent's or a Bundle's).
type DetailPart struct {
	Arg   int    `json:"arg"`
	Call  string `json:"call,omitempty"`
	Extra string `json:"extra,omitempty"`
}

// MarshalJSON writes details as an object, methods in the file's order.
func (ds Details) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, d := range ds {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(d.Method)
		if err != nil {
			return nil, err
		}
		parts, err := json.Marshal(d.Parts)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(parts)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
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
	BackendJVM = "jvm"
	BackendADB = "adb"
)

// Backend says what answers the queries. A purpose may configure several
// kinds (a device and a simulation of it); Kind is the one used, by default
// the first one written, and Kinds lists them all in order.
type Backend struct {
	Kind  string      `json:"kind"`
	Kinds []string    `json:"kinds,omitempty"`
	Sim   *SimBackend `json:"sim,omitempty"`
	JVM   *JVMBackend `json:"jvm,omitempty"`
	ADB   *ADBBackend `json:"adb,omitempty"`
}

// ADBBackend runs the harness app on Android devices through adb. Its
// settings (devices, server address) arrive with the device support.
type ADBBackend struct{}

// Has says whether the purpose configures the backend kind.
func (b Backend) Has(kind string) bool {
	for _, k := range b.Kinds {
		if k == kind {
			return true
		}
	}
	return false
}

// Use switches to a backend kind the purpose configures.
func (b *Backend) Use(kind string) error {
	if !b.Has(kind) {
		return fmt.Errorf("backend %q is not configured by the purpose (it configures: %s)", kind, strings.Join(b.Kinds, ", "))
	}
	b.Kind = kind
	return nil
}

// JVMBackend runs the Java harness on the host JVM.
type JVMBackend struct {
	// Java is the java command; empty means $JAVA_HOME/bin/java or java on PATH.
	Java string `json:"java,omitempty"`
	// Options are extra JVM flags (-Xmx256m, -D...).
	Options []string `json:"options,omitempty"`
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
	// ModelFrom says where a model that replaces the purpose's was given
	// (a command line's "--sim-model NAME=FILE"), for its errors; empty
	// for the purpose's own.
	ModelFrom string `json:"-"`
	// Format is "auto" (by extension and content), "droidstar-dot",
	// "mealy-dot" or "json".
	Format string `json:"format"`
	// Latency is the virtual time a wait takes to deliver each callback
	// (keyed by the model's output name); DefaultLatency covers the rest.
	// A callback in LatencyMax (or every other one, when DefaultLatencyMax
	// is set) has a range instead (MIN..MAX in the purpose): its latency
	// is drawn uniformly between the two for every callback delivered.
	// The maxima are kept apart, and left out when empty, so that a purpose
	// with fixed latencies keeps its fingerprint.
	Latency           map[string]time.Duration `json:"latency,omitempty"`
	DefaultLatency    time.Duration            `json:"default_latency"`
	LatencyMax        map[string]time.Duration `json:"latency_max,omitempty"`
	DefaultLatencyMax time.Duration            `json:"default_latency_max,omitempty"`
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

// OutputCallbacks lists the callback symbols that appear as outputs (not
// the error and environment ones), in declaration order.
func (p *Purpose) OutputCallbacks() []string {
	var s []string
	for _, c := range p.Callbacks {
		if c.Role() == RoleOutput {
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
// says what role it has. A name that is already a symbol maps to itself.
func (p *Purpose) MapCallback(name string) (symbol string, role Role, ok bool) {
	for _, c := range p.Callbacks {
		if c.Symbol == name {
			return c.Symbol, c.Role(), true
		}
		for _, f := range c.From {
			if f == name {
				return c.Symbol, c.Role(), true
			}
		}
	}
	return "", RoleOutput, false
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
