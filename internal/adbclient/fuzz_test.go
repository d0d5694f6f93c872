package adbclient

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// FuzzParseReplies feeds one text to each parser of the adb server's and
// device's answers and checks what their callers rely on.
func FuzzParseReplies(f *testing.F) {
	for _, s := range []string{
		"0123456789ABCDEF       device usb:1-4 product:walleye model:Pixel_2 device:walleye transport_id:3\n" +
			"????????????           no permissions (missing udev rules?); see [http://developer.android.com/tools/device.html] usb:1-1 transport_id:5\n",
		"emulator-5554 offline transport_id:1\n\n",
		"[dalvik.vm.heapsize]: [512m]\n[multi.line]: [first\nsecond]\n[ends.in.bracket]: [a]\nb]\n[looks.like.entry]: [x\n[fake]: [y]\n",
		"[a]: [1]\r\n[b]: [2\r\n3]\r\n",
		"tcp:5037", "tcp:[::1]:5037", "tcp:localhost:1", "local:/tmp/adb", "tcp::1",
		"connected to 127.0.0.1:40001", "already connected to x", "failed to connect to '127.0.0.1:1': Connection refused",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lines := 0
		for _, l := range strings.Split(s, "\n") {
			if strings.TrimSpace(l) != "" {
				lines++
			}
		}
		devices := parseDevices(s)
		if len(devices) > lines {
			t.Fatalf("%d devices from %d lines", len(devices), lines)
		}
		for _, d := range devices {
			if d.Serial == "" || strings.ContainsAny(d.Serial, " \t\n") {
				t.Fatalf("serial %q", d.Serial)
			}
		}
		for k := range parseGetprop(s) {
			if strings.ContainsAny(k, "[]") || !strings.Contains(s, "["+k+"]: [") {
				t.Fatalf("key %q is not one of the input's", k)
			}
		}
		if host, port, err := parseServerSocket(s); err == nil {
			if port < 1 || port > 65535 {
				t.Fatalf("port %d", port)
			}
			spec := "tcp:" + strconv.Itoa(port)
			if host != "" {
				spec = "tcp:" + net.JoinHostPort(host, strconv.Itoa(port))
			}
			if h2, p2, err := parseServerSocket(spec); err != nil || h2 != host || p2 != port {
				t.Fatalf("%q reads as %q %d; written back as %q it reads as %q %d (%v)", s, host, port, spec, h2, p2, err)
			}
		} else if !strings.Contains(err.Error(), "ADB_SERVER_SOCKET=") {
			t.Fatalf("error does not name the variable: %v", err)
		}
		ok := strings.HasPrefix(s, "connected to ") || strings.HasPrefix(s, "already connected to ")
		if err := parseConnect("h:1", s); (err == nil) != ok {
			t.Fatalf("parseConnect(%q) = %v", s, err)
		}
	})
}

// readConn is a server connection that answers with fixed bytes; nothing
// but Read is called on it.
type readConn struct {
	net.Conn
	r io.Reader
}

