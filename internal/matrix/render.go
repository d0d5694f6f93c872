package matrix

import (
	"fmt"
	"strings"
)

// Table is the report as the command prints it: one aligned line per
// target with its size and its verdict against the baseline.
func (r *Report) Table() string {
	rows := [][]string{{"target", "states", "transitions", "vs " + r.Baseline}}
	for _, t := range r.Targets {
		rows = append(rows, t.row(r.Baseline))
	}
	width := make([]int, 3)
	for _, row := range rows {
		for i := range width {
			width[i] = max(width[i], len(row[i]))
		}
	}
	var b strings.Builder
	for _, row := range rows {
		fmt.Fprintf(&b, "%-*s  %*s  %*s  %s\n", width[0], row[0], width[1], row[1], width[2], row[2], row[3])
	}
	return b.String()
}

// row is one target's line of the table: name, states, transitions,
// verdict.
func (t *Result) row(baseline string) []string {
	if !t.Learned {
		return []string{t.Name, "-", "-", "failed: " + t.Error}
	}
	verdict := "baseline"
	switch {
	case t.Name == baseline:
	case t.Same == nil:
		verdict = "not compared"
		if t.Error != "" {
			verdict += ": " + t.Error
		}
	case *t.Same:
		verdict = "same"
	default:
		verdict = "different"
		if t.FirstDifference != "" {
			verdict += ": " + t.FirstDifference
		}
	}
	return []string{t.Name, fmt.Sprint(t.States), fmt.Sprint(t.Transitions), verdict}
}

// Markdown is matrix.md: the table, then the diff report of every target
// that differs from the baseline.
func (r *Report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Typestate matrix: %s\n\nBaseline: %s.\n\n", r.Purpose, r.Baseline)
	b.WriteString("| target | states | transitions | same as " + r.Baseline + " | first differing trace |\n|---|---|---|---|---|\n")
	for _, t := range r.Targets {
		b.WriteString("| " + strings.Join(t.cells(r.Baseline), " | ") + " |\n")
	}
	for _, t := range r.Targets {
		if t.Diff != nil && !t.Diff.Same {
			// The diff's headings, one level down, under the target's.
			md := strings.ReplaceAll("\n"+t.Diff.Markdown(), "\n#", "\n##")[1:]
			fmt.Fprintf(&b, "\n## %s against %s\n\n%s", t.Name, r.Baseline, md)
		}
	}
	return b.String()
}

// cells is one target's row of the Markdown table, escaped.
func (t *Result) cells(baseline string) []string {
	row := []string{t.Name, "-", "-", "failed", t.Error}
	if t.Learned {
		row[1], row[2], row[3], row[4] = fmt.Sprint(t.States), fmt.Sprint(t.Transitions), "", ""
		switch {
		case t.Name == baseline:
			row[3] = "baseline"
		case t.Same == nil:
			row[3], row[4] = "not compared", t.Error
		case *t.Same:
			row[3] = "yes"
		default:
			row[3], row[4] = "no", t.FirstDifference
		}
	}
	for i, cell := range row {
		row[i] = strings.ReplaceAll(cell, "|", `\|`)
	}
	if row[4] != "" && row[3] == "no" {
		row[4] = "`" + row[4] + "`"
	}
	return row
}
