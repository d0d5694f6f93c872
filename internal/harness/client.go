package harness

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/query"
)

// maxLine caps a reply line: a run of a large batch answers in one line.
const maxLine = 64 << 20

// Client speaks the protocol over one stream. It is not safe for
// concurrent use: the protocol is one request, one reply.
type Client struct {
	conn   io.ReadWriteCloser
	rd     *bufio.Reader
	nextID int64
	// describe names the other end in errors ("harness on jvm-1").
	describe string

	closeOnce sync.Once
	closeErr  error
}

// NewClient wraps a connected stream; name identifies the harness in errors.
func NewClient(conn io.ReadWriteCloser, name string) *Client {
	return &Client{conn: conn, rd: bufio.NewReaderSize(conn, 64<<10), describe: name}
}

// ErrClosed is returned when the harness closed the stream (it crashed or
// exited), wrapped with what was being asked.
var ErrClosed = errors.New("the harness closed the connection")

type envelope struct {
	ID    int64        `json:"id"`
	OK    bool         `json:"ok"`
	Error *RemoteError `json:"error"`
}

// call sends one request and decodes the reply into reply. A cancelled
// context closes the stream, the only way to interrupt a blocked read; the
// client is unusable afterwards.
func (c *Client) call(ctx context.Context, op string, req map[string]any, reply any) error {
	c.nextID++
	id := c.nextID
	req["id"], req["op"] = id, op
	line, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("%s: encode %s: %w", c.describe, op, err)
	}
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()

	if _, err := c.conn.Write(append(line, '\n')); err != nil {
		return c.ioError(ctx, op, err)
	}
	data, err := c.readLine()
	if err != nil {
		return c.ioError(ctx, op, err)
	}
	var env envelope
	if err := json.Unmarshal(data, &env); err != nil {
		return fmt.Errorf("%s: %s: reply is not protocol JSON: %w: %s", c.describe, op, err, clip(data))
	}
	if env.ID != id {
		return fmt.Errorf("%s: %s: reply has id %d, want %d: %s", c.describe, op, env.ID, id, clip(data))
	}
	if !env.OK {
		if env.Error == nil {
			return fmt.Errorf("%s: %s: error reply without an error: %s", c.describe, op, clip(data))
		}
		env.Error.Op = op
		return env.Error
	}
	if reply != nil {
		if err := json.Unmarshal(data, reply); err != nil {
			return fmt.Errorf("%s: %s: unexpected reply: %w: %s", c.describe, op, err, clip(data))
		}
	}
	return nil
}

func (c *Client) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, isPrefix, err := c.rd.ReadLine()
		if err != nil {
			return nil, err
		}
		line = append(line, chunk...)
		if len(line) > maxLine {
			return nil, fmt.Errorf("reply line longer than %d bytes", maxLine)
		}
		if !isPrefix {
			return line, nil
		}
	}
}

func (c *Client) ioError(ctx context.Context, op string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %s: %w", c.describe, op, ctx.Err())
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) {
		return fmt.Errorf("%s: %s: %w", c.describe, op, ErrClosed)
	}
	return fmt.Errorf("%s: %s: %w", c.describe, op, err)
}

func clip(b []byte) string {
	const max = 300
	if len(b) > max {
		return string(b[:max]) + "..."
	}
	return string(b)
}

// Hello checks that the harness speaks our protocol and says what it runs on.
func (c *Client) Hello(ctx context.Context, host string) (Hello, error) {
	var h Hello
	err := c.call(ctx, "hello", map[string]any{"protocol": ProtocolVersion, "host": host}, &h)
	if err == nil && h.Protocol != ProtocolVersion {
		err = fmt.Errorf("%s: the harness speaks protocol %d, this droidstar speaks %d: install the harness that comes with it", c.describe, h.Protocol, ProtocolVersion)
	}
	return h, err
}

// Configure sends a purpose. An error the harness attributes to a purpose
// field comes back as a purpose error at that field's line.
func (c *Client) Configure(ctx context.Context, cfg *Configuration) (Configured, error) {
	var r Configured
	err := c.call(ctx, "configure", map[string]any{"purpose": cfg.Request}, &r)
	var re *RemoteError
	if errors.As(err, &re) && cfg.Blames(re) {
		return r, cfg.PurposeError(re)
	}
	return r, err
}

// Run runs a batch of queries and returns one result per query. When the
// harness wedged on a query (a call on its main thread did not return in
// time), it returns the results of the queries before that one and a
// *WedgedError.
func (c *Client) Run(ctx context.Context, queries [][]string) ([]QueryResult, error) {
	return c.RunUnder(ctx, queries, RunTimeouts{quiescence: PurposeQuiescence})
}

// PurposeQuiescence as Quiet's Quiescence sends none: the purpose's
// timeouts.quiescence holds.
const PurposeQuiescence time.Duration = -1

// Quiet is the quiescence timeouts a run asks for instead of the
// purpose's (PROTOCOL.md, run's "quiescence" and "waits"), none above it.
type Quiet struct {
	// Quiescence is the run's; PurposeQuiescence asks for none.
	Quiescence time.Duration
	// Waits, when set, gives each wait its own: Waits(query)[k] is that
	// of the wait at place k of query; 0, or a place past the end, is
	// Quiescence.
	Waits func(query []string) []time.Duration
}

// RunTimeouts are the timeouts one run request carries, worked out from
// Quiet for its queries in whole milliseconds (rounded up), as the
// request says them.
type RunTimeouts struct {
	quiescence time.Duration
	waits      [][]time.Duration // by query and place; nil when none
}

