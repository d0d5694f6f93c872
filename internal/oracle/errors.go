package oracle

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/nouns"
)

// ErrRevised says a vote overturned an answer the cache had already given:
// whatever was learned from it may be wrong, so the learner starts again
// (from the cache, so nothing runs twice).
var ErrRevised = errors.New("a vote overturned an answer given earlier")

// Lanes describes a backend's executors for the message that tells two of
// them disagree: what they are, and what their disagreement means.
type Lanes struct {
	Noun string // "devices"
	Why  string // "all devices must run the same Android build and behave alike"
}

func (l Lanes) orDevices() Lanes {
	if l.Noun == "" {
		return Lanes{Noun: "devices", Why: "all devices must run the same Android build and behave alike"}
	}
	return l
}

// NondeterminismError reports two different answers to the same query:
// one device answering differently than before, or two devices that
// disagree.
type NondeterminismError struct {
	Query          mealy.Word
	Before, Now    mealy.Word // the outputs up to and including the disagreement
	Inputs, Output *mealy.Alphabet
	// BeforeDevice and NowDevice ran the two answers, when known.
	BeforeDevice, NowDevice string
	Lanes                   Lanes
}

func (e *NondeterminismError) Error() string {
	q, before, now := e.Inputs.Format(e.Query), e.Output.Format(e.Before), e.Output.Format(e.Now)
	switch {
	case e.BeforeDevice != "" && e.NowDevice != "" && e.BeforeDevice != e.NowDevice:
		l := e.Lanes.orDevices()
		return fmt.Sprintf("%s disagree on %s: %s answered %s, %s answered %s (%s)",
			l.Noun, q, e.BeforeDevice, before, e.NowDevice, now, l.Why)
	case e.NowDevice != "":
		return fmt.Sprintf("non-deterministic answer to %s on %s: earlier %s, now %s", q, e.NowDevice, before, now)
	default:
		return fmt.Sprintf("non-deterministic answer to %s: earlier %s, now %s", q, before, now)
	}
}

// VoteError is a contradiction that re-running did not settle: no answer
// has a clear majority.
type VoteError struct {
	Query           mealy.Word
	Answers         []VoteAnswer // most votes first
	Inputs, Outputs *mealy.Alphabet
}

// VoteAnswer is one answer of an unsettled vote.
type VoteAnswer struct {
	Outputs mealy.Word
	Votes   int
	// Devices are the devices that gave those votes, each once, when known.
	Devices []string
}

func (e *VoteError) Error() string {
	total := 0
	parts := make([]string, len(e.Answers))
	for k, a := range e.Answers {
		total += a.Votes
		parts[k] = fmt.Sprintf("%s ×%d", e.Outputs.Format(a.Outputs), a.Votes)
	}
	return fmt.Sprintf("non-deterministic answer to %s: no clear majority in %d runs (%s)",
		e.Inputs.Format(e.Query), total, strings.Join(parts, ", "))
}

// Report shows the disagreeing traces side by side, one row per input,
// and the fixes that most often cure such a disagreement, the likeliest
// first.
func (e *VoteError) Report() string {
	var b strings.Builder
	header := []string{"input"}
	for k, a := range e.Answers {
		h := fmt.Sprintf("answer %d (%s", k+1, nouns.Count(a.Votes, "vote"))
		if len(a.Devices) > 0 {
			h += " on " + strings.Join(a.Devices, ", ")
		}
		header = append(header, h+")")
	}
	rows := [][]string{header}
	marks := []string{""}
	for j, in := range e.Query {
		row := []string{e.Inputs.Name(in)}
		differ := false
		for _, a := range e.Answers {
			row = append(row, e.Outputs.Name(a.Outputs[j]))
			differ = differ || a.Outputs[j] != e.Answers[0].Outputs[j]
		}
		rows = append(rows, row)
		mark := ""
		if differ {
			mark = "  <- differ"
		}
		marks = append(marks, mark)
	}
	widths := make([]int, len(header))
	for _, r := range rows {
		for c, cell := range r {
			widths[c] = max(widths[c], len(cell))
		}
	}
	for k, r := range rows {
		b.WriteString(" ")
		for c, cell := range r {
			fmt.Fprintf(&b, " %-*s", widths[c], cell)
		}
		b.WriteString(marks[k])
		b.WriteString("\n")
		b.WriteString("")
	}
	b.WriteString("likely fixes:\n")
	for _, f := range e.fixes() {
		fmt.Fprintf(&b, "  - %s\n", f)
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// fixes orders the usual cures by what the differing outputs suggest.
func (e *VoteError) fixes() []string {
	const (
		quiescence = "raise the quiescence timeout (timeouts.quiescence): a callback that comes late reads as quiet on one run and as the callback on another"
		split      = "split the callin by argument or environment (one symbol per argument value or device setting): the same call may behave differently"
		merge      = "merge callbacks the framework delivers in either order (one output for both)"
		restrict   = "add a restriction that excludes the word, if the class does not promise an answer to it"
		reset      = "reset more thoroughly (raise timeouts.settle and timeouts.post_reset): state left over from the previous query may leak into this one"
	)
	var quietVsCallback, callbackVsCallback, errVsOK bool
	sem := mealy.ClosureSemantics(e.Inputs, e.Outputs)
	for j := range e.Query {
		for _, a := range e.Answers[1:] {
			x, y := e.Answers[0].Outputs[j], a.Outputs[j]
			switch {
			case x == y:
			case sem.Closure && (x == sem.Err || y == sem.Err):
				errVsOK = true
			case sem.Closure && (x == sem.Quiet || y == sem.Quiet):
				quietVsCallback = true
			default:
				callbackVsCallback = true
			}
		}
	}
	var out []string
	if quietVsCallback {
		out = append(out, quiescence)
	}
	if callbackVsCallback {
		out = append(out, merge)
	}
	if errVsOK {
		out = append(out, split)
	}
	for _, f := range []string{quiescence, split, merge, restrict, reset} {
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// Observations are what a learner's final hypothesis rests on: the rows
// and columns of its observation table and the output word it saw in each
// cell (the outputs of the column's suffix after the row's word).
type Observations struct {
	// Rows are the access words of the hypothesis's states (the first
	// States rows), then their one-letter extensions.
	Rows, Columns []mealy.Word
	States        int
	// Cells[r][c] is the answer to Rows[r]·Columns[c], suffix part only,
	// or nil where the learner did not ask it (a discrimination tree asks
	// each row only the columns on its path).
	Cells [][]mealy.Word
}

// QuietTimeouts is a calibrated run's current quiescence timeouts, as the
// cache needs them.
type QuietTimeouts interface {
	// Needed is the timeout the wait that ends w runs under now.
	Needed(w mealy.Word) time.Duration
	// Raises counts the raises so far: a quiet answered before one may
	// be stale.
	Raises() int
}
