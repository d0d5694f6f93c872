// Package inputfile reads the files a user hands droidstar (purposes and
// models) with limits: regular files only and a size cap, so that
// /dev/zero, a FIFO or a runaway file gives a clear error instead of
// exhausting memory or hanging; and, for YAML, a nesting-depth cap checked
// before any YAML parser sees the text, because goccy/go-yaml takes time and
// memory quadratic in the nesting depth.
package inputfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// DefaultMaxSize caps a purpose or model file. The largest example purpose is
// a few KiB and a 10,000-state model document about 3 MiB.
const DefaultMaxSize int64 = 4 << 20

// MaxDepth caps the nesting of a YAML document. A purpose nests about six
// levels deep; at 100 levels go-yaml still parses in microseconds.
const MaxDepth = 100

// SizeFlag is the flag that raises DefaultMaxSize, named in messages.
const SizeFlag = "--max-file-size"

// Read reads a regular file of at most max bytes (max <= 0 means
// DefaultMaxSize).
func Read(path string, max int64) ([]byte, error) {
	if max <= 0 {
		max = DefaultMaxSize
	}
	// Stat before opening: opening a FIFO for reading blocks until a writer
	// comes.
	fi, err := os.Stat(path)
	if err != nil {
		// Said as os.ReadFile says it: the user asked to read the file.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			pe.Op = "open"
		}
		return nil, err
	}
	if err := regular(path, fi); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The file may have been swapped between Stat and Open.
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := regular(path, fi); err != nil {
		return nil, err
	}
	if fi.Size() > max {
		return nil, tooLarge(path, fi.Size(), max)
	}
	// A file growing while read is cut off at the cap plus one byte.
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, tooLarge(path, int64(len(data)), max)
	}
	return data, nil
}

func regular(path string, fi os.FileInfo) error {
	m := fi.Mode()
	if m.IsRegular() {
		return nil
	}
	kind := "not a regular file"
	switch {
	case m.IsDir():
		kind = "a directory"
	case m&os.ModeNamedPipe != 0:
		kind = "a named pipe (FIFO)"
	case m&os.ModeCharDevice != 0:
		kind = "a character device"
	case m&os.ModeDevice != 0:
		kind = "a device"
	case m&os.ModeSocket != 0:
		kind = "a socket"
	}
	return fmt.Errorf("%s: is %s, not a regular file", path, kind)
}

func tooLarge(path string, size, max int64) error {
	return fmt.Errorf("%s: file is larger than %s (%d bytes); raise the limit with %s if it is meant to be this big",
		path, FormatSize(max), size, SizeFlag)
}

// FormatSize writes a byte count the way ParseSize reads it.
func FormatSize(n int64) string {
	switch {
	case n > 0 && n%(1<<30) == 0:
		return strconv.FormatInt(n>>30, 10) + " GiB"
	case n > 0 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n > 0 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// ParseSize reads a byte count: a number with an optional unit K, M, G
// (binary multiples, with or without "iB"/"B").
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	upper := strings.ToUpper(t)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}} {
		if strings.HasSuffix(upper, u.suffix) {
			t, mult = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q is not a positive size (examples: 4MiB, 64M, 1G, 500000)", s)
	}
	if n > (1<<62)/mult {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return n * mult, nil
}

// DepthError says where a YAML document nests deeper than MaxDepth.
type DepthError struct {
	Line, Col int
	Max       int
}

func (e *DepthError) Error() string {
	return fmt.Sprintf("nesting deeper than %d levels; a purpose needs far fewer", e.Max)
}

// CheckYAMLDepth scans YAML text in one linear pass and returns a
// *DepthError at the first place it nests deeper than max. It over-counts
// rather than under-counts: block nesting is measured by the rising
// indentation of lines plus the compact "- " and "? " indicators that open a
// collection on the same line (also inside flow collections, where YAML
// ignores indentation), flow nesting by open brackets outside quotes and
// comments.
func CheckYAMLDepth(data []byte, max int) error {
	var indents []int // block indentation stack
	flow := 0         // open [ and { brackets
	var quote byte    // the quote character of an open quoted scalar, or 0
	line := 1
	for i := 0; i < len(data); {
		// One line per iteration.
		end := i
		for end < len(data) && data[end] != '\n' {
			end++
		}
		l := data[i:end]
		j := 0
		if quote == 0 {
			for j < len(l) && l[j] == ' ' {
				j++
			}
			if j < len(l) && l[j] != '#' && l[j] != '\r' {
				for len(indents) > 0 && indents[len(indents)-1] >= j {
					indents = indents[:len(indents)-1]
				}
				indents = append(indents, j)
				// Compact nested collections: "- - - x", "? - x".
				compact := 0
				if len(indents)+flow > max {
					return &DepthError{Line: line, Col: j + 1, Max: max}
				}
				for j+1 < len(l) && (l[j] == '-' || l[j] == '?') && (l[j+1] == ' ' || l[j+1] == '\t') {
					compact++
					if len(indents)+compact+flow > max {
						return &DepthError{Line: line, Col: j + 1, Max: max}
					}
					j += 2
					for j < len(l) && (l[j] == ' ' || l[j] == '\t') {
						j++
					}
				}
				compact += len(indents)
				if err := scanFlow(l, j, &flow, &quote, compact, max, line); err != nil {
					return err
				}
			}
		} else if err := scanFlow(l, 0, &flow, &quote, len(indents), max, line); err != nil {
			return err
		}
		i = end + 1
		line++
	}
	return nil
}

// scanFlow follows quotes, comments and flow brackets along one line from
// column start; block is the block depth the line sits at.
func scanFlow(l []byte, start int, flow *int, quote *byte, block, max, line int) error {
	// prev is the last character that can precede a flow collection: a
	// bracket opens one only at the start of a value, not inside a plain
	// scalar such as x[0].
	prev := byte(' ')
	if start > 0 {
		prev = l[start-1]
	}
	for k := start; k < len(l); k++ {
		c := l[k]
		if *quote != 0 {
			switch {
			case *quote == '"' && c == '\\':
				k++
			case c == *quote:
				if *quote == '\'' && k+1 < len(l) && l[k+1] == '\'' {
					k++ // '' escapes a single quote
				} else {
					*quote = 0
				}
			}
			prev = 'x'
			continue
		}
		valueStart := prev == ' ' || prev == '\t' || prev == '[' || prev == '{' || prev == ',' || (k == 0)
		switch {
		case c == '#' && (k == 0 || prev == ' ' || prev == '\t'):
			return nil
		case (c == '"' || c == '\'') && valueStart:
			*quote = c
		case (c == '[' || c == '{') && (valueStart || *flow > 0):
			*flow++
			if block+*flow > max {
				return &DepthError{Line: line, Col: k + 1, Max: max}
			}
		case (c == ']' || c == '}') && *flow > 0:
			*flow--
		}
		prev = c
	}
	return nil
}

// IsDepthError reports whether err is a *DepthError.
func IsDepthError(err error) bool {
	var d *DepthError
	return errors.As(err, &d)
}
