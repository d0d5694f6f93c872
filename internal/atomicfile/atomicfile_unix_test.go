//go:build unix

package atomicfile

import (
	"path/filepath"
	"syscall"
	"testing"
)

// A new file gets 0644 under the umask, as os.WriteFile would make it. The
// umask is the process's, so this test does not run in parallel.
func TestWriteNewFileUnderUmask(t *testing.T) {
	for _, c := range []struct{ umask, want int }{{0o022, 0o644}, {0o077, 0o600}, {0o027, 0o640}, {0o000, 0o644}} {
		old := syscall.Umask(c.umask)
		file := filepath.Join(t.TempDir(), "model.json")
		err := Write(file, []byte("x"))
		syscall.Umask(old)
		if err != nil {
			t.Fatal(err)
		}
		if got := mode(t, file); int(got) != c.want {
			t.Errorf("umask %03o: new file %v, want %03o", c.umask, got, c.want)
		}
	}
}
