package purpose

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse checks that no input makes the decoder panic (it calls parse,
// not Parse, so that Parse's recover cannot hide one), and that every
// failure is an ErrorList of positioned errors.
func FuzzParse(f *testing.F) {
	for _, dir := range []string{"good", "bad"} {
		files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "purposes", dir, "*.yaml"))
		for _, file := range files {
			if data, err := os.ReadFile(file); err == nil {
				f.Add(data)
			}
		}
	}
	for _, s := range []string{
		"",
		"- a\n",
		"name: a\ncallins: [a]\nbackend: {sim: {model: m}}\n",
		"name: &n a\ncallins: [*n, *n]\nbackend: {sim: {model: *n}}\n",
		"a: &x [*x]\n",
		"callins: !!str\nbound: !!str 5\n",
		"? [a]\n: b\n",
		"<<: {a: 1}\n",
		"---\n---\nname: a\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := parse("fuzz.yaml", data)
		if err == nil {
			if p == nil {
				t.Fatal("nil purpose without an error")
			}
			p.Fingerprint()
			return
		}
		if p != nil {
			t.Fatal("a purpose and an error")
		}
		var list ErrorList
		if !errors.As(err, &list) || len(list) == 0 {
			t.Fatalf("error is not a non-empty ErrorList: %#v", err)
		}
		for _, e := range list {
			if e.Line < 1 || e.Col < 1 || e.Msg == "" {
				t.Fatalf("unpositioned or empty error: %#v", e)
			}
			if !strings.HasPrefix(e.Error(), "fuzz.yaml:") {
				t.Fatalf("error without the file: %q", e.Error())
			}
		}
	})
}
