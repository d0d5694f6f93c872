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
	"strconv"
	"strings"

	"github.com/droidstar/droidstar/internal/backend/sim"
	"github.com/droidstar/droidstar/internal/harness"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/purpose"
)

// HarnessVersion is what the Java harness reports in hello
// (Server.HARNESS_VERSION), so that a host that checks the harness it
// talks to takes the simulation for the harness it ships.
const HarnessVersion = "0.1.0"

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
		// Java's BufferedReader.readLine.
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
// failed configure clears as the Java harness does.
type server struct {
	opts   Options
	config *config
}

// protoError is an error reply; where is a path into the configure
// request's purpose object, or "".
type protoError struct {
	code, where, message string
}

func (e *protoError) Error() string { return e.code + ": " + e.message }

// The error codes of PROTOCOL.md that a simulation can run into.
const (
	codeBadRequest    = "bad-request"
	codeUnknownOp     = "unknown-op"
	codeProtocol      = "protocol"
	codeNotConfigured = "not-configured"
	codeUnknownMethod = "unknown-method"
	codeUnknownSymbol = "unknown-symbol"
	codeInternal      = "internal"
)

func badRequest(where, format string, args ...any) *protoError {
	return &protoError{code: codeBadRequest, where: where, message: fmt.Sprintf(format, args...)}
}

// handle answers one request line. The returned error is set only when
// ctx ended during the request, when nobody waits for the reply any more.
func (s *server) handle(ctx context.Context, line []byte) (reply []byte, bye bool, err error) {
	var id *int64
	fields, perr := func() (any, *protoError) {
		req, perr := decodeRequest(line)
		if perr != nil {
			return nil, perr
		}
		rawID, ok := req["id"]
		if !ok || rawID == nil {
			return nil, badRequest("", `the request has no "id"`)
		}
		n, ok := integer(rawID)
		if !ok {
			return nil, badRequest("", `"id" must be an integer, not %s`, typeName(rawID))
		}
		id = &n
		op, ok := req["op"].(string)
		if !ok {
			if req["op"] == nil {
				return nil, badRequest("", `the request has no "op"`)
			}
			return nil, badRequest("", `"op" must be a string, not %s`, typeName(req["op"]))
		}
		switch op {
		case "hello":
			return s.hello(req)
		case "configure":
			return s.configure(req)
		case "run":
			return s.run(ctx, req)
		case "ping":
			return nil, nil
		case "bye":
			bye = true
			return nil, nil
		}
		return nil, &protoError{code: codeUnknownOp, message: fmt.Sprintf("unknown op %q (hello, configure, run, ping, bye)", op)}
	}()
	if ctx.Err() != nil {
		return nil, false, ctx.Err()
	}
	return encodeReply(id, fields, perr), bye, nil
}

// decodeRequest reads a request line as the Java harness does: one JSON
// object, numbers kept exact so that an integer id can be told from 1.5.
func decodeRequest(line []byte) (map[string]any, *protoError) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, badRequest("", "the request is not JSON: the line is empty")
		}
		return nil, badRequest("", "the request is not JSON: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, badRequest("", "the request is not JSON: unexpected text after the value")
	}
	req, ok := v.(map[string]any)
	if !ok {
		return nil, badRequest("", "a request is a JSON object, not %s", typeName(v))
	}
	return req, nil
}

// integer reads a JSON integer the way the Java harness's parser does: a
// number without fraction or exponent that fits a long.
func integer(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok || strings.ContainsAny(string(n), ".eE") {
		return 0, false
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	return i, err == nil
}

// typeName names a JSON value's type in messages, as Json.typeName does.
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("%T", v)
}

// encodeReply writes a reply line: id and ok first, then the op's fields
// in their declared order, as the Java harness writes them.
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
// strings, numbers and slices of them: encoding cannot fail.
func mustJSON(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("simulated harness: encode a reply: %v", err))
	}
	return data
}

func (s *server) hello(req map[string]any) (any, *protoError) {
	p, ok := req["protocol"]
	if !ok || p == nil {
		return nil, badRequest("", `hello needs "protocol"`)
	}
	v, ok := integer(p)
	if !ok {
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
	return r, nil
}
