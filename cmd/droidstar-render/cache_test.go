//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"

	"github.com/droidstar/droidstar/internal/render/rendertest"
)

// The helper renders for every user of a machine, whatever another user
// left in the shared $TMPDIR or in this user's cache folder: with a cache
// folder it can use, silently; without one, saying why, but never with a
// panic. Another user's folder is a folder this test's user owns and that
// the helper, run as nobody, cannot write in when the test runs as root;
// otherwise one made read-only.
func TestCacheFolderOfAnotherUser(t *testing.T) {
	helper := rendertest.Helper(t)
	runAs := otherUser(t)
	base := t.TempDir()
	openUp(t, base)
	if runAs != nil {
		// nobody must reach the helper as well.
		exe := filepath.Join(base, "droidstar-render")
		data, err := os.ReadFile(helper)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(exe, data, 0o755); err != nil {
			t.Fatal(err)
		}
		helper = exe
	}
	wazero := "wazero-" + wazeroVersion(t) + "-" + runtime.GOARCH + "-" + runtime.GOOS
	const slower = "; rendering without a compilation cache (about 1 s longer)\n"

	// own makes a folder the helper's user owns; others makes one it
	// cannot write in.
	own := func(path string) string {
		if err := os.MkdirAll(path, 0o755); err != nil {
			t.Fatal(err)
		}
		if runAs != nil {
			if err := os.Chown(path, int(runAs.Uid), int(runAs.Gid)); err != nil {
				t.Fatal(err)
			}
		}
		return path
	}
	others := func(path string) string {
		if err := os.MkdirAll(path, 0o700); err != nil {
			t.Fatal(err)
		}
		if runAs == nil {
			if err := os.Chmod(path, 0o500); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(path, 0o700) })
		}
		return path
	}

	want := renderDirect(t)
	cases := []struct {
		name string
		// prepare makes the case's folders under dir and returns the
		// helper's environment and the stderr it must print.
		prepare func(dir string) (env []string, stderr string)
		// cached is where the compiled module must be afterwards, if
		// anywhere.
		cached string
	}{
		{
			name: "own cache folder",
			prepare: func(dir string) ([]string, string) {
				return []string{"HOME=" + own(dir+"/home"), "XDG_CACHE_HOME=" + own(dir+"/cache"), "TMPDIR=" + own(dir+"/tmp")}, ""
			},
			cached: "cache/droidstar/render/go-graphviz/" + wazero,
		},
		{
			// What used to panic: another user's go-graphviz cache in
			// the $TMPDIR everyone shares.
			name: "another user's cache in the shared TMPDIR",
			prepare: func(dir string) ([]string, string) {
				tmp := own(dir + "/tmp")
				own(tmp + "/go-graphviz")
				others(tmp + "/go-graphviz/" + wazero)
				return []string{"HOME=" + own(dir+"/home"), "XDG_CACHE_HOME=" + own(dir+"/cache"), "TMPDIR=" + tmp}, ""
			},
			cached: "cache/droidstar/render/go-graphviz/" + wazero,
		},
		{
			name: "cache folder of another user",
			prepare: func(dir string) ([]string, string) {
				cache := others(dir + "/cache")
				return []string{"HOME=" + own(dir+"/home"), "XDG_CACHE_HOME=" + cache, "TMPDIR=" + own(dir+"/tmp")},
					"droidstar-render: cannot make the cache folder " + cache + "/droidstar/render (permission denied)" + slower
			},
		},
		{
			// As after a 'sudo droidstar' that kept $HOME.
			name: "another user's compiled module in the own cache folder",
			prepare: func(dir string) ([]string, string) {
				gv := own(dir + "/cache/droidstar/render/go-graphviz")
				own(dir + "/cache/droidstar")
				own(dir + "/cache/droidstar/render")
				theirs := others(gv + "/" + wazero)
				return []string{"HOME=" + own(dir+"/home"), "XDG_CACHE_HOME=" + dir + "/cache", "TMPDIR=" + own(dir+"/tmp")},
					"droidstar-render: cannot write in the cache folder " + theirs + " (permission denied)" + slower
			},
		},
		{
			name: "no cache folder at all",
			prepare: func(dir string) ([]string, string) {
				return []string{"TMPDIR=" + own(dir+"/tmp")},
					"droidstar-render: no cache folder (neither $XDG_CACHE_HOME nor $HOME are defined)" + slower
			},
		},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(base, string(rune('a'+i)))
			own(dir)
			env, wantErr := c.prepare(dir)
			cmd := exec.Command(helper)
			cmd.Env = env
			cmd.Stdin = strings.NewReader(dot)
			if runAs != nil {
				cmd.SysProcAttr = &syscall.SysProcAttr{Credential: runAs}
			}
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if err != nil || stderr.String() != wantErr {
				t.Fatalf("%v\nstderr:\n%s\nwant:\n%s", err, stderr.String(), wantErr)
			}
			if !bytes.Equal(stdout.Bytes(), want) {
				t.Fatalf("the SVG differs from the one rendered in-process:\n%s", stdout.String())
			}
			if c.cached != "" {
				if files, _ := os.ReadDir(filepath.Join(dir, c.cached)); len(files) == 0 {
					t.Fatalf("nothing cached in %s", c.cached)
				}
			}
		})
	}
}

// otherUser is the identity to run the helper as: nobody when the test
// runs as root (for whom no permission bit counts), else nil (this user).
func otherUser(t *testing.T) *syscall.Credential {
	if os.Geteuid() != 0 {
		return nil
	}
	return &syscall.Credential{Uid: 65534, Gid: 65534}
}

// openUp lets every user into dir and its parent (t.TempDir makes both
// 0700).
func openUp(t *testing.T, dir string) {
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// wazeroVersion is the version in the name of wazero's cache folder.
func wazeroVersion(t *testing.T) string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("no build info")
	}
	for _, m := range info.Deps {
		if m.Path == "github.com/tetratelabs/wazero" {
			return m.Version
		}
	}
	t.Fatal("the build info lists no wazero")
	return ""
}

// renderDirect is the SVG of dot rendered in-process.
func renderDirect(t *testing.T) []byte {
	var out, errb bytes.Buffer
	if code := run(nil, strings.NewReader(dot), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	return out.Bytes()
}
