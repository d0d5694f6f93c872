package adbclient

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"time"

	"github.com/zach-klippenstein/goadb/wire"
)

// maxSyncMessage bounds a FAIL message we are willing to allocate for; a
// larger length means the stream is not speaking sync.
const maxSyncMessage = 64 << 10

// SyncError is adbd refusing a file transfer, in its own words ("Read-only
// file system", "Permission denied", ...).
type SyncError struct {
	Path    string
	Message string
}

func (e *SyncError) Error() string {
	return "adbd refused the file: " + e.Message
}

// Push writes r to the file remote on the device with the given
// permissions and modification time (zero means now). It returns only
// once adbd has said whether the file was written: goadb's writer sent
// DONE and never read the answer, so failed pushes looked like successes.
func (d *Device) Push(ctx context.Context, r io.Reader, remote string, mode os.FileMode, mtime time.Time) error {
	op := "push " + remote
	cn, err := d.open(ctx, "sync:")
	if err != nil {
		return err
	}
	defer cn.Close()
	if mtime.IsZero() {
		mtime = time.Now()
	}

	// adbd may answer FAIL before it has read the whole file (it cannot
	// create it) and then stop reading, so the answer is read while the
	// file is sent; reading it closes the connection, which unblocks a
	// writer stuck on a full socket.
	reply := make(chan error, 1)
	go func() {
		reply <- readSyncReply(cn, remote)
		cn.Close()
	}()

	sendErr := sendFile(cn, r, remote, mode, mtime)
	var localErr *localReadError
	if errors.As(sendErr, &localErr) {
		cn.Close()
		<-reply
		return fmt.Errorf("device %s: %s: %w", d.serial, op, sendErr)
	}
	if rerr := <-reply; rerr != nil {
		var se *SyncError
		if errors.As(rerr, &se) {
			return fmt.Errorf("device %s: %s: %w", d.serial, op, rerr)
		}
		if sendErr != nil {
			// The connection broke while sending; that is the news.
			return d.fail(op, ctxErr(ctx, sendErr))
		}
		return d.fail(op, ctxErr(ctx, rerr))
	}
	if sendErr != nil {
		return d.fail(op, ctxErr(ctx, sendErr))
	}
	return nil
}

// localReadError marks a failure to read the data to push, as opposed to
// a failure to send it.
type localReadError struct{ err error }

func (e *localReadError) Error() string { return "read the data to push: " + e.err.Error() }
func (e *localReadError) Unwrap() error { return e.err }

// sendFile speaks SEND, DATA (at most 64 KiB each), DONE. goadb's sync
// sender frames them as adbd wants; the buffer under it makes each chunk
// one write, which the server forwards as one packet rather than three.
func sendFile(w io.Writer, r io.Reader, remote string, mode os.FileMode, mtime time.Time) error {
	bw := bufio.NewWriterSize(w, wire.SyncMaxChunkSize+8)
	s := wire.NewSyncSender(bw)
	// Like adb, send the whole st_mode (a regular file) rather than only
	// the permission bits.
	const regular = 0o100000
	if err := s.SendOctetString("SEND"); err != nil {
		return fmt.Errorf("send SEND: %w", err)
	}
	if err := s.SendBytes(fmt.Appendf(nil, "%s,%d", remote, regular|uint32(mode.Perm()))); err != nil {
		return fmt.Errorf("send the file name: %w", err)
	}
	buf := make([]byte, wire.SyncMaxChunkSize)
	for {
		n, rerr := io.ReadFull(r, buf)
		if n > 0 {
			if err := s.SendOctetString("DATA"); err != nil {
				return fmt.Errorf("send DATA: %w", err)
			}
			if err := s.SendBytes(buf[:n]); err != nil {
				return fmt.Errorf("send %d bytes: %w", n, err)
			}
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			return &localReadError{rerr}
		}
	}
	if err := s.SendOctetString("DONE"); err != nil {
		return fmt.Errorf("send DONE: %w", err)
	}
	if err := s.SendTime(mtime); err != nil {
		return fmt.Errorf("send the modification time: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("send the end of the file: %w", err)
	}
	return nil
}

// readSyncReply reads adbd's verdict on a SEND: OKAY, or FAIL with why.
func readSyncReply(r io.Reader, remote string) error {
	var head [8]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return fmt.Errorf("read adbd's answer: %w", err)
	}
	id, n := string(head[:4]), binary.LittleEndian.Uint32(head[4:])
	switch id {
	case "OKAY":
		return nil
	case "FAIL":
		if n > maxSyncMessage {
			return fmt.Errorf("adbd answered FAIL with a message of %d bytes: not the sync protocol", n)
		}
		msg := make([]byte, n)
		if _, err := io.ReadFull(r, msg); err != nil {
			return fmt.Errorf("read why adbd refused the file: %w", err)
		}
		return &SyncError{Path: remote, Message: string(msg)}
	default:
		return fmt.Errorf("adbd answered %q, not OKAY or FAIL", head[:4])
	}
}

// tempDir is where adb itself stages APKs: the shell user can write it
// and the package manager can read it.
const tempDir = "/data/local/tmp"

// Install installs (or replaces) an app: the APK is pushed to
// /data/local/tmp/NAME, installed with pm install -r -t (replace, allow
// test-only apps) and pmArgs (for instance --user N), and removed in every
// case. A refusal carries pm's output ("Failure [INSTALL_FAILED_...]").
func (d *Device) Install(ctx context.Context, apk io.Reader, name string, pmArgs ...string) (err error) {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00") {
		return fmt.Errorf("device %s: install: %q is not a file name", d.serial, name)
	}
	remote := path.Join(tempDir, name)
	defer func() {
		// Clean up even when ctx is what ended the install.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		d.Shell(cctx, "rm -f "+Quote(remote))
	}()
	if err := d.Push(ctx, apk, remote, 0o644, time.Time{}); err != nil {
		return fmt.Errorf("install %s: %w", name, err)
	}
	cmd := "pm install -r -t "
	for _, a := range pmArgs {
		cmd += Quote(a) + " "
	}
	r, err := d.Shell(ctx, cmd+Quote(remote))
	if err != nil {
		return fmt.Errorf("install %s: %w", name, err)
	}
	if !hasLine(r.Stdout, "Success") {
		return fmt.Errorf("device %s: install %s: pm install exited with %d: %s", d.serial, name, r.Exit, pmOutput(r))
	}
	return nil
}

// Uninstall removes an app; removing one that is not installed is an
// error carrying pm's output.
func (d *Device) Uninstall(ctx context.Context, pkg string) error {
	r, err := d.Shell(ctx, "pm uninstall "+Quote(pkg))
	if err != nil {
		return fmt.Errorf("uninstall %s: %w", pkg, err)
	}
	if !hasLine(r.Stdout, "Success") {
		return fmt.Errorf("device %s: uninstall %s: pm uninstall exited with %d: %s", d.serial, pkg, r.Exit, pmOutput(r))
	}
	return nil
}

// hasLine reports whether out has a line that is want, give or take
// spaces: pm prints other lines first on some versions ("Performing
// Streamed Install").
func hasLine(out, want string) bool {
	for line := range strings.SplitSeq(out, "\n") {
		if strings.TrimSpace(line) == want {
			return true
		}
	}
	return false
}

func pmOutput(r ShellResult) string {
	out := oneLine(r.Stdout + " " + r.Stderr)
	if out == "" {
		return "no output"
	}
	return out
}
