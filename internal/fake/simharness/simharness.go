// Package simharness serves the harness wire protocol (harness-apk/PROTOCOL.md)
// from a simulated model, so that a fake device in tests and benchmarks can
// stand in for the Java harness: the host's harness.Client and the adb
// backend talk to it exactly as they would to the real one, and its answers
// come from a sim.Model run through sim.NewExecutor.
package simharness

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/droidstar/droidstar/internal/backend/sim"
	"github.com/droidstar/droidstar/internal/harness"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/purpose"
)

// HarnessVersion is what the Java harness reports in hello
// (Server.HARNESS_VERSION), so that a host that checks the harness it
// talks to takes the simulation for the harness it ships; the corpus's
// hello session checks that the two agree.
const HarnessVersion = "0.2.0"

// Options say what the simulated harness answers from and who it claims
// to be.
type Options struct {
	// Model answers the queries; it must be a synchronous-closure model
	// (with a wait input), since every query may wait.
	Model *sim.Model
	// Timing is what each query costs; with Realtime the harness sleeps
	// that long, like a device, else the cost is only reported. The
	// configure request's timeouts are checked but not used: Timing
	// already says what the simulated device takes.
	Timing sim.Timing
	// Hello is the hello reply. Protocol is always ProtocolVersion; an
	// empty Platform is "android" and an empty Harness is HarnessVersion.
	Hello harness.Hello
	// CallbackNames renames model outputs to the callback names the
	// configure request declares (the purpose's from names), as the Java
	// harness reports only declared names; PurposeCallbackNames builds it.
	// Outputs it does not list are reported under their own name, which
	// keeps a round trip through harness.ToResult equal to running the
	// model directly (the host maps symbols and declared names alike).
	CallbackNames map[string]string
	// Class is the binary name of the class the model stands for. When it
	// is set, configure refuses what the Java harness would refuse for that
	// class and its listeners: any other class (the purpose's class, a
	// listener type, a factory class) is unknown-class, since the
	// simulated device has nothing else to load; Class as a listener type
	// is unknown-listener (a class with no shim is no listener); and a
	// declared callback that no declared listener has is
	// unknown-callback. Empty: any class the purpose names is taken at its
	// word, and any well-formed callback name.
	Class string
	// Listeners maps the binary names of Class's listener interfaces to
	// their callback methods.
	Listeners map[string][]string
	// Throws maps callins to the exception they throw wherever they are
	// called ("java.lang.RuntimeException: setAudioSource failed."), as a
	// harness denied a permission meets them (see adbd.App.Granted).
	Throws map[string]string
	// Refuses, when set, is asked before each callin that has error_if:
	// true makes the callin return its error_if value there (err of kind
	// returned), as a framework call returns false when the app may not
	// do it now, for example BluetoothAdapter.startDiscovery without the
	// location op allowed (adbd.App.Discovers). It is asked when the query
	// runs, so it sees the device as it is then.
	Refuses func(callin string) bool
	// Probe is what the simulated device answers to probe (URLs it does
	// not list answer 200); nil is Good().
	Probe *harness.ProbeResult
	// PairedBluetooth are the Bluetooth addresses the simulated device is
	// paired with, what probe's bluetooth_paired is answered from (unless
	// Probe has a Bluetooth answer of its own, such as Bluetooth off).
	PairedBluetooth []string
	// Wedge and Freeze make the harness hang, for tests of what the host
	// does then: a query that holds one of their words hangs at the end
	// of the first one it holds, a callin (which need not be an input of
	// the model). Wedge is a call that blocks the main thread: the harness
	// answers as the Java harness does once its main-thread timeout has
	// passed (on the virtual clock, unless Timing.Realtime): the query err
	// of kind timeout, the run stopped there, the harness wedged. Freeze
	// is a harness that stops answering altogether until ctx ends (its
	// instrumentation is force-stopped), which only the host's deadline
	// can catch.
	Wedge, Freeze [][]string
	// Crash makes the app's process die, for tests of what the host does
	// then: a query that holds one of its words dies at the end of the
	// first one it holds (a callin), unless it answers err before, as an
	// uncaught exception (CrashException) kills an app on Android. Serve
	// then returns a *CrashError without a reply; the fake device's
	// HarnessFunc ends the app with it (adbd.Crash).
	Crash [][]string
	// Undeclared are calls the purpose does not declare that the app's
	// listener gets each time a query runs the given callin (as
	// SpeechRecognizer on Android 12 reports onError codes an Android 11
	// purpose does not know): the harness reports them in the result's
	// undeclared list and ignored count, and the model is unchanged.
	Undeclared map[string][]harness.Undeclared
	// MainThreadTimeout replaces harness.MainThreadTimeout of the
	// configured quiescence when positive (the corpus's
	// @main-thread-timeout, the Java suite's TestPlatform switch).
	MainThreadTimeout time.Duration
}

