package adbd

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// syncDataMax is the largest DATA chunk of the sync protocol, both ways.
const syncDataMax = 64 * 1024

// syncPathMax is adbd's limit on a request's path.
const syncPathMax = 1024

// Unix file type bits, which the sync protocol sends in its modes.
const (
	modeDir  = 0o040000
	modeReg  = 0o100000
	modeLink = 0o120000
)

// serveSync speaks version 1 of the file sync protocol (STAT, LIST, SEND,
// RECV, QUIT); the fake advertises neither stat_v2 nor ls_v2.
func (d *Device) serveSync(s *stream) {
	for {
		id, n, err := readSyncHeader(s)
		if err != nil {
			return
		}
		if n > syncPathMax {
			syncFail(s, "path too long")
			return
		}
		buf := make([]byte, n)
		if _, err := io.ReadFull(s, buf); err != nil {
			return
		}
		name := string(buf)
		switch id {
		case "STAT":
			d.syncStat(s, name)
		case "LIST":
			d.syncList(s, name)
		case "SEND":
			if !d.syncSend(s, name) {
				return
			}
		case "RECV":
			if !d.syncRecv(s, name) {
				return
			}
		case "QUIT":
			return
		default:
			syncFail(s, fmt.Sprintf("unknown command %q", id))
			return
		}
	}
}

func readSyncHeader(r io.Reader) (string, uint32, error) {
	var h [8]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return "", 0, err
	}
	return string(h[:4]), binary.LittleEndian.Uint32(h[4:]), nil
}

func syncMsg(id string, words ...uint32) []byte {
	b := make([]byte, 4+4*len(words))
	copy(b, id)
	for i, w := range words {
		binary.LittleEndian.PutUint32(b[4+4*i:], w)
	}
	return b
}

func syncFail(s *stream, msg string) {
	s.Write(append(syncMsg("FAIL", uint32(len(msg))), msg...))
}

// unixMode converts a Go file mode to the st_mode the protocol carries.
func unixMode(fi fs.FileInfo) uint32 {
	m := uint32(fi.Mode().Perm())
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		m |= modeLink
	case fi.IsDir():
		m |= modeDir
	case fi.Mode().IsRegular():
		m |= modeReg
	}
	return m
}

func (d *Device) syncStat(s *stream, name string) {
	fi, err := os.Lstat(d.hostPath(name))
	if err != nil {
		// Version 1 has no errno: a missing file is all zeros.
		s.Write(syncMsg("STAT", 0, 0, 0))
		return
	}
	s.Write(syncMsg("STAT", unixMode(fi), uint32(fi.Size()), uint32(fi.ModTime().Unix())))
}

func (d *Device) syncList(s *stream, name string) {
	host := d.hostPath(name)
	entries, _ := os.ReadDir(host)
	for _, e := range entries {
		fi, err := os.Lstat(filepath.Join(host, e.Name()))
		if err != nil {
			continue
		}
		b := syncMsg("DENT", unixMode(fi), uint32(fi.Size()), uint32(fi.ModTime().Unix()), uint32(len(e.Name())))
		if _, err := s.Write(append(b, e.Name()...)); err != nil {
			return
		}
	}
	s.Write(syncMsg("DONE", 0, 0, 0, 0))
}

// syncSend receives a file. Like adbd, it creates missing parent
// directories, and on failure it sends FAIL at once, then swallows the
// rest of the upload and ends the sync session (false).
func (d *Device) syncSend(s *stream, spec string) bool {
	name, mode := spec, uint64(0o644)
	if i := strings.LastIndexByte(spec, ','); i >= 0 {
		name = spec[:i]
		if m, err := strconv.ParseUint(spec[i+1:], 10, 32); err == nil {
			mode = m
		}
	}
	dev := cleanDevPath(name)
	host := d.hostPath(dev)
	f, failure := d.createForSync(dev, host, fs.FileMode(mode&0o777))
	if failure != "" {
		syncFail(s, failure)
	}
	abandon := func() bool {
		if f != nil {
			f.Close()
			os.Remove(host)
		}
		return false
	}
	for {
		id, n, err := readSyncHeader(s)
		if err != nil {
			return abandon()
		}
		switch id {
		case "DATA":
			if n > syncDataMax {
				if failure == "" {
					syncFail(s, "oversize data message")
				}
				return abandon()
			}
			buf := make([]byte, n)
			if _, err := io.ReadFull(s, buf); err != nil {
				return abandon()
			}
			if f != nil && failure == "" {
				if _, err := f.Write(buf); err != nil {
					failure = "write failed: " + errText(err)
					syncFail(s, failure)
				}
			}
		case "DONE":
			if failure != "" {
				abandon()
				return false
			}
			if err := f.Close(); err != nil {
				f = nil
				os.Remove(host)
				syncFail(s, "write failed: "+errText(err))
				return false
			}
			mtime := time.Unix(int64(n), 0)
			os.Chtimes(host, mtime, mtime)
			s.Write(syncMsg("OKAY", 0))
			return true
		default:
			if failure == "" {
				syncFail(s, fmt.Sprintf("invalid data message %q", id))
			}
			return abandon()
		}
	}
}

// createForSync opens a pushed file for writing, or says why it cannot,
// in adbd's words.
func (d *Device) createForSync(dev, host string, perm fs.FileMode) (*os.File, string) {
	if !writable(dev) {
		if _, err := os.Stat(filepath.Dir(host)); err != nil {
			return nil, "secure_mkdirs failed: " + errText(syscall.EROFS)
		}
		return nil, "couldn't create file: " + errText(syscall.EROFS)
	}
	f, err := os.OpenFile(host, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(d.hostPath(path.Dir(dev)), 0o755); err != nil {
			return nil, "secure_mkdirs failed: " + errText(err)
		}
		f, err = os.OpenFile(host, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	}
	if err != nil {
		return nil, "couldn't create file: " + errText(err)
	}
	return f, ""
}

func (d *Device) syncRecv(s *stream, name string) bool {
	f, err := os.Open(d.hostPath(name))
	if err != nil {
		syncFail(s, "open failed: "+errText(err))
		return false
	}
	defer f.Close()
	buf := make([]byte, 8+syncDataMax)
	for {
		n, err := f.Read(buf[8:])
		if n > 0 {
			copy(buf, "DATA")
			binary.LittleEndian.PutUint32(buf[4:], uint32(n))
			if _, werr := s.Write(buf[:8+n]); werr != nil {
				return false
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			syncFail(s, "read failed: "+errText(err))
			return false
		}
	}
	_, err = s.Write(syncMsg("DONE", 0))
	return err == nil
}
