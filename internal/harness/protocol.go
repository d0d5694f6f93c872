// Package harness is the host side of the harness wire protocol
// (harness-apk/PROTOCOL.md): it turns a purpose into the configure request,
// talks JSON lines to a harness over any byte stream (a JVM's pipes, an ADB
// stream to a device's socket), and points the harness's complaints at the
// purpose's lines.
package harness

import (
	"encoding/json"
	"fmt"

	"github.com/droidstar/droidstar/internal/purpose"
)

// ProtocolVersion is the wire protocol version this host speaks.
const ProtocolVersion = 2

// Hello is the harness's answer to hello: who and where it is.
type Hello struct {
	Protocol     int    `json:"protocol"`
	Harness      string `json:"harness"`
	Platform     string `json:"platform"`
	SDK          int    `json:"sdk"`
	Release      string `json:"release"`
	Model        string `json:"model"`
	Manufacturer string `json:"manufacturer"`
}

// Request is the purpose object of a configure request: the purpose's
// harness fields under the purpose file's own names and nesting, each in
// its long form, so that the path the harness names in an error is the
// path of a purpose field (PROTOCOL.md). This is the one table of what a
// purpose sends; the purpose's Go types marshal to their YAML names.
type Request struct {
	Name      string             `json:"name"`
	Class     string             `json:"class"`
	Target    *purpose.Target    `json:"target,omitempty"`
	Setup     []purpose.Action   `json:"setup,omitempty"`
	Callins   []purpose.Callin   `json:"callins"`
	Callbacks []purpose.Callback `json:"callbacks,omitempty"`
	Details   purpose.Details    `json:"details,omitempty"`
	Timeouts  Timeouts           `json:"timeouts"`
	// Jars are the staged paths of the purpose's jars, relative to the
	// harness's files directory (JarDir/NAME), index for index.
	Jars []string `json:"jars,omitempty"`
	// JarSHA256 are the jars' SHA-256 digests in lowercase hex, index for
	// index, which the harness checks before it loads them.
	JarSHA256 []string `json:"jar_sha256,omitempty"`
	Adapters  []string `json:"adapters,omitempty"`
}

// Timeouts are the purpose's timeouts in whole milliseconds, the
// harness's unit.
type Timeouts struct {
	Quiescence int64 `json:"quiescence"`
	Settle     int64 `json:"settle"`
	PostReset  int64 `json:"post_reset"`
}

// Configured is the harness's answer to configure.
type Configured struct {
	Callins   []string `json:"callins"`
	Callbacks []string `json:"callbacks"`
	Shims     []string `json:"shims"`
}

// QueryResult is the harness's answer to one query of a run.
type QueryResult struct {
	Outputs    []string     `json:"outputs"`
	Ms         []float64    `json:"ms"`
	DeviceMs   float64      `json:"device_ms"`
	Stragglers int          `json:"stragglers"`
	Ignored    int          `json:"ignored"`
	Undeclared []Undeclared `json:"undeclared"`
	Violations []Violation  `json:"violations"`
	Err        *QueryErr    `json:"err,omitempty"`
}

// Undeclared is a call that matched no declared callback, so the
// harness dropped it: its method, its detail when the purpose splits the
// method by detail (else nil), and how often it came in the query.
type Undeclared struct {
	Method string  `json:"method"`
	Detail *string `json:"detail"`
	Count  int     `json:"count"`
}

// Violation is a broken assumption the harness observed.
type Violation struct {
	Kind     string `json:"kind"`
	At       int    `json:"at"`
	Callback string `json:"callback"`
}

// QueryErr explains a query's err.
type QueryErr struct {
	At        int    `json:"at"`
	Kind      string `json:"kind"`
	Exception string `json:"exception,omitempty"`
	Message   string `json:"message,omitempty"`
	Callback  string `json:"callback,omitempty"`
	// Value is what a callin returned that its error_if counts as err
	// (kind returned), as JSON.
	Value json.RawMessage `json:"value,omitempty"`
}

// RemoteError is an error reply of the harness.
type RemoteError struct {
	Op      string `json:"-"`
	Code    string `json:"code"`
	Where   string `json:"where,omitempty"`
	Message string `json:"message"`
}

func (e *RemoteError) Error() string {
	if e.Where != "" {
		return fmt.Sprintf("harness refused %s: %s: %s (%s)", e.Op, e.Where, e.Message, e.Code)
	}
	return fmt.Sprintf("harness refused %s: %s (%s)", e.Op, e.Message, e.Code)
}