// hangs says whether sym ends a Wedge or Freeze word.
func (o Options) hangs(sym string) bool {
	for _, words := range [][][]string{o.Wedge, o.Freeze} {
		for _, w := range words {
			if len(w) > 0 && w[len(w)-1] == sym {
				return true
			}
		}
	}
	return false
}

// crashAt returns where q dies: the end of the first Crash word it
// holds; -1 when it holds none.
func (o Options) crashAt(q []string) int {
	for end := range q {
		for _, w := range o.Crash {
			if start := end + 1 - len(w); len(w) > 0 && start >= 0 && slices.Equal(q[start:end+1], w) {
				return end
			}
		}
	}
	return -1
}

// hangAt returns where q hangs: the end of the first Wedge or Freeze word
// it holds, and whether that one freezes; -1 when it holds none.
func (o Options) hangAt(q []string) (at int, freeze bool) {
	for end := range q {
		for k, words := range [][][]string{o.Wedge, o.Freeze} {
			for _, w := range words {
				if start := end + 1 - len(w); len(w) > 0 && start >= 0 && slices.Equal(q[start:end+1], w) {
					return end, k == 1
				}
			}
		}
	}
	return -1, false
}

// PurposeCallbackNames maps each callback symbol of p to the first name it
// is declared from, for Options.CallbackNames: example models emit the
// purpose's symbols, while the harness reports the listener method names.
func PurposeCallbackNames(p *purpose.Purpose) map[string]string {
	names := map[string]string{}
	for _, c := range p.Callbacks {
		if len(c.From) > 0 {
			names[c.Symbol] = c.From[0]
		}
	}
	return names
}

