package examples

import (
	"io/fs"
	"strings"
	"testing"
)

// Names lists the examples that learn anywhere (a sim backend); the
// device-only purposes are embedded but refused with a pointer to the
// source tree.
func TestNamesAreTheSimulatedExamples(t *testing.T) {
	want := "asynctask countdowntimer fileobserver mediaplayer speechrecognizer spellcheckersession sqliteopenhelper"
	if got := strings.Join(Names(), " "); got != want {
		t.Fatalf("Names() = %s, want %s", got, want)
	}
	for _, name := range Names() {
		if _, err := Purpose(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	_, err := Purpose("okhttp")
	if err == nil || !strings.Contains(err.Error(), "droidstar learn examples/okhttp/purpose.yaml") {
		t.Fatalf("Purpose(okhttp): %v, want a pointer to the source tree", err)
	}
	if _, err := Purpose("nosuch"); err == nil || !strings.HasPrefix(err.Error(), `no example "nosuch" (examples: asynctask,`) {
		t.Fatalf("Purpose(nosuch): %v", err)
	}
}

// Every embedded purpose parses, the device-only ones included.
func TestEveryEmbeddedPurposeParses(t *testing.T) {
	dirs, err := fs.ReadDir(files, ".")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range dirs {
		if _, err := parse(d.Name()); err != nil {
			t.Errorf("%s: %v", d.Name(), err)
		}
		n++
	}
	if n != 16 {
		t.Fatalf("%d example folders, want DroidStar's 16 benchmark classes", n)
	}
}
