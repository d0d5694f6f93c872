package adbclient

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"testing"
)

// scripted is an adb server stand-in for unit tests: every connection is
// handed to the test's handler, which reads requests and answers them
// byte for byte. It pins the wire format down where the real server's
// answers cannot be provoked at will (a FAIL before the whole file is
// read, a PTY's \r\n).
type scripted struct {
	ln net.Listener
	wg sync.WaitGroup
}

func newScripted(t *testing.T, handle func(c *sconn)) *Client {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &scripted{ln: ln}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer nc.Close()
				c := &sconn{Conn: nc, r: bufio.NewReader(nc)}
				defer func() {
					// A handler ends a connection by returning, or by
					// failing to read from a client that went away.
					if r := recover(); r != nil && r != errGone {
						panic(r)
					}
				}()
				handle(c)
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		s.wg.Wait()
	})
	port := ln.Addr().(*net.TCPAddr).Port
	return New(Config{Host: "127.0.0.1", Port: port})
}

var errGone = errors.New("client went away")

type sconn struct {
	net.Conn
	r *bufio.Reader
}

// req reads one framed request.
func (c *sconn) req() string {
	var hex [4]byte
	if _, err := io.ReadFull(c.r, hex[:]); err != nil {
		panic(errGone)
	}
	n, err := strconv.ParseUint(string(hex[:]), 16, 16)
	if err != nil {
		panic(fmt.Sprintf("bad request length %q", hex[:]))
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(c.r, buf); err != nil {
		panic(errGone)
	}
	return string(buf)
}

func (c *sconn) okay()                  { io.WriteString(c, "OKAY") }
func (c *sconn) message(msg string)     { fmt.Fprintf(c, "%04x%s", len(msg), msg) }
func (c *sconn) okayMessage(msg string) { c.okay(); c.message(msg) }
func (c *sconn) fail(msg string)        { io.WriteString(c, "FAIL"); c.message(msg) }

// packet writes one shell protocol v2 packet.
func (c *sconn) packet(id byte, data string) {
	var h [5]byte
	h[0] = id
	binary.LittleEndian.PutUint32(h[1:], uint32(len(data)))
	c.Write(append(h[:], data...))
}

// readN reads exactly n bytes.
func (c *sconn) readN(n int) []byte {
	buf := make([]byte, n)
	if _, err := io.ReadFull(c.r, buf); err != nil {
		panic(errGone)
	}
	return buf
}

// syncMsg reads a sync request: id and length-prefixed payload or int.
func (c *sconn) syncHead() (string, uint32) {
	h := c.readN(8)
	return string(h[:4]), binary.LittleEndian.Uint32(h[4:])
}

func (c *sconn) syncReply(id, msg string) {
	var h [8]byte
	copy(h[:], id)
	binary.LittleEndian.PutUint32(h[4:], uint32(len(msg)))
	c.Write(append(h[:], msg...))
}