// For works out the timeouts of a run of queries.
func (t Quiet) For(queries [][]string) (RunTimeouts, error) {
	r := RunTimeouts{quiescence: t.Quiescence}
	if r.quiescence >= 0 {
		r.quiescence = wholeMillis(r.quiescence)
	}
	if t.Waits == nil {
		return r, nil
	}
	r.waits = make([][]time.Duration, len(queries))
	for i, q := range queries {
		own := t.Waits(q)
		r.waits[i] = make([]time.Duration, len(q))
		for k, sym := range q {
			if sym != mealy.Wait {
				continue
			}
			d := r.quiescence
			if k < len(own) && own[k] > 0 {
				d = wholeMillis(own[k])
			}
			if d < 0 {
				return RunTimeouts{}, fmt.Errorf("the wait at %d of query %q has no timeout of its own and the run none", k, strings.Join(q, " "))
			}
			r.waits[i][k] = d
		}
	}
	return r, nil
}

// wholeMillis is d rounded up to whole milliseconds, as a request says it.
func wholeMillis(d time.Duration) time.Duration {
	return (d + time.Millisecond - 1) / time.Millisecond * time.Millisecond
}

// Mark records in a run's results the timeouts their waits ran under.
func (r RunTimeouts) Mark(results []query.Result) {
	for k := range results {
		switch {
		case r.waits != nil && k < len(r.waits):
			results[k].Quiescence, results[k].Waits = 0, r.waits[k]
		case r.waits == nil && r.quiescence >= 0:
			results[k].Quiescence = r.quiescence
		}
	}
}

// RunUnder is Run under the run's own timeouts (see Quiet.For).
func (c *Client) RunUnder(ctx context.Context, queries [][]string, t RunTimeouts) ([]QueryResult, error) {
	var r struct {
		Results []QueryResult `json:"results"`
		Wedged  string        `json:"wedged"`
	}
	req := map[string]any{"queries": queries}
	if t.quiescence >= 0 {
		req["quiescence"] = t.quiescence.Milliseconds()
	}
	if t.waits != nil {
		waits := make([][]int64, len(queries))
		for i, q := range queries {
			waits[i] = []int64{}
			for k, sym := range q {
				if sym == mealy.Wait {
					waits[i] = append(waits[i], t.waits[i][k].Milliseconds())
				}
			}
		}
		req["waits"] = waits
	}
	if err := c.call(ctx, "run", req, &r); err != nil {
		var re *RemoteError
		if errors.As(err, &re) && re.Code == CodeWedged {
			return nil, &WedgedError{Query: -1, Reason: re.Message}
		}
		return nil, err
	}
	n := len(r.Results)
	if r.Wedged != "" {
		if n == 0 || n > len(queries) {
			return nil, fmt.Errorf("%s: run: wedged after %d results for %d queries", c.describe, n, len(queries))
		}
		if err := c.checkOutputs(queries, r.Results); err != nil {
			return nil, err
		}
		w := &WedgedError{Query: n - 1, Reason: r.Wedged}
		if e := r.Results[n-1].Err; e != nil && e.Kind == "timeout" {
			w.Timeout = e
			return r.Results[:n-1], w
		}
		return r.Results, w
	}
	if n != len(queries) {
		return nil, fmt.Errorf("%s: run: %d results for %d queries", c.describe, n, len(queries))
	}
	if err := c.checkOutputs(queries, r.Results); err != nil {
		return nil, err
	}
	return r.Results, nil
}

func (c *Client) checkOutputs(queries [][]string, results []QueryResult) error {
	for i, res := range results {
		if len(res.Outputs) > len(queries[i]) || len(res.Outputs) == 0 && len(queries[i]) > 0 {
			return fmt.Errorf("%s: run: %d outputs for query of %d symbols", c.describe, len(res.Outputs), len(queries[i]))
		}
	}
	return nil
}

// CodeWedged is the error code of a request the harness refuses because
// it is wedged.
const CodeWedged = "wedged"

// WedgedError is a run the harness could not finish: a call on its main
// thread did not return within the main-thread timeout (PROTOCOL.md,
// "Timeouts"), and the harness runs nothing more until it is restarted.
type WedgedError struct {
	// Query is the index in the run of the query that wedged the harness:
	// a call of its reset or of a callin timed out (Timeout is its err,
	// and Run returns no result for it), or its dispose did (Run returns
	// its result). -1: the harness was wedged before and refused the run.
	Query   int
	Timeout *QueryErr
	// Reason is the harness's own account.
	Reason string
}

func (e *WedgedError) Error() string {
	if e.Timeout != nil && e.Timeout.Message != "" {
		return "the harness timed out: " + e.Timeout.Message
	}
	return "the harness is wedged: " + e.Reason
}

// MainThreadTimeout is how long the harness waits for a call on its main
// thread before it answers err of kind timeout and wedges (PROTOCOL.md,
// "Timeouts"): ten times the quiescence timeout, at least 10 s.
func MainThreadTimeout(quiescence time.Duration) time.Duration {
	return max(10*time.Second, 10*quiescence)
}

// Bye asks the harness to close the stream and end.
func (c *Client) Bye(ctx context.Context) error {
	return c.call(ctx, "bye", map[string]any{}, nil)
}

// Close closes the stream.
func (c *Client) Close() error {
	c.closeOnce.Do(func() { c.closeErr = c.conn.Close() })
	return c.closeErr
}
