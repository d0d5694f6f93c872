package adbclient

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Shell protocol v2 packet ids (adb's shell_protocol.h).
const (
	idStdin      = 0
	idStdout     = 1
	idStderr     = 2
	idExit       = 3
	idCloseStdin = 4
)

// ShellResult is what a shell command printed and how it ended. On
// devices without shell_v2 (before Android 7) stderr arrives mixed into
// Stdout and Stderr is empty.
type ShellResult struct {
	Stdout string
	Stderr string
	Exit   int
}

// Shell runs a command line on the device (sent as is: quote arguments
// with Quote) and waits for it to end. A non-zero exit is not an error:
// callers decide what an exit code means.
func (d *Device) Shell(ctx context.Context, cmd string) (ShellResult, error) {
	s, err := d.startShell(ctx, cmd)
	if err != nil {
		return ShellResult{}, err
	}
	defer s.Close()
	var out [3]bytes.Buffer
	buf := make([]byte, 32<<10)
	for {
		n, fd, err := s.next(buf)
		out[fd].Write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			// What the command printed may explain why it went away.
			return ShellResult{Stdout: out[idStdout].String(), Stderr: out[idStderr].String(), Exit: -1}, err
		}
	}
	stdout, stderr := out[idStdout].String(), out[idStderr].String()
	if s.legacy != nil && s.legacy.pty {
		// A pseudo-terminal turned every \n into \r\n.
		stdout = strings.ReplaceAll(stdout, "\r\n", "\n")
	}
	return ShellResult{Stdout: stdout, Stderr: stderr, Exit: s.exit}, nil
}

// ShellStream is a running shell command whose output is read as it
// comes, for long commands such as am instrument -w.
type ShellStream struct {
	cn     *conn
	ctx    context.Context
	serial string
	cmd    string

	// mu serialises Read and Wait; Close does not take it, so that it
	// can interrupt a blocked Read.
	mu     sync.Mutex
	v2left int // bytes of the current stdout/stderr packet not yet read
	v2fd   int
	legacy *legacyShell // nil with shell_v2
	done   bool
	exit   int
	err    error // why the stream ended early; nil once the exit code is in
	// closed tells a read that fails because of Close from one that fails
	// because the device went away.
	closed atomic.Bool
}

// ShellStream starts a command and returns at once. Like
// exec.CommandContext, ctx bounds the whole command: when it is done, the
// stream is closed (which ends the command on the device).
func (d *Device) ShellStream(ctx context.Context, cmd string) (*ShellStream, error) {
	return d.startShell(ctx, cmd)
}

func (d *Device) startShell(ctx context.Context, cmd string) (*ShellStream, error) {
	v2, err := d.hasFeature(ctx, "shell_v2")
	if err != nil {
		return nil, err
	}
	s := &ShellStream{ctx: ctx, serial: d.serial, cmd: cmd}
	service := "shell,v2,raw:" + cmd
	if !v2 {
		marker, err := newMarker()
		if err != nil {
			return nil, err
		}
		s.legacy = &legacyShell{marker: []byte(marker)}
		// The command runs in its own shell so that an exit, a trailing
		// & or a comment in it cannot swallow the echo.
		service = "shell:sh -c " + Quote(cmd) + "; echo " + marker + "$?"
	}
	cn, err := d.open(ctx, service)
	if err != nil {
		return nil, err
	}
	s.cn = cn
	if v2 {
		// Nothing is ever typed into the command: close its stdin, or a
		// command that reads it would wait forever.
		var pkt [5]byte
		pkt[0] = idCloseStdin
		if _, err := cn.Write(pkt[:]); err != nil {
			cn.Close()
			return nil, d.fail("shell "+describe(cmd), ctxErr(ctx, err))
		}
	}
	return s, nil
}

// newMarker makes the token that ends a legacy shell's output. It is
// random so that no command prints it by accident.
func newMarker() (string, error) {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("make a shell exit marker: %w", err)
	}
	return "DROIDSTAR-EXIT-" + hex.EncodeToString(b[:]) + ":", nil
}

// Read reads stdout and stderr as they arrive, and io.EOF once the
// command has ended.
func (s *ShellStream) Read(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		n, _, err := s.next(p)
		if n > 0 || err != nil || len(p) == 0 {
			return n, err
		}
	}
}

// Wait waits for the command to end and returns its exit code; output not
// yet read is discarded.
func (s *ShellStream) Wait() (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	buf := make([]byte, 32<<10)
	for {
		_, _, err := s.next(buf)
		if err == io.EOF {
			return s.exit, nil
		}
		if err != nil {
			return -1, err
		}
	}
}

// Close ends the command early by closing its stream; it may be called
// while another goroutine reads.
func (s *ShellStream) Close() error {
	s.closed.Store(true)
	return s.cn.Close()
}

// next reads some output into p and says whose (idStdout or idStderr). It
// returns io.EOF once the exit code is known, and keeps returning the
// same error after the stream ends.
func (s *ShellStream) next(p []byte) (int, int, error) {
	if s.done {
		if s.err != nil {
			return 0, idStdout, s.err
		}
		return 0, idStdout, io.EOF
	}
	var n, fd int
	var err error
	if s.legacy != nil {
		n, err = s.legacy.next(s.cn, p)
		fd = idStdout
		if err == io.EOF {
			s.exit = s.legacy.exit
		}
	} else {
		n, fd, err = s.nextV2(p)
	}
	if err != nil {
		s.done = true
		if err != io.EOF {
			s.err = s.explain(err)
			err = s.err
		}
	}
	return n, fd, err
}

