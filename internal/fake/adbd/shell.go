package adbd

import (
	"context"
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Packet ids of the shell protocol (AOSP adb/shell_protocol.h).
const (
	idStdin      = 0
	idStdout     = 1
	idStderr     = 2
	idExit       = 3
	idCloseStdin = 4
)

// shellPacketMax bounds one shell_v2 packet's payload, as adbd's buffer
// does; longer output goes out as several packets.
const shellPacketMax = 16 * 1024

// proc is one command line being run by the fake shell.
type proc struct {
	d *Device
	// ctx ends when the host closes the stream or the device closes.
	ctx            context.Context
	stdin          io.Reader
	stdout, stderr io.Writer
}

func (p *proc) outf(format string, args ...any) { fmt.Fprintf(p.stdout, format+"\n", args...) }
func (p *proc) errf(format string, args ...any) { fmt.Fprintf(p.stderr, format+"\n", args...) }

// serveShell runs a command line for shell: (v2 false: stdout and stderr
// merged, no exit code, raw stdin), shell,v2,...: (packets) and exec:
// (like shell: without v2).
func (d *Device) serveShell(s *stream, line string, v2 bool) {
	ctx, cancel := context.WithCancel(d.ctx)
	defer cancel()
	go func() {
		select {
		case <-s.closed:
			cancel()
		case <-ctx.Done():
		}
	}()

	stdinR, stdinW := io.Pipe()
	var pump sync.WaitGroup
	pump.Add(1)
	go func() {
		defer pump.Done()
		if v2 {
			pumpPackets(s, stdinW)
		} else {
			io.Copy(stdinW, s)
			stdinW.Close()
		}
	}()

	p := &proc{d: d, ctx: ctx, stdin: stdinR}
	if v2 {
		p.stdout = &packetWriter{s: s, id: idStdout}
		p.stderr = &packetWriter{s: s, id: idStderr}
	} else {
		p.stdout, p.stderr = s, s
	}
	code := p.run(line)
	if v2 {
		writePacket(s, idExit, []byte{byte(code)})
	}
	stdinR.Close()
	s.Close()
	pump.Wait()
}

// pumpPackets feeds the stdin packets of a shell_v2 stream to w until the
// host closes stdin or the stream.
func pumpPackets(s *stream, w *io.PipeWriter) {
	defer w.Close()
	var h [5]byte
	for {
		if _, err := io.ReadFull(s, h[:]); err != nil {
			return
		}
		n := binary.LittleEndian.Uint32(h[1:])
		if n > maxIncoming {
			return
		}
		data := make([]byte, n)
		if _, err := io.ReadFull(s, data); err != nil {
			return
		}
		switch h[0] {
		case idStdin:
			// Once nobody reads stdin, keep draining the stream anyway so
			// that the host's CLSE is still seen.
			w.Write(data)
		case idCloseStdin:
			w.Close()
		}
	}
}

type packetWriter struct {
	s  *stream
	id byte
}

func (w *packetWriter) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		chunk := min(len(p), shellPacketMax)
		if err := writePacket(w.s, w.id, p[:chunk]); err != nil {
			return n, err
		}
		n += chunk
		p = p[chunk:]
	}
	return n, nil
}

// writePacket writes one packet in one stream Write, so that packets of
// stdout and stderr never interleave.
func writePacket(s *stream, id byte, data []byte) error {
	b := make([]byte, 5+len(data))
	b[0] = id
	binary.LittleEndian.PutUint32(b[1:], uint32(len(data)))
	copy(b[5:], data)
	_, err := s.Write(b)
	return err
}

// word is a shell word or, when op is set, one of the operators ; && ||.
type word struct {
	text string
	op   string
}

type syntaxError string

func (e syntaxError) Error() string { return string(e) }

