package matrix

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/droidstar/droidstar/internal/diff"
	"github.com/droidstar/droidstar/internal/model"
)

// The report's file format, matrix.json.
const (
	Format  = "droidstar-matrix"
	Version = 1
)

// Report is matrix.json: one entry per target, the baseline first.
type Report struct {
	Format   string    `json:"format"`
	Version  int       `json:"version"`
	Purpose  string    `json:"purpose"`
	Baseline string    `json:"baseline"`
	Targets  []*Result `json:"targets"`
}

// Result is what became of one target.
type Result struct {
	Target
	// Learned is false when learning failed; Error says why. Error is also
	// set on a learned target that could not be compared.
	Learned     bool   `json:"learned"`
	Error       string `json:"error,omitempty"`
	File        string `json:"file,omitempty"`
	States      int    `json:"states,omitempty"`
	Transitions int    `json:"transitions,omitempty"`
	// Same is unset when the target was not compared (it or the baseline
	// failed).
	Same *bool `json:"same_as_baseline,omitempty"`
	// FirstDifference is the first differing trace, as the table shows it.
	FirstDifference string       `json:"first_difference,omitempty"`
	Diff            *diff.Report `json:"diff,omitempty"`

	// Partial is the file with what a target that failed part-way
	// learned; PartialStates is its number of states without the error
	// sink, PartialSink whether it has one (0 states: the statistics of a
	// run stopped before its first hypothesis), and PartialErr why it
	// could not be written.
	Partial       string `json:"-"`
	PartialStates int    `json:"-"`
	PartialSink   bool   `json:"-"`
	PartialErr    error  `json:"-"`
	// Stopped: a stop (Spec.Stopped) ended the target's learning;
	// NotRun: it came before the target started.
	Stopped bool `json:"-"`
	NotRun  bool `json:"-"`

	doc *model.Document
}

// JSON is matrix.json's content.
func (r *Report) JSON() ([]byte, error) {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("matrix report: %w", err)
	}
	return append(data, '\n'), nil
}

// Outcome is what a matrix run comes to, for an exit code.
type Outcome int

const (
	// AllSame: every target learned and behaves like the baseline.
	AllSame Outcome = iota
	// Different: every target learned and was compared, and one differs.
	Different
	// Failed: a target did not learn, or could not be compared.
	Failed
)

// Outcome reads the report's verdict.
func (r *Report) Outcome() Outcome {
	out := AllSame
	for _, t := range r.Targets {
		switch {
		case !t.Learned || t.Same == nil:
			// Only a failure leaves a learned target uncompared: the
			// baseline's own, or the comparison's.
			return Failed
		case !*t.Same:
			out = Different
		}
	}
	return out
}

// compare diffs every learned target against a learned baseline.
func compare(rep *Report) {
	base := rep.Targets[0]
	if base.doc == nil {
		for _, t := range rep.Targets[1:] {
			if t.doc != nil {
				t.Error = fmt.Sprintf("the baseline %s did not learn", base.Name)
			}
		}
		return
	}
	yes := true
	base.Same = &yes
	for _, t := range rep.Targets[1:] {
		if t.doc == nil {
			continue
		}
		d, err := diff.Compare(base.doc, t.doc, diff.Options{OldFile: base.File, NewFile: t.File})
		if err != nil {
			t.Error = fmt.Sprintf("compare with %s: %v", base.Name, err)
			continue
		}
		same := d.Same
		t.Same, t.Diff = &same, d
		if !same {
			t.FirstDifference = firstWitness(d)
		}
	}
}

// firstWitness is the first differing trace, as the diff's text shows it.
func firstWitness(r *diff.Report) string {
	for _, ws := range []diff.Witnesses{r.OldOnly, r.NewOnly} {
		if len(ws.Traces) > 0 {
			var steps []string
			for _, s := range ws.Traces[0].Trace {
				if s.Input == "wait" {
					steps = append(steps, "wait/"+s.Output)
				} else {
					steps = append(steps, s.Input)
				}
			}
			return strings.Join(steps, " · ")
		}
	}
	if !r.Alphabet.Same() {
		return "the alphabets differ"
	}
	return ""
}
