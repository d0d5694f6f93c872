package main

import (
	"bytes"
	"errors"
	"testing"

	"github.com/droidstar/droidstar/internal/resolve"
)

func TestReport(t *testing.T) {
	for _, c := range []struct {
		outcomes []resolve.Outcome
		code     int
		want     string
	}{
		{[]resolve.Outcome{
			{File: "examples/a/purpose.yaml", Shims: []string{"android.os.AsyncTask"}},
			{File: "examples/b/purpose.yaml"},
			{File: "examples/c/purpose.yaml", Skipped: "no library"},
		}, 0, "ok   examples/a/purpose.yaml (shims: android.os.AsyncTask)\n" +
			"ok   examples/b/purpose.yaml\n" +
			"skip examples/c/purpose.yaml: no library\n" +
			"device purposes against android.jar (API 23): 2 resolved, 1 skipped, 0 failed\n"},
		{[]resolve.Outcome{
			{File: "examples/a/purpose.yaml", Err: errors.New("examples/a/purpose.yaml:3:5: callins[0].call: no such method")},
			{File: "examples/b/purpose.yaml"},
		}, 1, "FAIL examples/a/purpose.yaml\nexamples/a/purpose.yaml:3:5: callins[0].call: no such method\n" +
			"ok   examples/b/purpose.yaml\n" +
			"device purposes against android.jar (API 23): 1 resolved, 0 skipped, 1 failed\n"},
	} {
		var out bytes.Buffer
		if code := report(c.outcomes, &out); code != c.code || out.String() != c.want {
			t.Errorf("exit %d:\n%s\nwant exit %d:\n%s", code, out.String(), c.code, c.want)
		}
	}
}