// tokenize splits a command line the way mksh does for the small part of
// its syntax the fake supports: words with '...' and "..." quoting and
// backslash escapes, and the list operators ;, && and || (a newline is a
// ;). Anything that would need a real shell (pipes, redirections,
// expansions, subshells, background jobs) is refused with an error
// naming it, rather than misread.
func tokenize(line string) ([]word, error) {
	var words []word
	var cur strings.Builder
	has := false
	flush := func() {
		if has {
			words = append(words, word{text: cur.String()})
		}
		cur.Reset()
		has = false
	}
	unsupported := func(what string) error {
		return syntaxError(fmt.Sprintf("fakeadbd: unsupported shell syntax %s in: %s", what, line))
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch c {
		case ' ', '\t', '\r':
			flush()
		case '\n', ';':
			flush()
			words = append(words, word{op: ";"})
		case '&', '|':
			flush()
			if i+1 < len(line) && line[i+1] == c {
				words = append(words, word{op: string([]byte{c, c})})
				i++
				continue
			}
			return nil, unsupported(fmt.Sprintf("'%c'", c))
		case '<', '>', '(', ')', '`', '$':
			return nil, unsupported(fmt.Sprintf("'%c'", c))
		case '#':
			if !has {
				// A comment runs to the end of the line.
				for i+1 < len(line) && line[i+1] != '\n' {
					i++
				}
				continue
			}
			cur.WriteByte(c)
		case '\\':
			has = true
			if i+1 < len(line) {
				i++
				if line[i] != '\n' {
					cur.WriteByte(line[i])
				}
			} else {
				cur.WriteByte(c)
			}
		case '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, syntaxError("syntax error: unterminated quoted string")
			}
			cur.WriteString(line[i+1 : i+1+end])
			has = true
			i += end + 1
		case '"':
			has = true
			closed := false
			for i++; i < len(line); i++ {
				c := line[i]
				if c == '"' {
					closed = true
					break
				}
				if c == '$' || c == '`' {
					return nil, unsupported(fmt.Sprintf("'%c'", c))
				}
				if c == '\\' && i+1 < len(line) && strings.IndexByte("\"\\$`\n", line[i+1]) >= 0 {
					i++
					if line[i] != '\n' {
						cur.WriteByte(line[i])
					}
					continue
				}
				cur.WriteByte(c)
			}
			if !closed {
				return nil, syntaxError("syntax error: unterminated quoted string")
			}
		default:
			cur.WriteByte(c)
			has = true
		}
	}
	flush()
	return words, nil
}

// run runs a command line and returns its exit status.
func (p *proc) run(line string) int {
	words, err := tokenize(line)
	if err != nil {
		p.errf("/system/bin/sh: %v", err)
		if strings.HasPrefix(err.Error(), "fakeadbd:") {
			return 2
		}
		return 1
	}
	if len(words) == 0 {
		if strings.TrimSpace(line) == "" {
			p.errf("/system/bin/sh: fakeadbd: interactive shells are not supported")
			return 1
		}
		return 0
	}
	type command struct {
		args []string
		next string // the operator after it
	}
	var cmds []command
	var args []string
	for _, w := range words {
		if w.op == "" {
			args = append(args, w.text)
			continue
		}
		if len(args) == 0 {
			if w.op == ";" && len(cmds) == 0 {
				p.errf("/system/bin/sh: syntax error: ';' unexpected")
				return 1
			}
			if w.op != ";" || cmds[len(cmds)-1].next != ";" {
				p.errf("/system/bin/sh: syntax error: '%s' unexpected", w.op)
				return 1
			}
			continue
		}
		cmds = append(cmds, command{args: args, next: w.op})
		args = nil
	}
	if len(args) > 0 {
		cmds = append(cmds, command{args: args, next: ";"})
	} else if n := len(cmds); n > 0 && cmds[n-1].next != ";" {
		p.errf("/system/bin/sh: syntax error: unexpected end of input")
		return 1
	}
	status := 0
	prev := ";"
	for _, c := range cmds {
		if p.ctx.Err() != nil {
			return 130
		}
		if prev == ";" || (prev == "&&" && status == 0) || (prev == "||" && status != 0) {
			status = p.exec(c.args)
		}
		prev = c.next
	}
	return status
}