func (c readConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// FuzzWire feeds bytes to the readers of the adb server's framing (a
// status, then a FAIL's length-prefixed message) and of adbd's sync
// verdict. OKAY is success, FAIL a *ServerError or *SyncError carrying
// the message, anything else an error; never a panic, never a read past
// what a length announced.
func FuzzWire(f *testing.F) {
	for _, s := range []string{"OKAY", "FAIL0005hello", "FAIL000", "FAILzzzz", "OKAX", "FAIL0010short", "OKAY\x00\x00\x00\x00", "FAIL\x03\x00\x00\x00why", "FAIL\xff\xff\xff\xff"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cn := &conn{Conn: readConn{r: bytes.NewReader(data)}}
		err := cn.status("host:version")
		var se *ServerError
		switch {
		case bytes.HasPrefix(data, []byte("OKAY")):
			if err != nil {
				t.Fatalf("OKAY read as %v", err)
			}
		case errors.As(err, &se):
			n, perr := strconv.ParseUint(string(data[4:8]), 16, 16)
			if !bytes.HasPrefix(data, []byte("FAIL")) || perr != nil || se.Message != string(data[8:8+n]) {
				t.Fatalf("server error %q from %q", se.Message, data)
			}
		case err == nil:
			t.Fatalf("%q read as OKAY", data)
		}
		err = readSyncReply(bytes.NewReader(data), "/sdcard/x")
		var sy *SyncError
		switch {
		case len(data) >= 8 && bytes.HasPrefix(data, []byte("OKAY")):
			if err != nil {
				t.Fatalf("sync OKAY read as %v", err)
			}
		case errors.As(err, &sy):
			if sy.Path != "/sdcard/x" || !bytes.Contains(data, []byte(sy.Message)) || len(sy.Message) > maxSyncMessage {
				t.Fatalf("sync error %#v from %q", sy, data)
			}
		case err == nil:
			t.Fatalf("%q read as a sync OKAY", data)
		}
	})
}

// pkt is one shell protocol v2 packet.
type pkt struct {
	id   byte
	data string
}

// v2Packets frames shell protocol v2 packets as adbd sends them.
func v2Packets(pkts ...pkt) []byte {
	var b []byte
	for _, p := range pkts {
		b = append(b, p.id)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(p.data)))
		b = append(b, p.data...)
	}
	return b
}

// shellWant is what a shell stream's bytes mean, decoded in one piece
// from the protocol's definition (adb's shell_protocol.h for v2, the
// marker echo for legacy): the reference the streaming decoders, fed the
// same bytes in pieces, must agree with.
type shellWant struct {
	out    [3][]byte // by packet id: idStdout, idStderr
	exit   int
	failed bool // the stream ends without an exit code
}

func decodeV2(data []byte) shellWant {
	var w shellWant
	for {
		if len(data) < 5 {
			w.failed = true
			return w
		}
		id, size := data[0], binary.LittleEndian.Uint32(data[1:5])
		data = data[5:]
		n := int(min(uint64(size), uint64(len(data))))
		switch id {
		case idStdout, idStderr:
			w.out[id] = append(w.out[id], data[:n]...)
		case idExit:
			if size > 1<<20 || n < int(size) || size == 0 {
				w.failed = true
				return w
			}
			w.exit = int(data[0])
			return w
		default:
			if size > 1<<20 {
				w.failed = true
				return w
			}
		}
		if n < int(size) {
			w.failed = true
			return w
		}
		data = data[n:]
	}
}

func decodeLegacy(data, marker []byte) shellWant {
	var w shellWant
	i := bytes.Index(data, marker)
	if i < 0 {
		w.out[idStdout] = data
		w.failed = true
		return w
	}
	w.out[idStdout] = data[:i]
	tail := data[i+len(marker):]
	if j := bytes.IndexByte(tail, '\n'); j >= 0 {
		tail = tail[:j]
	}
	code, err := strconv.Atoi(string(bytes.TrimSpace(tail)))
	w.exit, w.failed = code, err != nil
	return w
}

