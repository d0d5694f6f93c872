package model

import (
	"bytes"
	"reflect"
	"regexp"
	"strconv"
	"testing"

	"github.com/droidstar/droidstar/internal/fuzzseed"
)

var fuzzPosition = regexp.MustCompile(`^(\d+):(\d+): `)

// FuzzUnmarshal checks that a document that decodes encodes to one that
// decodes to the same document and encodes to the same bytes, that
// Machine never panics on it, and that a decoding error placed at a line
// and column points inside the input.
func FuzzUnmarshal(f *testing.F) {
	fuzzseed.Add(f, "../../testdata/models/*.json", "../../testdata/export/*.json", "../../testdata/diff/*.json",
		"../../testdata/matrix/learned/*.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Unmarshal(data)
		if err != nil {
			if d != nil {
				t.Fatalf("a document and an error: %v", err)
			}
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			if m := fuzzPosition.FindStringSubmatch(err.Error()); m != nil {
				line, _ := strconv.Atoi(m[1])
				col, _ := strconv.Atoi(m[2])
				if line < 1 || col < 1 || line > bytes.Count(data, []byte("\n"))+1 {
					t.Fatalf("error at %d:%d of a %d-line input: %v", line, col, bytes.Count(data, []byte("\n"))+1, err)
				}
			}
			return
		}
		d.Machine()
		first, err := d.Marshal()
		if err != nil {
			// Only a timestamp encoding/json can read but not write
			// (none is known) could get here.
			t.Fatalf("a decoded document does not encode: %v", err)
		}
		d2, err := Unmarshal(first)
		if err != nil {
			t.Fatalf("an encoded document does not decode: %v\n%s", err, first)
		}
		second, err := d2.Marshal()
		if err != nil {
			t.Fatalf("encode again: %v", err)
		}
		if !bytes.Equal(first, second) {
			t.Fatalf("encoding is not stable:\n%s\n---\n%s", first, second)
		}
		d3, err := Unmarshal(second)
		if err != nil {
			t.Fatal(err)
		}
		// A time's zone is a pointer that each decoding makes anew.
		if (d2.Learned == nil) != (d3.Learned == nil) || d2.Learned != nil && !d2.Learned.Equal(*d3.Learned) {
			t.Fatalf("learned_at %v decodes again as %v", d2.Learned, d3.Learned)
		}
		d2.Learned, d3.Learned = nil, nil
		if !reflect.DeepEqual(d2, d3) {
			t.Fatalf("decode(encode(d)) != d:\n%#v\n%#v", d2, d3)
		}
	})
}