func (p *proc) exec(args []string) int {
	name := strings.TrimPrefix(args[0], "/system/bin/")
	switch name {
	case "getprop":
		return p.getprop(args[1:])
	case "echo":
		return p.echo(args[1:])
	case "mkdir":
		return p.mkdir(args[1:])
	case "rm":
		return p.rm(args[1:])
	case "chmod":
		return p.chmod(args[1:])
	case "md5sum":
		return p.md5sum(args[1:])
	case "cat":
		return p.cat(args[1:])
	case "pm":
		return p.pm(args[1:])
	case "am":
		return p.am(args[1:])
	case "cmd":
		return p.cmd(args[1:])
	case "logcat":
		return p.logcat(args[1:])
	case "log":
		return p.logCmd(args[1:])
	case "settings":
		return p.settingsCmd(args[1:])
	case "appops":
		return p.appops(args[1:])
	case "svc":
		return p.svc(args[1:])
	case "getenforce":
		return p.getenforce(args[1:])
	case "pidof":
		return p.pidof(args[1:])
	}
	p.errf("/system/bin/sh: %s: inaccessible or not found", args[0])
	return 127
}

func (p *proc) getprop(args []string) int {
	if len(args) == 0 {
		keys := make([]string, 0, len(p.d.props))
		for k := range p.d.props {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p.outf("[%s]: [%s]", k, p.d.props[k])
		}
		return 0
	}
	v, ok := p.d.props[args[0]]
	if !ok && len(args) > 1 {
		v = args[1]
	}
	p.outf("%s", v)
	return 0
}

func (p *proc) echo(args []string) int {
	end := "\n"
	if len(args) > 0 && args[0] == "-n" {
		args, end = args[1:], ""
	}
	fmt.Fprint(p.stdout, strings.Join(args, " ")+end)
	return 0
}

// flags splits leading single-letter flags ("-rf" is -r and -f) from the
// operands.
func flags(args []string) (set map[byte]bool, rest []string) {
	set = map[byte]bool{}
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' {
		if args[0] == "--" {
			return set, args[1:]
		}
		for i := 1; i < len(args[0]); i++ {
			set[args[0][i]] = true
		}
		args = args[1:]
	}
	return set, args
}

func (p *proc) mkdir(args []string) int {
	f, dirs := flags(args)
	if len(dirs) == 0 {
		p.errf("mkdir: Need 1 argument")
		return 1
	}
	status := 0
	for _, dir := range dirs {
		if err := p.d.mkdir(dir, f['p']); err != nil {
			p.errf("mkdir: '%s': %s", dir, errText(err))
			status = 1
		}
	}
	return status
}

func (p *proc) rm(args []string) int {
	f, paths := flags(args)
	recursive, force := f['r'] || f['R'], f['f']
	if len(paths) == 0 {
		if force {
			return 0
		}
		p.errf("rm: Need 1 argument")
		return 1
	}
	status := 0
	for _, name := range paths {
		if err := p.d.remove(name, recursive); err != nil {
			if force && errors.Is(err, fs.ErrNotExist) {
				continue
			}
			p.errf("rm: %s: %s", name, errText(err))
			status = 1
		}
	}
	return status
}

// chmod applies octal modes. The shell and sync run as root here and are
// refused nothing by them, but the app's file rules (JVMHarness's
// AndroidFileRules) read them as the app's uid would be judged: a staged
// file without o+r, or a folder without o+x, is refused to the harness.
func (p *proc) chmod(args []string) int {
	opts, rest := flags(args)
	if len(rest) < 2 {
		p.errf("chmod: Need 2 arguments")
		return 1
	}
	// Symbolic modes are accepted and change nothing.
	mode, err := strconv.ParseUint(rest[0], 8, 32)
	octal := err == nil
	status := 0
	for _, name := range rest[1:] {
		dev := cleanDevPath(name)
		host := p.d.hostPath(dev)
		if _, err := os.Lstat(host); err != nil {
			p.errf("chmod: %s: %s", name, errText(err))
			status = 1
			continue
		} else if !writable(dev) {
			p.errf("chmod: %s: %s", name, errText(syscall.EROFS))
			status = 1
			continue
		}
		if !octal {
			continue
		}
		apply := func(path string, _ os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			return os.Chmod(path, os.FileMode(mode))
		}
		if opts['R'] {
			err = filepath.WalkDir(host, apply)
		} else {
			err = apply(host, nil, nil)
		}
		if err != nil {
			p.errf("chmod: %s: %s", name, errText(err))
			status = 1
		}
	}
	return status
}

