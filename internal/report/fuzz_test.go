package report

import (
	"bytes"
	"errors"
	"testing"

	"github.com/droidstar/droidstar/internal/fuzzseed"
	"github.com/droidstar/droidstar/internal/model"
)

// FuzzDecodeReport decodes a model document and renders its report page,
// as `droidstar report` does: the page fails exactly when the document
// describes no machine, never because a picture could not be drawn, and
// a page is a whole HTML document.
func FuzzDecodeReport(f *testing.F) {
	fuzzseed.Add(f, "../../testdata/export/*.json", "../../testdata/models/*.json", "../../testdata/diff/*.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := model.Unmarshal(data)
		if err != nil {
			return
		}
		_, _, machineErr := d.Machine()
		for _, render := range []func([]byte) ([]byte, error){
			nil,
			func([]byte) ([]byte, error) { return nil, errors.New("no renderer in the fuzz test") },
			func([]byte) ([]byte, error) { return []byte("<svg></svg>"), nil },
		} {
			page, err := HTML(d, Options{Render: render})
			if (machineErr == nil) != (err == nil) {
				t.Fatalf("machine error %v, report error %v", machineErr, err)
			}
			if err != nil {
				continue
			}
			if !bytes.HasPrefix(page, []byte("<!DOCTYPE html>")) || !bytes.HasSuffix(bytes.TrimSpace(page), []byte("</html>")) {
				t.Fatalf("not a whole HTML page:\n%.300s\n...\n%s", page, page[max(0, len(page)-100):])
			}
		}
	})
}
