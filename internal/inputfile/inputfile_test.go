package inputfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.yaml")
	if err := os.WriteFile(small, []byte("name: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, make([]byte, 5<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		max  int64
		want string // error, or "" for success
	}{
		{small, 0, ""},
		{small, 8, ""},
		{small, 7, small + ": file is larger than 7 bytes (8 bytes); raise the limit with --max-file-size if it is meant to be this big"},
		{big, 0, big + ": file is larger than 4 MiB (5242880 bytes); raise the limit with --max-file-size if it is meant to be this big"},
		{big, 6 << 20, ""},
		{"/dev/zero", 0, "/dev/zero: is a character device, not a regular file"},
		{fifo, 0, fifo + ": is a named pipe (FIFO), not a regular file"},
		{dir, 0, dir + ": is a directory, not a regular file"},
		{filepath.Join(dir, "missing"), 0, "open " + filepath.Join(dir, "missing") + ": no such file or directory"},
	} {
		data, err := Read(tc.path, tc.max)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("Read(%s, %d): %v", tc.path, tc.max, err)
		case tc.want == "":
			fi, _ := os.Stat(tc.path)
			if int64(len(data)) != fi.Size() {
				t.Errorf("Read(%s): %d bytes, want %d", tc.path, len(data), fi.Size())
			}
		case err == nil || err.Error() != tc.want:
			t.Errorf("Read(%s, %d) = %v, want %s", tc.path, tc.max, err, tc.want)
		}
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"4MiB": 4 << 20, "64M": 64 << 20, "1G": 1 << 30, "500000": 500000, "2 KiB": 2048, "10mb": 10 << 20} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1", "4X", "MiB", "99999999999G"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) succeeded", in)
		}
	}
}

func TestCheckYAMLDepth(t *testing.T) {
	deepBlock := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(strings.Repeat(" ", i) + "k:\n")
		}
		return b.String()
	}
	for _, tc := range []struct {
		name, doc string
		max       int
		at        [2]int // line, col of the error; zero for none
	}{
		{"purpose", "name: x\ncallins:\n  - name: a\n    call: [f, g]\n    args: {x: [1, {y: 2}]}\n", 6, [2]int{}},
		{"flow too deep", "a: [[[[x]]]]\n", 4, [2]int{1, 7}},
		{"flow at the limit", "a: [[[x]]]\n", 4, [2]int{}},
		{"compact sequences", "a:\n  - - - - x\n", 4, [2]int{2, 7}},
		{"block maps", deepBlock(6), 5, [2]int{6, 6}},
		{"block maps at the limit", deepBlock(5), 5, [2]int{}},
		{"dedent pops", deepBlock(4) + "a:\n" + deepBlock(4), 4, [2]int{}},
		{"brackets in quotes", `a: "[[[[[[" ` + "\nb: '[[[[['''\n", 3, [2]int{}},
		{"brackets in comments", "a: x # [[[[[[[\n", 3, [2]int{}},
		{"brackets in plain scalars", "a: x[0][1][2][3]\n", 3, [2]int{}},
		// Indentation inside a flow collection counts too: an over-count
		// by design, harmless at the real cap of 100.
		{"flow over lines", "a: [\n [\n  [\n   [x]]]]\n", 4, [2]int{3, 3}},
		{"flow over lines, unindented", "a: [\n[\n[\n[x]]]]\n", 4, [2]int{4, 1}},
		// The line's own block level counts as one.
		{"flow maps", "{a: {b: {c: {d: 1}}}}", 3, [2]int{1, 9}},
	} {
		err := CheckYAMLDepth([]byte(tc.doc), tc.max)
		if tc.at == [2]int{} {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		d, ok := err.(*DepthError)
		if !ok || d.Line != tc.at[0] || d.Col != tc.at[1] {
			t.Errorf("%s: got %#v, want a DepthError at %d:%d", tc.name, err, tc.at[0], tc.at[1])
		}
	}
}
