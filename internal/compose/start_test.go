package compose

import (
	"errors"
	"testing"

	"github.com/droidstar/droidstar/internal/backend"
)

// The executors' start errors are told each once, by identity: a shared
// part's failure (one value from every lane) once, and lanes that fail
// each in their own way each, even when their messages read alike.
func TestStartAllTellsEachFailureOnce(t *testing.T) {
	shared := errors.New("no java")
	alike1, alike2 := errors.New("the harness closed the connection"), errors.New("the harness closed the connection")
	for _, tc := range []struct {
		name string
		errs []error
		want string
	}{
		{"a shared failure", []error{shared, shared, shared}, "no java"},
		{"one lane", []error{nil, shared, nil}, "no java"},
		{"two lanes failing alike", []error{alike1, alike2}, "the harness closed the connection\nthe harness closed the connection"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			execs, err := startAll(len(tc.errs), func(i int) (backend.Executor, error) { return nil, tc.errs[i] })
			if execs != nil || err == nil || err.Error() != tc.want {
				t.Fatalf("got %v, %q; want no executors and %q", execs, err, tc.want)
			}
		})
	}
}