// explain says why a stream ended without an exit code.
func (s *ShellStream) explain(err error) error {
	closed := s.closed.Load()
	what := fmt.Sprintf("device %s: shell %s", s.serial, describe(s.cmd))
	switch {
	case s.ctx.Err() != nil:
		return fmt.Errorf("%s: %w", what, s.ctx.Err())
	case closed:
		return fmt.Errorf("%s: %w", what, ErrStreamClosed)
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%s: the stream ended before the command reported its exit code (device gone, or the command killed its shell): %w", what, err)
	default:
		return fmt.Errorf("%s: %w", what, err)
	}
}

// ErrStreamClosed is what reading a ShellStream returns after Close.
var ErrStreamClosed = errors.New("stream closed before the command ended")

// nextV2 decodes shell protocol v2: packets of an id byte, a little-endian
// uint32 length, and data.
func (s *ShellStream) nextV2(p []byte) (int, int, error) {
	for {
		if s.v2left > 0 {
			if len(p) > s.v2left {
				p = p[:s.v2left]
			}
			n, err := s.cn.Read(p)
			s.v2left -= n
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			if n > 0 {
				// An error will be seen again by the next read.
				return n, s.v2fd, nil
			}
			return 0, s.v2fd, err
		}
		id, size, err := readPacketHeader(s.cn)
		if err != nil {
			return 0, idStdout, err
		}
		switch id {
		case idStdout, idStderr:
			s.v2fd, s.v2left = int(id), int(size)
			if len(p) == 0 {
				return 0, s.v2fd, nil
			}
		case idExit:
			data, err := readPacketData(s.cn, size)
			if err != nil {
				return 0, idStdout, err
			}
			if len(data) < 1 {
				return 0, idStdout, fmt.Errorf("exit packet without an exit code")
			}
			s.exit = int(data[0])
			return 0, idStdout, io.EOF
		default:
			// adbd sends nothing else to the host; skip what a newer
			// one might add.
			if _, err := readPacketData(s.cn, size); err != nil {
				return 0, idStdout, err
			}
		}
	}
}

func readPacketHeader(r io.Reader) (id byte, size uint32, err error) {
	var h [5]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return 0, 0, fmt.Errorf("read a shell packet: %w", err)
	}
	return h[0], binary.LittleEndian.Uint32(h[1:]), nil
}

func readPacketData(r io.Reader, size uint32) ([]byte, error) {
	if size > 1<<20 {
		return nil, fmt.Errorf("shell packet of %d bytes: not the shell protocol", size)
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(r, data); err != nil {
		return nil, fmt.Errorf("read a shell packet of %d bytes: %w", size, err)
	}
	return data, nil
}

// legacyShell finds the exit code in the output of a plain shell: service,
// where the command line ends by echoing a marker and $?. Output that
// might be the start of the marker is held back until it is known not to
// be.
type legacyShell struct {
	marker []byte
	buf    []byte // read but not yet given out
	found  int    // index of the marker in buf, or -1 when not yet seen
	eof    bool
	pty    bool // the marker line ended in \r\n
	exit   int
	chunk  []byte
}

func (l *legacyShell) next(r io.Reader, p []byte) (int, error) {
	for {
		l.found = bytes.Index(l.buf, l.marker)
		give := len(l.buf)
		if l.found >= 0 {
			give = l.found
		} else if !l.eof {
			give -= partialSuffix(l.buf, l.marker)
		}
		if give > 0 && len(p) > 0 {
			n := copy(p, l.buf[:give])
			l.buf = l.buf[n:]
			return n, nil
		}
		if l.found >= 0 {
			tail := l.buf[len(l.marker):]
			if i := bytes.IndexByte(tail, '\n'); i >= 0 || l.eof {
				if i >= 0 {
					tail = tail[:i]
				}
				l.pty = bytes.HasSuffix(tail, []byte("\r"))
				code, err := strconv.Atoi(string(bytes.TrimSpace(tail)))
				if err != nil {
					return 0, fmt.Errorf("read the exit code after the marker: %q is not a number", tail)
				}
				l.exit = code
				return 0, io.EOF
			}
		}
		if l.eof {
			return 0, io.ErrUnexpectedEOF
		}
		if len(p) == 0 {
			return 0, nil
		}
		if l.chunk == nil {
			l.chunk = make([]byte, 32<<10)
		}
		n, err := r.Read(l.chunk)
		l.buf = append(l.buf, l.chunk[:n]...)
		if err == io.EOF {
			l.eof = true
		} else if err != nil {
			return 0, err
		}
	}
}

// partialSuffix is the length of the longest end of b that begins marker.
func partialSuffix(b, marker []byte) int {
	for k := min(len(b), len(marker)-1); k > 0; k-- {
		if bytes.HasSuffix(b, marker[:k]) {
			return k
		}
	}
	return 0
}

// Quote makes arg one word for the device's shell (mksh, or sh in
// general): plain words stay as they are, others are single-quoted.
func Quote(arg string) string {
	if arg != "" && strings.IndexFunc(arg, func(r rune) bool { return !isSafe(r) }) < 0 {
		return arg
	}
	return "'" + strings.ReplaceAll(arg, "'", `'\''`) + "'"
}

func isSafe(r rune) bool {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		return true
	}
	return strings.ContainsRune("@%+=:,./_-", r)
}
