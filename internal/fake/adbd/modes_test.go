package adbd_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/droidstar/droidstar/internal/fake/adbd"
	"github.com/droidstar/droidstar/internal/harness"
)

// TestStagedFileModes: the harness app runs under its own uid, not the
// shell's that owns what adb stages in /data/local/tmp, so the kernel
// judges it by the "other" mode bits (before SELinux): a staged file
// without o+r, or a folder on the way without o+x, is refused to it, even
// though the fake's processes run as root. Each refusal ends the harness
// JVM before it answers hello; once the modes are opened, it copies the
// staged files.
func TestStagedFileModes(t *testing.T) {
	t.Parallel()
	s, d, apk := jvmDevice(t)
	serial := d.Addr()
	adbOK(t, s, "-s", serial, "install", apk)
	adbOK(t, s, "-s", serial, "push", apk, "/data/local/tmp/x/sub/staged.txt")
	// Without -w, am instrument returns once the harness listens.
	adbOK(t, s, "-s", serial, "shell", "am instrument -e socket modes -e staging /data/local/tmp/x -e run r1 "+component)
	addr := forward(t, s, serial, "modes")
	hello := fmt.Sprintf(`{"id":1,"op":"hello","protocol":%d,"host":"test"}`+"\n", harness.ProtocolVersion)

	const exc = ` I droidstar-harness: Exception in thread "main" java.lang.SecurityException: `
	for _, tc := range []struct{ chmod, refusal string }{
		{"chmod 600 /data/local/tmp/x/sub/staged.txt",
			"/data/local/tmp/x/sub/staged.txt: EACCES (Permission denied): /data/local/tmp/x/sub/staged.txt is rw-------, which does not give read (o+r) to the app's uid (not the shell's 2000, nor in its group)"},
		{"chmod 644 /data/local/tmp/x/sub/staged.txt && chmod 744 /data/local/tmp/x/sub",
			"/data/local/tmp/x/sub/staged.txt: EACCES (Permission denied): /data/local/tmp/x/sub is rwxr--r--, which does not give search (o+x) on the folder to the app's uid (not the shell's 2000, nor in its group)"},
	} {
		adbOK(t, s, "-s", serial, "shell", tc.chmod)
		if reply, err := exchange(addr, hello); err != io.EOF {
			t.Errorf("after %s: hello answered %q, %v; want the harness refused its staged file", tc.chmod, reply, err)
		}
		waitLog(t, d, exc+tc.refusal)
	}
	if got := strings.Count(strings.Join(d.Logcat(), "\n"), exc); got != 2 {
		t.Errorf("%d refusals in the log, want 2", got)
	}

	adbOK(t, s, "-s", serial, "shell", "chmod -R 755 /data/local/tmp/x")
	if reply := exchangeOK(t, addr, hello); !strings.Contains(reply, `"id":1`) || !strings.Contains(reply, `"ok":true`) {
		t.Errorf("hello with the modes open: %q", reply)
	}
	app := filepath.Join(d.Root(), "data", "user", "0", adbd.HarnessPackage)
	waitLog(t, d, " I droidstar-harness: copied 1 staged files into "+filepath.Join(app, "files", "droidstar", "r1"))
}

// /data/local/tmp is 0771 as init.rc makes it: apps pass through, only
// the shell lists it.
func TestShellDataMode(t *testing.T) {
	t.Parallel()
	d, err := adbd.Start(adbd.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	fi, err := os.Stat(filepath.Join(d.Root(), "data", "local", "tmp"))
	if err != nil || fi.Mode().Perm() != 0o771 {
		t.Errorf("/data/local/tmp: %v, %v; want rwxrwx--x", fi.Mode(), err)
	}
}

// TestStagingCreateAndUnlink: creating or unlinking a file in a staged
// folder needs o+w on the folder (the kernel's may_create and may_delete)
// before SELinux is asked, so with the folder 0755, as droidstar stages,
// the harness's probe is refused by the mode, and only with o+w by the
// shell_data_file rule (an avc denial).
func TestStagingCreateAndUnlink(t *testing.T) {
	t.Parallel()
	s, d, apk := jvmDevice(t)
	serial := d.Addr()
	adbOK(t, s, "-s", serial, "install", apk)
	adbOK(t, s, "-s", serial, "push", apk, "/data/local/tmp/y/"+harness.ProbeFile)
	adbOK(t, s, "-s", serial, "shell", "chmod -R 755 /data/local/tmp/y")
	adbOK(t, s, "-s", serial, "shell", "am instrument -e socket staging -e staging /data/local/tmp/y -e run r2 "+component)
	addr := forward(t, s, serial, "staging")
	probe := func() (create, unlink string) {
		t.Helper()
		c, err := net.DialTimeout("tcp", addr, stuck)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(stuck))
		fmt.Fprintf(c, `{"id":1,"op":"hello","protocol":%d,"host":"test"}`+"\n"+`{"id":2,"op":"probe","samples":0,"audio_ms":0}`+"\n", harness.ProtocolVersion)
		r := bufio.NewReader(c)
		if _, err := r.ReadString('\n'); err != nil {
			t.Fatalf("hello: %v", err)
		}
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("probe: %v", err)
		}
		var reply struct{ harness.ProbeResult }
		if err := json.Unmarshal([]byte(line), &reply); err != nil || reply.Files.Staging == nil {
			t.Fatalf("probe reply %s: %v", line, err)
		}
		return reply.Files.Staging.Create.Message, reply.Files.Staging.Unlink.Message
	}
	mode := func(op string) string {
		return "/data/local/tmp/y is rwxr-xr-x, which does not give write (o+w) on the folder (which " + op + " needs) to the app's uid (not the shell's 2000, nor in its group)"
	}
	create, unlink := probe()
	if !strings.HasSuffix(create, mode("create")) || !strings.HasSuffix(unlink, mode("unlink")) {
		t.Errorf("in a 0755 folder:\ncreate %s\nunlink %s\nwant the mode's refusals", create, unlink)
	}
	adbOK(t, s, "-s", serial, "shell", "chmod 777 /data/local/tmp/y")
	create, unlink = probe()
	avc := func(op, name string) string {
		return `avc: denied { ` + op + ` } for name="` + name + `" scontext=u:r:untrusted_app:s0 tcontext=u:object_r:shell_data_file:s0 permissive=0`
	}
	if !strings.HasSuffix(create, avc("create", harness.ProbeFile+".created")) || !strings.HasSuffix(unlink, avc("unlink", harness.ProbeFile)) {
		t.Errorf("in a 0777 folder:\ncreate %s\nunlink %s\nwant SELinux's denials", create, unlink)
	}
}
