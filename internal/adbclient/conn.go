package adbclient

import (
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
)

// maxRequest is what four hex digits can announce. goadb's wire.Sender
// refuses anything over 255 bytes, which rules out ordinary shell command
// lines, so requests are framed here.
const maxRequest = 0xffff

// conn is one connection to the adb server. The server serves one request
// per connection (or one transport switch followed by one service), so
// every operation dials its own and closes it.
type conn struct {
	net.Conn
	// stop detaches the context watch; it reports false when the context
	// already fired and closed the connection.
	stop      func() bool
	closeOnce sync.Once
	closeErr  error
}

// dial connects to the server. Dialing is ours rather than goadb's: its
// dialer wraps foreign errors assuming they are its own type and panics.
// Until release is called, ctx being done closes the connection, which
// unblocks any read or write in progress.
func (c *Client) dial(ctx context.Context) (*conn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", c.addr)
	if err != nil {
		return nil, fmt.Errorf("adb server at %s: %w", c.addr, err)
	}
	cn := &conn{Conn: nc}
	cn.stop = context.AfterFunc(ctx, func() { cn.closeConn() })
	return cn, nil
}

// release stops ctx from closing the connection, for streams that outlive
// the context they were opened with. It reports false when ctx already
// closed it.
func (cn *conn) release() bool { return cn.stop() }

// Close is idempotent because both the context watch and the owner close.
func (cn *conn) Close() error {
	cn.stop()
	return cn.closeConn()
}

// closeConn is the context watch's half of Close: it must not touch stop,
// which may not be assigned yet when the context is already done.
func (cn *conn) closeConn() error {
	cn.closeOnce.Do(func() { cn.closeErr = cn.Conn.Close() })
	return cn.closeErr
}

// send frames one request: four hex digits of length, then the request.
func (cn *conn) send(req string) error {
	if len(req) > maxRequest {
		return fmt.Errorf("request of %d bytes is longer than the adb protocol allows (%d)", len(req), maxRequest)
	}
	if _, err := io.WriteString(cn, fmt.Sprintf("%04x%s", len(req), req)); err != nil {
		return fmt.Errorf("send %s: %w", describe(req), err)
	}
	return nil
}

// status reads OKAY or FAIL; a FAIL's message becomes a *ServerError.
func (cn *conn) status(req string) error {
	var st [4]byte
	if _, err := io.ReadFull(cn, st[:]); err != nil {
		return fmt.Errorf("read the reply to %s: %w", describe(req), err)
	}
	switch string(st[:]) {
	case "OKAY":
		return nil
	case "FAIL":
		msg, err := cn.message()
		if err != nil {
			return fmt.Errorf("read why %s failed: %w", describe(req), err)
		}
		return &ServerError{Request: req, Message: msg}
	default:
		return fmt.Errorf("reply to %s starts with %q, not OKAY or FAIL: is this an adb server?", describe(req), st[:])
	}
}

// message reads a length-prefixed reply in full. goadb's scanner clips the
// length to 255, so long replies (a device list of more than a few
// devices) came back truncated without an error.
func (cn *conn) message() (string, error) {
	var hex [4]byte
	if _, err := io.ReadFull(cn, hex[:]); err != nil {
		return "", fmt.Errorf("read reply length: %w", err)
	}
	n, err := strconv.ParseUint(string(hex[:]), 16, 16)
	if err != nil {
		return "", fmt.Errorf("reply length %q is not four hex digits", hex[:])
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(cn, buf); err != nil {
		return "", fmt.Errorf("read a reply of %d bytes: %w", n, err)
	}
	return string(buf), nil
}

// request sends req and checks the status.
func (cn *conn) request(req string) error {
	if err := cn.send(req); err != nil {
		return err
	}
	return cn.status(req)
}

// query runs a host request whose answer is one length-prefixed message.
func (c *Client) query(ctx context.Context, req string) (string, error) {
	cn, err := c.dial(ctx)
	if err != nil {
		return "", err
	}
	defer cn.Close()
	if err := cn.request(req); err != nil {
		return "", ctxErr(ctx, err)
	}
	msg, err := cn.message()
	if err != nil {
		return "", ctxErr(ctx, fmt.Errorf("%s: %w", describe(req), err))
	}
	// Let the server close first, as adb's own client does (adb_query
	// reads until the server's orderly shutdown): the server closes once
	// it is done with the request, and a client that hangs up as soon as
	// it has the answer races the server's own teardown. For host:connect
	// that teardown is a service thread closing its end of a socketpair
	// while it answers. The answer is complete; how the reading ends does
	// not change it, and ctx still bounds it.
	io.Copy(io.Discard, cn)
	return msg, nil
}

// ctxErr prefers the context's error: once ctx is done the connection was
// closed under the operation, and "use of closed network connection" would
// hide why.
func ctxErr(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("%w: %w", err, cerr)
	}
	return err
}

// describe shortens a request for error messages: shell command lines and
// file names can be long.
func describe(req string) string {
	const limit = 120
	if len(req) > limit {
		return strconv.Quote(req[:limit] + "...")
	}
	return strconv.Quote(req)
}