// Serve answers requests on conn until bye (answered, then bye is true),
// the end of the stream, or the end of ctx. Like the harness, it closes
// the stream when it is done, which is also how a cancelled ctx interrupts
// a blocked read. A request it cannot answer gets an error reply and
// leaves the harness usable; err reports only Options without a closure
// model, a broken stream, or the end of ctx.
func Serve(ctx context.Context, conn io.ReadWriteCloser, o Options) (bye bool, err error) {
	if o.Model == nil {
		conn.Close()
		return false, errors.New("simulated harness: no model to answer from")
	}
	if o.Model.Semantics != model.SemanticsClosure {
		conn.Close()
		return false, fmt.Errorf("simulated harness: the model %s is a plain Mealy machine (no %q input); the harness protocol needs a synchronous-closure model", o.Model.Path, mealy.Wait)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()

	s := &server{opts: o}
	rd := bufio.NewReaderSize(conn, 64<<10)
	for {
		line, rerr := rd.ReadBytes('\n')
		if rerr != nil && len(line) == 0 {
			if ctx.Err() != nil {
				return false, ctx.Err()
			}
			if errors.Is(rerr, io.EOF) {
				return false, nil
			}
			return false, fmt.Errorf("simulated harness: read a request: %w", rerr)
		}
		// A last line without its line break is still a request, as for
		// Java's BufferedReader.readLine (corpus: end-of-input).
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		reply, isBye, herr := s.handle(ctx, line)
		if herr != nil {
			return false, herr
		}
		if _, werr := conn.Write(append(reply, '\n')); werr != nil {
			if ctx.Err() != nil {
				return false, ctx.Err()
			}
			return false, fmt.Errorf("simulated harness: write the reply: %w", werr)
		}
		if isBye {
			return true, nil
		}
		if rerr != nil {
			return false, nil
		}
	}
}

// server is the state of one served stream: the configuration, which a
// failed configure clears (corpus: configure-failure-unconfigures).
type server struct {
	opts   Options
	config *config
	// wedged is why the simulated main thread is lost, once a Wedge
	// word ran.
	wedged string
	// quiescence is the running request's quiescence timeout, when it
	// gave one (run's "quiescence": quiescenceGiven).
	quiescence      time.Duration
	quiescenceGiven bool
	// waits are the running query's own wait timeouts by place (run's
	// "waits"), nil when the request gave none.
	waits []time.Duration
	// crashed is set once a Crash word ran: the process is dead.
	crashed *CrashError
}

// protoError is an error reply; where is a path into the configure
// request's purpose object, or "".
type protoError struct {
	code, where, message string
}

// The error codes of PROTOCOL.md that hello, run and the framing answer
// with; configure's are in configure.go.
const (
	codeBadRequest    = "bad-request"
	codeUnknownOp     = "unknown-op"
	codeProtocol      = "protocol"
	codeNotConfigured = "not-configured"
	codeUnknownMethod = "unknown-method"
	codeUnknownSymbol = "unknown-symbol"
	codeInternal      = "internal"
	codeWedged        = "wedged"
)

// wedgedReply is ping's answer once the harness is wedged.
type wedgedReply struct {
	Wedged string `json:"wedged"`
}

func badRequest(where, format string, args ...any) *protoError {
	return &protoError{code: codeBadRequest, where: where, message: fmt.Sprintf(format, args...)}
}

// handle answers one request line. The returned error is set only when
// ctx ended during the request, when nobody waits for the reply any more.
// The checks and their messages are Server.handle's.
func (s *server) handle(ctx context.Context, line []byte) (reply []byte, bye bool, err error) {
	var id *int64
	fields, perr := func() (any, *protoError) {
		v, jerr := parseJSON(string(line))
		if jerr != nil {
			return nil, badRequest("", "the request is not JSON: %s", jerr)
		}
		req, ok := v.(*object)
		if !ok {
			return nil, badRequest("", "a request is a JSON object, not %s", typeName(v))
		}
		rawID := req.get("id")
		n, ok := rawID.(int64)
		if !ok {
			if rawID == nil {
				return nil, badRequest("", `the request has no "id"`)
			}
			return nil, badRequest("", `"id" must be an integer, not %s`, typeName(rawID))
		}
		id = &n
		op, ok := req.get("op").(string)
		if !ok {
			if req.get("op") == nil {
				return nil, badRequest("", `the request has no "op"`)
			}
			return nil, badRequest("", `"op" must be a string, not %s`, typeName(req.get("op")))
		}
		if s.wedged != "" && (op == "configure" || op == "run") {
			return nil, &protoError{code: codeWedged, message: s.wedged}
		}
		switch op {
		case "hello":
			return s.hello(req)
		case "configure":
			return s.configure(req)
		case "run":
			return s.run(ctx, req)
		case "probe":
			return s.probe(req)
		case "ping":
			if s.wedged != "" {
				return wedgedReply{Wedged: s.wedged}, nil
			}
			return nil, nil
		case "bye":
			bye = true
			return nil, nil
		}
		return nil, &protoError{code: codeUnknownOp, message: `unknown op "` + op + `" (hello, configure, run, probe, ping, bye)`}
	}()
	if ctx.Err() != nil {
		return nil, false, ctx.Err()
	}
	if s.crashed != nil {
		return nil, false, s.crashed
	}
	return encodeReply(id, fields, perr), bye, nil
}

// CrashException is the exception that kills the app when a query
// reaches a Crash word.
const CrashException = "java.lang.IllegalStateException"

// CrashError is a query that reached a Crash word: the app's process dies
// of Exception with Message, uncaught, in callin Callin.
type CrashError struct {
	Exception, Message, Callin string
}

func (e *CrashError) Error() string {
	return fmt.Sprintf("simulated harness: the app dies in %s: %s: %s", e.Callin, e.Exception, e.Message)
}

// encodeReply writes a reply line: id and ok first, then the op's fields
// in their declared order, as the Java harness writes them (the corpus
// compares replies byte for byte, or key by key in order where a value
// may differ).
func encodeReply(id *int64, fields any, perr *protoError) []byte {
	var b bytes.Buffer
	b.WriteString(`{"id":`)
	if id == nil {
		b.WriteString("null")
	} else {
		b.WriteString(strconv.FormatInt(*id, 10))
	}
	if perr != nil {
		e := struct {
			Code    string `json:"code"`
			Where   string `json:"where,omitempty"`
			Message string `json:"message"`
		}{perr.code, perr.where, perr.message}
		b.WriteString(`,"ok":false,"error":`)
		b.Write(mustJSON(e))
		b.WriteString("}")
		return b.Bytes()
	}
	b.WriteString(`,"ok":true`)
	if fields != nil {
		// fields is a struct: splice its members after ok.
		if obj := mustJSON(fields); len(obj) > 2 {
			b.WriteByte(',')
			b.Write(obj[1 : len(obj)-1])
		}
	}
	b.WriteString("}")
	return b.Bytes()
}

// mustJSON encodes the reply types of this package, which hold only
// strings, numbers and slices of them: encoding cannot fail. Like the Java
// harness's Json.write, it leaves <, > and & as they are.
func mustJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("simulated harness: encode a reply: %v", err))
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func (s *server) hello(req *object) (any, *protoError) {
	p := req.get("protocol")
	v, ok := p.(int64)
	if !ok {
		if p == nil {
			return nil, badRequest("", `hello needs "protocol"`)
		}
		return nil, badRequest("", `"protocol" must be an integer, not %s`, typeName(p))
	}
	if v != harness.ProtocolVersion {
		return nil, &protoError{code: codeProtocol, message: fmt.Sprintf("this harness speaks protocol %d, not %d", harness.ProtocolVersion, v)}
	}
	r := s.opts.Hello
	r.Protocol = harness.ProtocolVersion
	if r.Harness == "" {
		r.Harness = HarnessVersion
	}
	if r.Platform == "" {
		r.Platform = "android"
	}
	if s.wedged != "" {
		return struct {
			harness.Hello
			Wedged string `json:"wedged"`
		}{r, s.wedged}, nil
	}
	return r, nil
}