// FuzzShellStream feeds bytes to both shell stream decoders (shell
// protocol v2 and the legacy marker echo), split into reads of a fuzzed
// size and read back in a fuzzed buffer size: whatever the split, what
// comes out is what the bytes say (the same output per stream, the same
// exit code, an error exactly when no exit code arrived), the legacy
// marker never leaks into the output, and nothing panics or hangs.
func FuzzShellStream(f *testing.F) {
	const marker = "DROIDSTAR-EXIT-0123456789abcdef01234567:"
	// The streams of this package's shell tests (TestShellV2,
	// TestShellV2NoExit, TestLegacyShellChunks, TestShellLegacyPTY),
	// and edges of the framing.
	for _, s := range []struct {
		legacy bool
		data   []byte
	}{
		{false, v2Packets(pkt{idStdout, "out 1\n"}, pkt{idStderr, "err 1\n"}, pkt{idStdout, ""}, pkt{idStdout, "out 2\n"}, pkt{idStderr, "err 2\n"}, pkt{idExit, "\x03"})},
		{false, v2Packets(pkt{idStdout, "partial"})},
		{false, v2Packets(pkt{idExit, ""})},
		{false, v2Packets(pkt{9, "from a newer adbd"}, pkt{idExit, "\x00"})},
		{false, append(v2Packets(pkt{idStdout, "x"}), 1, 0xff, 0xff, 0xff, 0xff)},
		{false, []byte{idExit, 0, 0, 0x10, 0}},
		{true, []byte("out\nno such file\n" + marker + "2\n")},
		{true, []byte("DROIDSTAR is not the marker\n" + marker + "0\n")},
		{true, []byte("[a]: [1]\r\n[b]: [D\r\n2]\r\n" + marker + "13\r\n")},
		{true, []byte("x" + marker + "7")},
		{true, []byte("going down\n" + marker[:5])},
		{true, []byte(marker + "not a number\n")},
		{true, []byte(marker + marker + "1\n")},
	} {
		for _, sizes := range [][2]uint8{{0, 0}, {1, 3}, {5, 1}} {
			f.Add(s.legacy, s.data, sizes[0], sizes[1], false)
		}
		f.Add(s.legacy, s.data, uint8(2), uint8(7), true)
	}
	f.Fuzz(func(t *testing.T, legacy bool, data []byte, readSize, bufSize uint8, dataErr bool) {
		var want shellWant
		var r io.Reader = bytes.NewReader(data)
		if readSize > 0 {
			r = &chunkReader{chunks: splitEvery(data, int(readSize))}
		}
		if dataErr {
			// The last data arrives with io.EOF rather than before it.
			r = iotest.DataErrReader(r)
		}
		s := &ShellStream{cn: &conn{Conn: readConn{r: r}}, ctx: context.Background(), serial: "s", cmd: "c"}
		if legacy {
			s.legacy = &legacyShell{marker: []byte(marker)}
			want = decodeLegacy(data, []byte(marker))
		} else {
			want = decodeV2(data)
		}
		var got [3][]byte
		buf := make([]byte, int(bufSize)+1)
		var err error
		for calls := 0; ; calls++ {
			if calls > 2*len(data)+10 {
				t.Fatalf("no end after %d reads of %d bytes", calls, len(data))
			}
			var n, fd int
			n, fd, err = s.next(buf)
			if n > 0 && fd != idStdout && fd != idStderr {
				t.Fatalf("%d bytes for stream %d", n, fd)
			}
			got[fd] = append(got[fd], buf[:n]...)
			if err != nil {
				break
			}
		}
		if (err != io.EOF) != want.failed {
			t.Fatalf("ended with %v; want failed=%v", err, want.failed)
		}
		if err == io.EOF && s.exit != want.exit {
			t.Fatalf("exit %d, want %d", s.exit, want.exit)
		}
		for _, fd := range []int{idStdout, idStderr} {
			if !bytes.Equal(got[fd], want.out[fd]) {
				t.Fatalf("stream %d: %q, want %q", fd, got[fd], want.out[fd])
			}
		}
		if legacy && bytes.Contains(got[idStdout], []byte(marker)) {
			t.Fatalf("the marker leaked into the output %q", got[idStdout])
		}
		if err != io.EOF && !strings.HasPrefix(err.Error(), `device s: shell "c": `) {
			t.Fatalf("error does not say which device and command: %v", err)
		}
		if n, _, again := s.next(buf); n != 0 || again != err {
			t.Fatalf("after the end: %d bytes, %v; want 0, %v", n, again, err)
		}
	})
}

func splitEvery(b []byte, n int) []string {
	var out []string
	for len(b) > n {
		out = append(out, string(b[:n]))
		b = b[n:]
	}
	if len(b) > 0 {
		out = append(out, string(b))
	}
	return out
}
