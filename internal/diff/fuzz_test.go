package diff

import (
	"encoding/json"
	"testing"

	"github.com/droidstar/droidstar/internal/fuzzseed"
	"github.com/droidstar/droidstar/internal/model"
)

// Fuzz inputs larger than these are skipped: the exact state matching
// (up to 100×100 states) takes time cubic in the states and more, and a few
// large inputs would take the fuzzer's whole time instead of it exploring
// many small ones. Large models are covered by large_test.go and
// BenchmarkCompareLarge.
const (
	fuzzMaxBytes       = 64 << 10 // each document's JSON
	fuzzMaxStates      = 40       // each model's states
	fuzzMaxTransitions = 800      // each model's transitions
)

// FuzzCompare decodes two model documents and compares them, as `droidstar
// diff` does. A comparison either fails with an error or gives a report
// every format renders; a model compared with itself is the same; and the
// comparison is symmetric in its verdict and its witness counts.
func FuzzCompare(f *testing.F) {
	seeds := fuzzseed.Files(f, "../../testdata/diff/*.json", "../../testdata/export/*.json", "../../testdata/models/*.json",
		"../../testdata/matrix/learned/*.json")
	for i, a := range seeds {
		f.Add(a, seeds[(i+1)%len(seeds)])
		f.Add(a, a)
	}
	f.Fuzz(func(t *testing.T, oldData, newData []byte) {
		if len(oldData) > fuzzMaxBytes || len(newData) > fuzzMaxBytes {
			t.Skip("input too large to fuzz")
		}
		oldDoc, err := model.Unmarshal(oldData)
		if err != nil {
			return
		}
		newDoc, err := model.Unmarshal(newData)
		if err != nil {
			return
		}
		for _, d := range []*model.Document{oldDoc, newDoc} {
			if len(d.States) > fuzzMaxStates || len(d.Transitions) > fuzzMaxTransitions {
				t.Skip("model too large to fuzz")
			}
		}
		r := compare(t, oldDoc, newDoc)
		if r == nil {
			if self := compare(t, oldDoc, oldDoc); self != nil && !self.Same {
				t.Fatalf("a model differs from itself: %s", self.Verdict())
			}
			return
		}
		back := compare(t, newDoc, oldDoc)
		if back == nil {
			t.Fatal("old against new compares, new against old does not")
		}
		if r.Same != back.Same || r.SameBehaviour != back.SameBehaviour ||
			r.OldOnly.Total != back.NewOnly.Total || r.NewOnly.Total != back.OldOnly.Total {
			t.Fatalf("not symmetric: %s / %s", r.Verdict(), back.Verdict())
		}
		if self := compare(t, oldDoc, oldDoc); self == nil || !self.Same {
			t.Fatal("a model that compares with another does not compare the same with itself")
		}
	})
}

// compare runs Compare and renders the report in every format; it
// returns nil when Compare fails.
func compare(t *testing.T, oldDoc, newDoc *model.Document) *Report {
	r, err := Compare(oldDoc, newDoc, Options{OldFile: "old.json", NewFile: "new.json"})
	if err != nil {
		if r != nil || err.Error() == "" {
			t.Fatalf("report %v with error %q", r, err)
		}
		return nil
	}
	for _, format := range Formats() {
		out, err := r.Write(format)
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if format == FormatJSON && !json.Valid(out) {
			t.Fatalf("JSON report is not JSON:\n%s", out)
		}
	}
	return r
}
