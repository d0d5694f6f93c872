// Package harness is the host side of the harness wire protocol
// (harness-apk/PROTOCOL.md): it turns a purpose into the configure request,
// talks JSON lines to a harness over any byte stream (a JVM's pipes, an ADB
// stream to a device's socket), and maps the harness's complaints back to
// the purpose's lines.
package harness

import (
	"fmt"

	"github.com/droidstar/droidstar/internal/purpose"
)

// ProtocolVersion is the wire protocol version this host speaks.
const ProtocolVersion = 1

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

// Config is the purpose object of a configure request.
type Config struct {
	Name      string             `json:"name"`
	Class     string             `json:"class"`
	New       []purpose.Arg      `json:"new,omitempty"`
	Factory   *purpose.Call      `json:"factory,omitempty"`
	Shim      map[string]string  `json:"shim,omitempty"`
	Listeners []purpose.Listener `json:"listeners,omitempty"`
	Init      []WireCall         `json:"init,omitempty"`
	Dispose   *WireCall          `json:"dispose,omitempty"`
	Setup     []purpose.Action   `json:"setup,omitempty"`
	Callins   []WireCallin       `json:"callins"`
	Callbacks []WireCallback     `json:"callbacks"`
	Timeouts  WireTimeouts       `json:"timeouts"`
	Jars      []string           `json:"jars,omitempty"`
	Adapters  []string           `json:"adapters,omitempty"`
}

// WireCall is a method call on the instance.
type WireCall struct {
	Method string        `json:"method"`
	Args   []purpose.Arg `json:"args"`
}

// WireCallin is one callin as the harness runs it.
type WireCallin struct {
	Symbol  string           `json:"symbol"`
	Method  *string          `json:"method"`
	On      purpose.Arg      `json:"on"`
	Args    []purpose.Arg    `json:"args"`
	Actions []purpose.Action `json:"actions"`
}

// WireCallback is a declared callback name.
type WireCallback struct {
	Name  string `json:"name"`
	Error bool   `json:"error"`
}

// WireTimeouts are the purpose's timeouts in milliseconds.
type WireTimeouts struct {
	QuiescenceMs int64 `json:"quiescence_ms"`
	SettleMs     int64 `json:"settle_ms"`
	PostResetMs  int64 `json:"post_reset_ms"`
}

// Configured is the harness's answer to configure.
type Configured struct {
	Callins   []string `json:"callins"`
	Callbacks []string `json:"callbacks"`
	Shims     []string `json:"shims"`
}

// QueryResult is the harness's answer to one query of a run.
type QueryResult struct {
	Outputs    []string    `json:"outputs"`
	Ms         []float64   `json:"ms"`
	DeviceMs   float64     `json:"device_ms"`
	Stragglers int         `json:"stragglers"`
	Ignored    int         `json:"ignored"`
	Violations []Violation `json:"violations"`
	Err        *QueryErr   `json:"err,omitempty"`
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
