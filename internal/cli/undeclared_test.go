package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/model"
)

// TestUndeclaredCallbackDetailIsReported: a callback detail the purpose
// does not declare, arriving in queries on the real Java harness, is in
// the summary's warnings with its count, and in the model; listed under
// ignore: it is not (issue 31 item 5).
func TestUndeclaredCallbackDetailIsReported(t *testing.T) {
	needJava(t)
	file := repoPath("testdata", "purposes", "jvm-undeclared", "cancelled.yaml")
	learn := func(t *testing.T, file string) (string, *model.Document) {
		out := t.TempDir()
		code, stdout, stderr := droidstar(t, "learn", file, "-o", out, "--lanes", "1", "--store", "off", "--seed", "1", "--write", "json")
		if code != ExitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		doc, err := model.ReadFile(filepath.Join(out, "Cancelled.json"))
		if err != nil {
			t.Fatal(err)
		}
		return stdout, doc
	}

	t.Run("reported", func(t *testing.T) {
		stdout, doc := learn(t, file)
		const want = "warnings:\n  - undeclared callbacks: 37 calls the purpose does not declare arrived during queries and were dropped: accept/null (37); " +
			"a wait that would have answered one answered the next callback or quiet instead, so the model may differ from the class's: " +
			"declare each under callbacks (as its own symbol, in a from: list, or as an error), or list it under ignore: to drop it on purpose\n"
		if !strings.HasSuffix(stdout, want) {
			t.Errorf("summary:\n%s\nwant it to end with\n%s", stdout, want)
		}
		if len(doc.Undeclared) != 1 || doc.Undeclared[0] != (model.Undeclared{Callback: "accept/null", Count: 37}) {
			t.Errorf("model's undeclared = %+v", doc.Undeclared)
		}
	})

	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, ignore := range []string{"accept/null", "accept"} {
		t.Run("ignore "+ignore, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "cancelled.yaml")
			text := strings.Replace(string(data), "timeouts:", "ignore: ["+ignore+"]\ntimeouts:", 1)
			if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			stdout, doc := learn(t, f)
			if strings.Contains(stdout, "warnings:") || doc.Undeclared != nil || doc.Warnings != nil {
				t.Errorf("summary:\n%s\nundeclared %+v, warnings %q", stdout, doc.Undeclared, doc.Warnings)
			}
		})
	}
}
