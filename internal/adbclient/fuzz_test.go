package adbclient

import (
	"bytes"
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"
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
	r *bytes.Reader
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
