package purpose

import (
	"fmt"
	"sort"
	"strings"
)

// Error is one problem in a purpose file. It carries the position and the
// field path separately, not only in the message, so that editors, CI
// annotations and tests can use them without parsing text.
type Error struct {
	File string
	// Line and Col are 1-based and point at the offending value, or at the
	// key for an unknown key, or at the enclosing map for a missing field.
	Line, Col int
	// Field is the path of the offending field, e.g. "timeouts.quiescence",
	// "restrictions[0].of[1]" or "backend.sim.model". It is empty for
	// problems that belong to no field (syntax errors, an empty file).
	Field string
	Msg   string
}

// Error formats the problem as FILE:LINE:COL: FIELD: MSG, the form compilers
// use, so that editors and terminals can jump to it. The "FIELD: " part is
// left out when there is no field.
func (e *Error) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s: %s", e.File, e.Line, e.Col, e.Field, e.Msg)
}

// Pos returns the position of the problem.
func (e *Error) Pos() Pos { return Pos{Line: e.Line, Col: e.Col} }

// ErrorList is every problem found in one purpose file, sorted by position.
// Parse and Load report all problems at once so that a user fixes a file
// in one round instead of one error per run. Get it with errors.As; a
// single *Error is also reachable with errors.As, which finds the first.
type ErrorList []*Error

// Error lists the problems one per line.
func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Unwrap exposes the single errors to errors.Is and errors.As.
func (l ErrorList) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}

// sort orders the problems by position; problems at the same position keep
// the order in which they were found, which follows the schema.
func (l ErrorList) sort() {
	sort.SliceStable(l, func(i, j int) bool {
		if l[i].Line != l[j].Line {
			return l[i].Line < l[j].Line
		}
		return l[i].Col < l[j].Col
	})
}

// err returns the list as an error, or nil when it is empty (never a typed
// nil, which would compare unequal to nil).
func (l ErrorList) err() error {
	if len(l) == 0 {
		return nil
	}
	l.sort()
	return l
}
