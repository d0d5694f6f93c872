package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestInputLimits: what is not a regular file of a sane size or nests too
// deep is refused, exit 1, with the file and the reason, before anything
// reads it (a FIFO would hang, /dev/zero exhaust memory).
func TestInputLimits(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, []byte("name: x\n"+strings.Repeat("# padding\n", 500000)), 0o644); err != nil {
		t.Fatal(err)
	}
	deep := filepath.Join(dir, "deep.yaml")
	if err := os.WriteFile(deep, []byte("name: x\ncallins: "+strings.Repeat("[", 100000)+strings.Repeat("]", 100000)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const tooLarge = ": file is larger than 4 MiB (5000008 bytes); raise the limit with --max-file-size if it is meant to be this big"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "/dev/zero"}, "/dev/zero: is a character device, not a regular file\ndroidstar: 1 of 1 purpose files have errors\n"},
		{[]string{"check", fifo}, fifo + ": is a named pipe (FIFO), not a regular file\ndroidstar: 1 of 1 purpose files have errors\n"},
		{[]string{"check", dir}, dir + ": is a directory, not a regular file\ndroidstar: 1 of 1 purpose files have errors\n"},
		{[]string{"check", big}, big + tooLarge + "\ndroidstar: 1 of 1 purpose files have errors\n"},
		{[]string{"check", deep}, deep + ":2:109: nesting deeper than 100 levels; a purpose needs far fewer\ndroidstar: 1 of 1 purpose files have errors\n"},
		{[]string{"learn", deep}, "droidstar: " + deep + ":2:109: nesting deeper than 100 levels; a purpose needs far fewer\n"},
		{[]string{"learn", "/dev/zero", "-o", dir}, "droidstar: /dev/zero: is a character device, not a regular file\n"},
		{[]string{"learn", "--model", fifo, "-o", dir}, "droidstar: " + fifo + ": is a named pipe (FIFO), not a regular file\n"},
		{[]string{"export", "/dev/zero"}, "droidstar: /dev/zero: is a character device, not a regular file\n"},
		{[]string{"report", fifo}, "droidstar: " + fifo + ": is a named pipe (FIFO), not a regular file\n"},
	} {
		code, stdout, stderr := droidstar(t, tc.args...)
		if code != ExitFail || stdout != "" || stderr != tc.want {
			t.Errorf("%v: exit %d, stdout %q\nstderr %q\nwant   %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
	// diff exits 2 on trouble, as diff(1) does.
	if code, _, stderr := droidstar(t, "diff", big, big); code != 2 || stderr != "droidstar: "+big+tooLarge+"\n" {
		t.Errorf("diff: exit %d, stderr %q", code, stderr)
	}
	// The cap is raised by the flag: the big file is then read, and found
	// to be an incomplete purpose.
	code, _, stderr := droidstar(t, "check", "--max-file-size", "8MiB", big)
	if code != ExitFail || !strings.HasPrefix(stderr, big+":1:1: callins: required field is missing\n") {
		t.Errorf("--max-file-size 8MiB: exit %d, stderr %s", code, stderr)
	}
	code, _, stderr = droidstar(t, "check", "--max-file-size", "0", big)
	if want := "droidstar: invalid argument \"0\" for \"--max-file-size\" flag: \"0\" is not a positive size (examples: 4MiB, 64M, 1G, 500000)\nRun 'droidstar check --help' for usage.\n"; code != ExitUsage || stderr != want {
		t.Errorf("--max-file-size 0: exit %d, stderr %q", code, stderr)
	}
}

// TestLearnChecksFirst: flags no run can use and an output folder that
// cannot be written are refused before any backend starts.
func TestLearnChecksFirst(t *testing.T) {
	dir := t.TempDir()
	readOnly := filepath.Join(dir, "ro")
	if err := os.Mkdir(readOnly, 0o555); err != nil {
		t.Fatal(err)
	}
	// root writes to a 0555 folder: only the folder cases need a user who cannot
	writable := false
	if f, err := os.CreateTemp(readOnly, "x"); err == nil {
		f.Close()
		os.Remove(f.Name())
		writable = true
	}
	model := repoPath("examples", "asynctask", "model.dot")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--bound", "0"}, ExitUsage, "droidstar: --bound must be at least 1, got 0\n"},
		{[]string{"--quiescence", "-203s"}, ExitUsage, "droidstar: --quiescence must be positive, got -3m23s\n"},
		{[]string{"--quiescence", "0"}, ExitUsage, "droidstar: --quiescence must be positive, got 0s\n"},
		{[]string{"--reset", "-1ms"}, ExitUsage, "droidstar: --reset must not be negative, got -1ms\n"},
		{[]string{"--latency", "-5s"}, ExitUsage, "droidstar: --latency must not be negative, got -5s\n"},
		{[]string{"--harness-timeout", "0s"}, ExitUsage, "droidstar: --harness-timeout must be positive, got 0s\n"},
		{[]string{"-o", readOnly}, ExitFail, "droidstar: output folder " + readOnly + " is not writable: open " + readOnly + "/.droidstar-probe-"},
		// A folder not made yet: its parent is probed, and nothing is made.
		{[]string{"-o", filepath.Join(readOnly, "sub")}, ExitFail, "droidstar: output folder " + filepath.Join(readOnly, "sub") + " is not writable: open " + readOnly + "/.droidstar-probe-"},
	} {
		if writable && slices.Contains(tc.args, "-o") {
			t.Logf("%v: skipped, running as a user who can write to a 0555 folder (root)", tc.args)
			continue
		}
		args := append([]string{"learn", "--model", model, "-q", "-o", dir}, tc.args...)
		code, stdout, stderr := droidstar(t, args...)
		if code != tc.code || stdout != "" || !strings.HasPrefix(stderr, tc.want) {
			t.Errorf("%v: exit %d, stdout %q\nstderr %q\nwant   %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files left in the output folder: %v", entries)
	}
}

// TestExportRefusesInvalidModels: every format, json and summary included,
// refuses a model that describes no machine.
func TestExportRefusesInvalidModels(t *testing.T) {
	file := filepath.Join(t.TempDir(), "bad.json")
	doc := `{"format": "droidstar-model", "version": 1, "name": "Bad", "semantics": "mealy", "inputs": ["a"], "outputs": ["x"], "initial": "s0",
 "states": [{"id": "s0"}], "transitions": []}`
	if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, first := droidstar(t, "export", file, "--format", "dot")
	if !strings.HasPrefix(first, "droidstar: "+file+": model \"Bad\": ") {
		t.Fatalf("dot: %q", first)
	}
	for _, format := range []string{"json", "summary", "mermaid", "lifestate-json"} {
		code, stdout, stderr := droidstar(t, "export", file, "--format", format)
		if code != ExitFail || stdout != "" || stderr != first {
			t.Errorf("%s: exit %d, stdout %q, stderr %q, want %q", format, code, stdout, stderr, first)
		}
	}
}

// TestModelSettleIsPartOfTheReset: --settle is the part of --reset a query
// ending waiting quiet spends; it defaults to 100ms or the whole reset
// when that is shorter, and the JSON model's backend says what it was.
func TestModelSettleIsPartOfTheReset(t *testing.T) {
	model := repoPath("examples", "asynctask", "model.dot")
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
		settle string
	}{
		{[]string{"--settle", "200ms"}, ExitUsage, "droidstar: --settle 200ms is more than --reset 150ms: the settle time is part of the reset\n", ""},
		{[]string{"--settle", "-1ms"}, ExitUsage, "droidstar: --settle must not be negative, got -1ms\n", ""},
		{nil, ExitOK, "", "100ms"},
		{[]string{"--reset", "40ms"}, ExitOK, "", "40ms"},
		{[]string{"--reset", "1s", "--settle", "0s"}, ExitOK, "", "0s"},
	} {
		dir := t.TempDir()
		args := append([]string{"learn", "--model", model, "-q", "-o", dir}, tc.args...)
		code, stdout, stderr := droidstar(t, args...)
		if code != tc.code || stdout != "" || stderr != tc.stderr {
			t.Errorf("%v: exit %d, stdout %q\nstderr %q\nwant   %q", tc.args, code, stdout, stderr, tc.stderr)
			continue
		}
		if tc.code != ExitOK {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, "model.json"))
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Backend struct{ Options map[string]string } `json:"backend"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		if got := doc.Backend.Options["settle"]; got != tc.settle {
			t.Errorf("%v: backend settle %q, want %q", tc.args, got, tc.settle)
		}
	}
}
