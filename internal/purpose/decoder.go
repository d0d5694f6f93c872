package purpose

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
)

// maxErrors caps the problems collected from one file. Aliases can make a
// small file expand into many repeated problems; past this many, more
// messages would not help anyone.
const maxErrors = 100

// decoder walks the AST of one purpose and collects problems.
type decoder struct {
	file    string
	errs    ErrorList
	anchors map[string][]anchorDef
	// found counts every problem, also those past maxErrors, so that a
	// section can tell whether it was clean.
	found int
	// returning holds, for each callin read so far, whether it calls a
	// method: a {result: SYMBOL} literal may name only such an earlier one.
	returning map[string]bool
	// params holds the declared parameters, which {param: NAME} literals
	// may name, and whether one did.
	params map[string]*paramDecl
	// callbackUses are the {callback: ...} literals read so far, checked
	// against the callbacks once those are read.
	callbackUses []callbackUse
}

func (d *decoder) errAt(pos Pos, field, format string, args ...any) {
	d.found++
	if len(d.errs) >= maxErrors {
		return
	}
	if pos.Line <= 0 {
		pos = Pos{1, 1}
	}
	if pos.Col <= 0 {
		pos.Col = 1
	}
	d.errs = append(d.errs, &Error{File: d.file, Line: pos.Line, Col: pos.Col, Field: field, Msg: fmt.Sprintf(format, args...)})
}

var (
	ansiRE      = regexp.MustCompile(`\x1b\[[0-9;]*m`)
	dupKeyRE    = regexp.MustCompile(`^mapping key (".*") already defined at \[(\d+):(\d+)\]$`)
	posPrefixRE = regexp.MustCompile(`^\[(\d+):(\d+)\]\s*`)
)

// syntaxError turns a go-yaml error into an Error at the token it names.
// go-yaml's own text repeats the position and appends a source excerpt
// (coloured on a terminal); only the message itself is kept.
func (d *decoder) syntaxError(err error) {
	pos := Pos{1, 1}
	var msg string
	var ye yaml.Error
	if errors.As(err, &ye) {
		msg = ye.GetMessage()
		if p := tokPos(ye.GetToken()); p.Line > 0 {
			pos = p
		}
	} else {
		msg = err.Error()
		if m := posPrefixRE.FindStringSubmatch(msg); m != nil {
			l, _ := strconv.Atoi(m[1])
			c, _ := strconv.Atoi(m[2])
			pos = Pos{l, c}
			msg = msg[len(m[0]):]
		}
	}
	msg = ansiRE.ReplaceAllString(msg, "")
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	msg = strings.TrimSpace(msg)
	if m := dupKeyRE.FindStringSubmatch(msg); m != nil {
		d.errAt(pos, "", "duplicate key %s (first defined at %s:%s)", m[1], m[2], m[3])
		return
	}
	if msg == "" {
		msg = "invalid YAML"
	}
	d.errAt(pos, "", "YAML syntax error: %s", msg)
}

// join builds a field path.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }
