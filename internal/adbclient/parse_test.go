package adbclient

import (
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

func TestConfigFromEnv(t *testing.T) {
	tests := []struct {
		name    string
		host    string
		port    int
		env     map[string]string
		want    Config
		wantErr string
	}{
		{name: "defaults", want: Config{Host: "localhost", Port: 5037}},
		{name: "flags", host: "farm", port: 6000, env: map[string]string{"ADB_SERVER_SOCKET": "tcp:x:1"}, want: Config{Host: "farm", Port: 6000}},
		{name: "flags win over a broken variable", host: "farm", port: 6000, env: map[string]string{"ADB_SERVER_SOCKET": "junk"}, want: Config{Host: "farm", Port: 6000}},
		{name: "socket host and port", env: map[string]string{"ADB_SERVER_SOCKET": "tcp:10.0.0.5:5038"}, want: Config{Host: "10.0.0.5", Port: 5038}},
		{name: "socket port only", env: map[string]string{"ADB_SERVER_SOCKET": "tcp:5039"}, want: Config{Host: "localhost", Port: 5039}},
		{name: "socket IPv6", env: map[string]string{"ADB_SERVER_SOCKET": "tcp:[::1]:5040"}, want: Config{Host: "::1", Port: 5040}},
		{name: "host flag, socket port", host: "h", env: map[string]string{"ADB_SERVER_SOCKET": "tcp:g:5041"}, want: Config{Host: "h", Port: 5041}},
		{name: "port flag, socket host", port: 7, env: map[string]string{"ADB_SERVER_SOCKET": "tcp:g:5041"}, want: Config{Host: "g", Port: 7}},
		{name: "socket wins over server port", env: map[string]string{"ADB_SERVER_SOCKET": "tcp:g:5041", "ANDROID_ADB_SERVER_PORT": "9"}, want: Config{Host: "g", Port: 5041}},
		{name: "server port", env: map[string]string{"ANDROID_ADB_SERVER_PORT": "5050"}, want: Config{Host: "localhost", Port: 5050}},
		{name: "local socket", env: map[string]string{"ADB_SERVER_SOCKET": "localabstract:adb"}, wantErr: `ADB_SERVER_SOCKET="localabstract:adb": want tcp:HOST:PORT or tcp:PORT`},
		{name: "no port", env: map[string]string{"ADB_SERVER_SOCKET": "tcp:host:"}, wantErr: `ADB_SERVER_SOCKET="tcp:host:": port "" is not a number`},
		{name: "bad port", env: map[string]string{"ADB_SERVER_SOCKET": "tcp:host:99999"}, wantErr: `port "99999" is not a number from 1 to 65535`},
		{name: "empty host", env: map[string]string{"ADB_SERVER_SOCKET": "tcp::5037"}, wantErr: "empty host"},
		{name: "bad server port", env: map[string]string{"ANDROID_ADB_SERVER_PORT": "abc"}, wantErr: `ANDROID_ADB_SERVER_PORT: port "abc"`},
		{name: "bad port flag", port: 70000, wantErr: "adb server port 70000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ConfigFromEnv(tt.host, tt.port, func(k string) string { return tt.env[k] })
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestNewAddr(t *testing.T) {
	for _, tt := range []struct {
		c    Config
		want string
	}{
		{Config{}, "localhost:5037"},
		{Config{Host: "::1", Port: 1}, "[::1]:1"},
		{Config{Host: "farm.example.org", Port: 6000}, "farm.example.org:6000"},
	} {
		if got := New(tt.c).Addr(); got != tt.want {
			t.Errorf("New(%+v).Addr() = %q, want %q", tt.c, got, tt.want)
		}
	}
}

func TestParseDevices(t *testing.T) {
	in := "" +
		"0123456789ABCDEF       device usb:1-4 product:walleye model:Pixel_2 device:walleye transport_id:3\n" +
		"127.0.0.1:40001        device product:fake model:Fake_Phone device:fakedev transport_id:12\n" +
		"emulator-5554          offline transport_id:1\n" +
		"R58M123                unauthorized usb:2-1 transport_id:4\n" +
		"????????????           no permissions (missing udev rules? user is in the plugdev group); see [http://developer.android.com/tools/device.html] usb:1-1 transport_id:5\n" +
		"\n"
	want := []DeviceInfo{
		{Serial: "0123456789ABCDEF", State: "device", USB: "1-4", Product: "walleye", Model: "Pixel_2", Device: "walleye", TransportID: "3"},
		{Serial: "127.0.0.1:40001", State: "device", Product: "fake", Model: "Fake_Phone", Device: "fakedev", TransportID: "12"},
		{Serial: "emulator-5554", State: "offline", TransportID: "1"},
		{Serial: "R58M123", State: "unauthorized", USB: "2-1", TransportID: "4"},
		{Serial: "????????????", State: "no permissions (missing udev rules? user is in the plugdev group); see [http://developer.android.com/tools/device.html]", USB: "1-1", TransportID: "5"},
	}
	got := parseDevices(in)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("parseDevices:\ngot  %+v\nwant %+v", got, want)
	}
	if got := parseDevices(""); len(got) != 0 {
		t.Fatalf("empty list parsed as %+v", got)
	}
}

func TestParseGetprop(t *testing.T) {
	in := "[dalvik.vm.heapsize]: [512m]\n" +
		"[empty]: []\n" +
		"[multi.line]: [first\n" +
		"second]\n" +
		"[ends.in.bracket]: [a]\n" +
		"b]\n" +
		"[looks.like.entry]: [x\n" +
		"[fake]: [y]\n" +
		"[ro.build.version.sdk]: [29]\n"
	want := map[string]string{
		"dalvik.vm.heapsize":   "512m",
		"empty":                "",
		"multi.line":           "first\nsecond",
		"ends.in.bracket":      "a]\nb",
		"looks.like.entry":     "x\n[fake]: [y",
		"ro.build.version.sdk": "29",
	}
	if got := parseGetprop(in); !reflect.DeepEqual(got, want) {
		t.Fatalf("parseGetprop:\ngot  %q\nwant %q", got, want)
	}
	// A PTY (devices before Android 7) ends lines in \r\n.
	if got := parseGetprop("[a]: [1]\r\n[b]: [2\r\n3]\r\n"); !reflect.DeepEqual(got, map[string]string{"a": "1", "b": "2\n3"}) {
		t.Fatalf("parseGetprop with CRLF: %q", got)
	}
}

func TestParseConnect(t *testing.T) {
	for msg, ok := range map[string]bool{
		"connected to 127.0.0.1:40001":                           true,
		"already connected to 127.0.0.1:40001":                   true,
		"failed to connect to '127.0.0.1:1': Connection refused": false,
		"": false,
	} {
		err := parseConnect("127.0.0.1:1", msg)
		if (err == nil) != ok {
			t.Errorf("parseConnect(%q) = %v", msg, err)
		}
		if err != nil && msg != "" && !strings.Contains(err.Error(), msg) {
			t.Errorf("parseConnect(%q) = %v, which drops the server's words", msg, err)
		}
	}
}

func TestQuote(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain", "plain"},
		{"/data/local/tmp/x.apk", "/data/local/tmp/x.apk"},
		{"", "''"},
		{"a b", "'a b'"},
		{"it's", `'it'\''s'`},
		{"$HOME", "'$HOME'"},
	} {
		if got := Quote(tt.in); got != tt.want {
			t.Errorf("Quote(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// What the shell makes of the quoted word is the word itself.
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to check quoting against")
	}
	for _, in := range []string{"", "a b", "it's", `"';$(rm -rf /)` + "`x`\\\n\t*?[]{}~#&|<>!", "ünï"} {
		out, err := exec.Command(sh, "-c", "printf %s "+Quote(in)).Output()
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != in {
			t.Errorf("sh made %q of Quote(%q) = %s", out, in, Quote(in))
		}
	}
}

func TestDeviceError(t *testing.T) {
	for msg, state := range map[string]string{
		"device '127.0.0.1:1' not found": "not found",
		"device not found":               "not found",
		"device unauthorized.\nThis adb server's $ADB_VENDOR_KEYS is not set\nTry 'adb kill-server' if that seems wrong.\nOtherwise check for a confirmation dialog on your device.": "unauthorized",
		"device offline":           "offline",
		"device still authorizing": "authorizing",
		"device still connecting":  "connecting",
		"closed":                   "",
	} {
		err := deviceError("S", &ServerError{Request: "host:transport:S", Message: msg})
		dse, ok := err.(*DeviceStateError)
		if state == "" {
			if ok {
				t.Errorf("%q became %v", msg, err)
			}
			continue
		}
		if !ok || dse.State != state || dse.Serial != "S" {
			t.Errorf("%q became %#v, want state %q", msg, err, state)
			continue
		}
		if !strings.Contains(err.Error(), oneLine(msg)) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q became %q, which should keep the server's words on one line", msg, err)
		}
	}
}
