package purpose

import (
	"runtime"
	"strings"
	"testing"
)

// deepPurpose is the 200 KB document nested 100,000 deep that took go-yaml
// 91 s and 15 GB before the depth cap.
func deepPurpose() []byte {
	return []byte("name: x\ncallins: " + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "\n")
}

func TestParseRefusesDeepNesting(t *testing.T) {
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"flow", string(deepPurpose()), "deep.yaml:2:109: nesting deeper than 100 levels; a purpose needs far fewer"},
		{"compact sequences", "name: x\ncallins:\n" + strings.Repeat("- ", 100000) + "x\n", "deep.yaml:3:199: nesting deeper than 100 levels; a purpose needs far fewer"},
	} {
		_, err := Parse("deep.yaml", []byte(tc.doc))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: got %v\nwant %s", tc.name, err, tc.want)
		}
	}
}

// TestParseDeepNestingMemory holds the refusal of the 200 KB nested file
// under 100 MB of allocation (its time is BenchmarkParseDeepNesting's).
func TestParseDeepNestingMemory(t *testing.T) {
	data := deepPurpose()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Parse("deep.yaml", data)
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("a 100,000-deep purpose parsed")
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 100<<20 {
		t.Fatalf("refusing the nested file allocated %d bytes, want under 100 MB", alloc)
	}
}

func BenchmarkParseDeepNesting(b *testing.B) {
	data := deepPurpose()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Parse("deep.yaml", data); err == nil {
			b.Fatal("parsed")
		}
	}
}
