// Package atomicfile writes output files so that a reader, or a run that is
// interrupted, never sees one half-written: the commands and the matrix
// write their models and reports through it.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write writes data to file through a temporary file in the same folder and
// a rename, creating the folder if needed. The file ends up with mode 0644,
// whatever the umask made of the temporary file's. Errors are the os
// package's, which name the path they failed on.
func Write(file string, data []byte) error {
	dir := filepath.Dir(file)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(file)+".*")
	if err != nil {
		return err
	}
	if err := finish(tmp, data); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), file); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// finish writes data to tmp and closes it, readable by everyone.
func finish(tmp *os.File, data []byte) error {
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Chmod(tmp.Name(), 0o644)
}
