package purpose

import (
	"path/filepath"
	"strings"
)

// checkName says what is wrong with a purpose name or symbol, or "". The
// characters are the ones that survive unquoted in file names, DOT
// identifiers and command lines, where names and symbols end up.
func checkName(s string) string {
	if s == "" {
		return "must not be empty"
	}
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
		case (r == '-' || r == '.') && i > 0:
		default:
			return "use letters, digits, '_', '-' and '.', starting with a letter, digit or '_'"
		}
	}
	return ""
}

// checkSymbol validates a symbol and reports it; false means it is unusable
// and is left out of the duplicate checks.
func (d *decoder) checkSymbol(s string, v value) bool {
	if msg := checkName(s); msg != "" {
		d.errAt(v.pos, v.path, "invalid symbol %s: %s", quoteShort(s), msg)
		return false
	}
	return true
}

// javaName checks a Java class or method name; what is "class" or "method".
func (d *decoder) javaName(p *Purpose, v value, what string) string {
	s, ok := d.str(v)
	if !ok {
		return ""
	}
	d.where(p, v)
	valid := s != ""
	for i, part := range strings.Split(s, ".") {
		if !javaIdent(part) || (what == "method" && i > 0) {
			valid = false
		}
	}
	if what == "class" && strings.Contains(s, "$") {
		// Nested classes: android.media.MediaPlayer$OnPreparedListener.
		valid = valid && !strings.HasSuffix(s, "$")
	}
	if !valid {
		if what == "method" {
			d.errAt(v.pos, v.path, "invalid method name %s: want a Java identifier such as setDataSource", quoteShort(s))
		} else {
			d.errAt(v.pos, v.path, "invalid class name %s: want a binary name such as android.media.MediaPlayer$OnPreparedListener", quoteShort(s))
		}
	}
	return s
}

func javaIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f:
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// fileName checks a name in the harness's files directory: a plain
// relative path that cannot climb out of it.
func (d *decoder) fileName(v value, s string) {
	clean := filepath.ToSlash(filepath.Clean(filepath.FromSlash(s)))
	if s == "" || filepath.IsAbs(s) || strings.HasPrefix(s, "/") || clean == ".." || strings.HasPrefix(clean, "../") || strings.Contains(s, "\\") {
		d.errAt(v.pos, v.path, "invalid file name %s: want a relative path inside the harness's files directory, such as watched.txt", quoteShort(s))
	}
}