func (p *proc) md5sum(args []string) int {
	status := 0
	for _, name := range args {
		data, err := os.ReadFile(p.d.hostPath(name))
		if err != nil {
			p.errf("md5sum: %s: %s", name, errText(err))
			status = 1
			continue
		}
		sum := md5.Sum(data)
		p.outf("%s  %s", hex.EncodeToString(sum[:]), name)
	}
	return status
}

func (p *proc) cat(args []string) int {
	status := 0
	for _, name := range args {
		data, err := os.ReadFile(p.d.hostPath(name))
		if err != nil {
			p.errf("cat: %s: %s", name, errText(err))
			status = 1
			continue
		}
		p.stdout.Write(data)
	}
	return status
}

// cmd is the binder command-line tool; the fake knows the package and
// activity services, as pm and am.
func (p *proc) cmd(args []string) int {
	if len(args) == 0 {
		p.errf("cmd: No service specified; use -l to list all services")
		return 20
	}
	switch args[0] {
	case "package":
		return p.pm(args[1:])
	case "activity":
		return p.am(args[1:])
	}
	p.errf("cmd: Can't find service: %s", args[0])
	return 20
}

// cleanDevPath makes a device path absolute (the shell's working
// directory is /) and clean.
func cleanDevPath(p string) string { return path.Clean("/" + p) }

// writable says whether a device path is on a writable filesystem: /data
// and external storage, as on a phone; /, /system and the rest are
// read-only.
func writable(dev string) bool {
	for _, pre := range []string{"/data", "/sdcard", "/storage", "/mnt"} {
		if dev == pre || strings.HasPrefix(dev, pre+"/") {
			return true
		}
	}
	return false
}

// errText is an error as bionic's strerror spells it, for the messages
// that adbd and toybox print.
func errText(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		s := errno.Error()
		return strings.ToUpper(s[:1]) + s[1:]
	}
	return err.Error()
}

func (d *Device) mkdir(name string, parents bool) error {
	dev := cleanDevPath(name)
	host := d.hostPath(dev)
	if fi, err := os.Stat(host); err == nil {
		if fi.IsDir() && parents {
			return nil
		}
		return syscall.EEXIST
	}
	if !writable(dev) {
		return syscall.EROFS
	}
	umask := d.cfg.ShellUmask
	if umask == 0 {
		umask = 0o022
	}
	mode := 0o777 &^ umask
	if !parents {
		if err := os.Mkdir(host, mode); err != nil {
			return err
		}
		return os.Chmod(host, mode) // not the host's umask
	}
	// Each folder made gets the mode, as toybox's mkdir -p makes them.
	var made []string
	for p := host; ; p = filepath.Dir(p) {
		if _, err := os.Stat(p); err == nil {
			break
		}
		made = append(made, p)
	}
	if err := os.MkdirAll(host, mode); err != nil {
		return err
	}
	for _, p := range made {
		if err := os.Chmod(p, mode); err != nil {
			return err
		}
	}
	return nil
}

func (d *Device) remove(name string, recursive bool) error {
	dev := cleanDevPath(name)
	host := d.hostPath(dev)
	fi, err := os.Lstat(host)
	if err != nil {
		return err
	}
	if !writable(dev) {
		return syscall.EROFS
	}
	if fi.IsDir() {
		if !recursive {
			return syscall.EISDIR
		}
		return os.RemoveAll(host)
	}
	return os.Remove(host)
}
