// Package atomicfile writes output files so that a reader, or a run that is
// interrupted, never sees one half-written: the commands and the matrix
// write their models and reports through it.
//
// The files of one run (a model with its DOT and SVG, say) are written as a
// set: every file's content is written to a temporary file beside it and
// synced before any of them is renamed into place, so a full disk or a
// failed picture replaces none of the old files. The renames themselves
// cannot be made atomic as a group; they come last, in order, and the
// folders are synced after them so the new names survive a crash.
package atomicfile

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// File is one file of a set: its path and its whole content, or the
// function that writes it.
type File struct {
	Path string
	Data []byte
	// Stream, when set, writes the content instead of Data, so that a
	// large file need not be held whole in memory first. An error it
	// returns fails the set like any other.
	Stream func(w io.Writer) error
}

// newMode is the mode a new file is created with, before the umask, as
// os.WriteFile callers conventionally ask.
const newMode fs.FileMode = 0o644

// Write writes data to file through a temporary file in the same folder and
// a rename, creating the folder if needed. A file that is replaced keeps its
// mode (a private 0600 model stays private); a new one gets 0644 under the
// umask. Errors name the path they failed on.
func Write(file string, data []byte) error {
	return WriteSet([]File{{Path: file, Data: data}})
}

// WriteStream is Write for content that write produces as it goes.
func WriteStream(file string, write func(w io.Writer) error) error {
	return WriteSet([]File{{Path: file, Stream: write}})
}

// WriteSet writes files as a set: all contents are written and synced to
// temporary files first, then each is renamed over its path. When anything
// fails, no temporary file is left behind; when a rename fails, the files
// renamed before it are already replaced, and the error says which.
func WriteSet(files []File) error {
	seen := make(map[string]bool, len(files))
	for _, f := range files {
		abs, err := filepath.Abs(f.Path)
		if err != nil {
			return err
		}
		if seen[abs] {
			return fmt.Errorf("write %s: named twice in one set of files", f.Path)
		}
		seen[abs] = true
	}
	tmps := make([]string, 0, len(files))
	removeFrom := func(k int) {
		for _, t := range tmps[k:] {
			os.Remove(t)
		}
	}
	for _, f := range files {
		tmp, err := stage(f)
		if err != nil {
			removeFrom(0)
			return err
		}
		tmps = append(tmps, tmp)
	}
	dirs := map[string]bool{}
	var done []string
	for k, f := range files {
		if err := os.Rename(tmps[k], f.Path); err != nil {
			removeFrom(k)
			if len(done) > 0 {
				return fmt.Errorf("%w (already replaced: %s)", err, strings.Join(done, ", "))
			}
			return err
		}
		done = append(done, f.Path)
		dirs[filepath.Dir(f.Path)] = true
	}
	for dir := range dirs {
		if err := syncDir(dir); err != nil {
			return err
		}
	}
	return nil
}

// stage writes f's content to a new temporary file beside f.Path, synced and
// with the mode the final file is to have, and returns its name.
func stage(f File) (string, error) {
	dir := filepath.Dir(f.Path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	keep, replacing := fs.FileMode(0), false
	if info, err := os.Stat(f.Path); err == nil && info.Mode().IsRegular() {
		keep, replacing = info.Mode().Perm(), true
	}
	tmp, err := createTemp(dir, filepath.Base(f.Path))
	if err != nil {
		return "", err
	}
	if err := finish(tmp, f, keep, replacing); err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return tmp.Name(), nil
}

// createTemp creates a new hidden file in dir with mode newMode under the
// umask (os.CreateTemp would make it 0600).
func createTemp(dir, base string) (*os.File, error) {
	for try := 0; ; try++ {
		var b [6]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, err
		}
		name := filepath.Join(dir, "."+base+"."+hex.EncodeToString(b[:]))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, newMode)
		if err == nil || !errors.Is(err, fs.ErrExist) || try == 100 {
			return f, err
		}
	}
}

// finish writes f's content to tmp, syncs and closes it, and gives it mode keep
// when it replaces a file (chmod ignores the umask, so the replaced file's mode
// comes through exactly).
func finish(tmp *os.File, f File, keep fs.FileMode, replacing bool) error {
	var err error
	if f.Stream != nil {
		bw := bufio.NewWriter(tmp)
		if err = f.Stream(bw); err == nil {
			err = bw.Flush()
		}
	} else {
		_, err = tmp.Write(f.Data)
	}
	if err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if replacing {
		return os.Chmod(tmp.Name(), keep)
	}
	return nil
}

// syncDir makes the renames in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// CheckDir checks that files can be created in dir by creating and removing
// one. A folder that does not exist yet is made only when the files are
// written (a failed run leaves none), so then its nearest existing parent
// is probed.
func CheckDir(dir string) error {
	at := dir
	for {
		fi, err := os.Stat(at)
		if err == nil {
			if !fi.IsDir() {
				return fmt.Errorf("output folder %s: %s is not a folder", dir, at)
			}
			break
		}
		parent := filepath.Dir(at)
		if !errors.Is(err, os.ErrNotExist) || parent == at {
			return fmt.Errorf("output folder %s: %w", dir, err)
		}
		at = parent
	}
	f, err := os.CreateTemp(at, ".droidstar-probe-*")
	if err != nil {
		return fmt.Errorf("output folder %s is not writable: %w", dir, err)
	}
	name := f.Name()
	cerr := f.Close()
	if err := os.Remove(name); err != nil {
		return fmt.Errorf("output folder %s: removing the probe file: %w", dir, err)
	}
	if cerr != nil {
		return fmt.Errorf("output folder %s is not writable: %w", dir, cerr)
	}
	return nil
}
