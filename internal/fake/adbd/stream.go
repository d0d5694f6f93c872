package adbd

import (
	"io"
	"sync"
)

// stream is one ADB stream, seen from the device: an io.ReadWriteCloser
// for the service behind it. Read must not be called concurrently with
// itself; Write and Close may be called from any goroutine.
type stream struct {
	c             *conn
	local, remote uint32

	// in holds the host's one unacknowledged WRTE: the host sends the next
	// only after our OKAY, which Read sends when it takes the payload, so
	// the reader goroutine never blocks on a slow service.
	in  chan []byte
	buf []byte

	// okay receives the host's OKAY for our one outstanding WRTE.
	okay chan struct{}
	wmu  sync.Mutex

	closeOnce sync.Once
	closed    chan struct{}
}

func newStream(c *conn, local, remote uint32) *stream {
	return &stream{c: c, local: local, remote: remote, in: make(chan []byte, 1), okay: make(chan struct{}, 1), closed: make(chan struct{})}
}

func (s *stream) deliver(data []byte) {
	select {
	case s.in <- data:
	default:
		// A second WRTE before our OKAY breaks the protocol; adbd would
		// drop the connection, dropping the stream is enough here.
		s.Close()
	}
}

func (s *stream) Read(p []byte) (int, error) {
	if len(s.buf) == 0 {
		select {
		case b := <-s.in:
			s.take(b)
		default:
			select {
			case b := <-s.in:
				s.take(b)
			case <-s.closed:
				// Data that arrived just before the CLSE still counts.
				select {
				case b := <-s.in:
					s.buf = b
				default:
					return 0, io.EOF
				}
			}
		}
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	return n, nil
}

func (s *stream) take(b []byte) {
	s.buf = b
	select {
	case <-s.closed:
	default:
		s.c.send(cmdOKAY, s.local, s.remote, nil)
	}
}

// Write sends p in WRTEs of at most the host's maxdata, each after the
// host acknowledged the previous one.
func (s *stream) Write(p []byte) (int, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	n := 0
	for len(p) > 0 {
		select {
		case <-s.closed:
			return n, io.ErrClosedPipe
		default:
		}
		chunk := min(len(p), s.c.maxWrite())
		if err := s.c.send(cmdWRTE, s.local, s.remote, p[:chunk]); err != nil {
			return n, err
		}
		if !s.acknowledged() {
			return n, io.ErrClosedPipe
		}
		n += chunk
		p = p[chunk:]
	}
	return n, nil
}

// acknowledged waits for the host's OKAY of our outstanding WRTE and says
// whether it came. The host OKAYs a WRTE as soon as its local socket has
// taken the data, before it can notice that its client hung up, so a
// client that reads a reply and closes (a forwarded connection after the
// harness's answer to bye) makes the host send OKAY, then CLSE. The
// connection hands both to the stream in that order, but a writer that
// wakes up late finds both ready, and a select picks among ready cases at
// random: it must look for the OKAY before believing the CLSE, or a reply
// the host delivered counts as lost (and the harness, seeing its answer to
// bye fail, never finishes).
func (s *stream) acknowledged() bool {
	select {
	case <-s.okay:
		return true
	case <-s.closed:
		select {
		case <-s.okay:
			return true
		default:
			return false
		}
	}
}

// Close closes the whole stream (ADB has no half-close) and tells the
// host, unless the host closed it first.
func (s *stream) Close() error {
	if s.markClosed() {
		s.c.send(cmdCLSE, s.local, s.remote, nil)
	}
	return nil
}

// markClosed closes the stream locally and says whether this call did.
// The host's CLSE ends here too: adbd does not answer a CLSE.
func (s *stream) markClosed() bool {
	did := false
	s.closeOnce.Do(func() {
		did = true
		close(s.closed)
		s.c.forget(s)
	})
	return did
}

func (c *conn) maxWrite() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hostMax
}
