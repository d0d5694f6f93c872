package adbd

import (
	"bytes"
	"errors"
	"io"
	"net"
	"testing"
)

// hostWire is the host's end of a conn as the stream sees it: every
// message the device sends is decoded, and react may answer it at once,
// before the device's Write returns, as a host does whose answers arrive
// before the device's writer is scheduled again.
type hostWire struct {
	net.Conn // unused methods
	react    func(m message)
	sent     []message
}

func (w *hostWire) Write(b []byte) (int, error) {
	m, err := readMessage(bytes.NewReader(b))
	if err != nil {
		return 0, err
	}
	w.sent = append(w.sent, m)
	if w.react != nil {
		w.react(m)
	}
	return len(b), nil
}

// TestWriteAcknowledgedThenClosed: the host OKAYs a WRTE and then closes
// the stream (a forwarded client read the reply and hung up). Both reach
// the stream before its writer looks; the write was delivered and must
// say so, every time, however the writer's select would choose.
func TestWriteAcknowledgedThenClosed(t *testing.T) {
	const local, remote = 5, 9
	for i := range 200 {
		w := &hostWire{}
		c := &conn{nc: w, streams: map[uint32]*stream{}, hostMax: hostMaxDataFloor}
		s := newStream(c, local, remote)
		c.streams[local] = s
		w.react = func(m message) {
			if m.cmd == cmdWRTE {
				c.handle(message{cmd: cmdOKAY, arg0: remote, arg1: local})
				c.handle(message{cmd: cmdCLSE, arg0: remote, arg1: local})
			}
		}
		n, err := s.Write([]byte("echo: bye\n"))
		if n != 10 || err != nil {
			t.Fatalf("run %d: Write = %d, %v after the host's OKAY; want 10, nil", i, n, err)
		}
		// A further write finds the stream closed and sends nothing.
		if n, err := s.Write([]byte("more")); n != 0 || !errors.Is(err, io.ErrClosedPipe) {
			t.Fatalf("run %d: Write after CLSE = %d, %v; want 0, io.ErrClosedPipe", i, n, err)
		}
		if len(w.sent) != 1 {
			t.Fatalf("run %d: sent %d messages, want the one WRTE", i, len(w.sent))
		}
	}
}

// TestWriteClosedUnacknowledged: a CLSE with no OKAY before it means the
// host dropped the data; Write reports the stream closed.
func TestWriteClosedUnacknowledged(t *testing.T) {
	const local, remote = 5, 9
	w := &hostWire{}
	c := &conn{nc: w, streams: map[uint32]*stream{}, hostMax: hostMaxDataFloor}
	s := newStream(c, local, remote)
	c.streams[local] = s
	w.react = func(m message) {
		if m.cmd == cmdWRTE {
			c.handle(message{cmd: cmdCLSE, arg0: remote, arg1: local})
		}
	}
	if n, err := s.Write([]byte("lost")); n != 0 || !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("Write = %d, %v; want 0, io.ErrClosedPipe", n, err)
	}
}
