package matrix

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/droidstar/droidstar/internal/atomicfile"
	"github.com/droidstar/droidstar/internal/export"
	"github.com/droidstar/droidstar/internal/run"
)

// learnTarget learns r's target and writes NAME.json and NAME.dot, or
// NAME.partial.json when learning fails part-way, filling in r.
func learnTarget(ctx context.Context, s Spec, r *Result) error {
	p, err := forTarget(s.Purpose, r.Target)
	if err != nil {
		return err
	}
	doc, err := s.Learn(ctx, p, r.Target)
	if err != nil {
		if doc != nil {
			// Counted as progress and the summary count: the sink apart.
			r.PartialStates = len(doc.States)
			if doc.Stats != nil && doc.Stats.States > 0 {
				r.PartialStates, r.PartialSink = doc.Stats.States, len(doc.States) > doc.Stats.States
			}
			file, werr := run.WritePartial(s.Out, r.Name, doc)
			if werr != nil {
				r.PartialErr = werr
				return err
			}
			r.Partial = file
			if r.PartialStates == 0 {
				return fmt.Errorf("%w (no hypothesis yet: the statistics are in %s)", err, file)
			}
			return fmt.Errorf("%w (the last hypothesis is in %s)", err, file)
		}
		return err
	}
	if doc == nil {
		return fmt.Errorf("learning %s gave no model", r.Name)
	}
	data, err := doc.Marshal()
	if err != nil {
		return fmt.Errorf("model %s: %w", r.Name, err)
	}
	dot, err := export.Write(doc, export.FormatDOT, export.PictureOptions{})
	if err != nil {
		return fmt.Errorf("typestate of %s: %w", r.Name, err)
	}
	// The model and its picture are written as a set.
	file := filepath.Join(s.Out, r.Name+".json")
	if err := atomicfile.WriteSet([]atomicfile.File{
		{Path: file, Data: data}, {Path: filepath.Join(s.Out, r.Name+".dot"), Data: dot},
	}); err != nil {
		return err
	}
	m, _, err := doc.Machine()
	if err != nil {
		return fmt.Errorf("model of %s: %w", r.Name, err)
	}
	ts, err := m.Typestate()
	if err != nil {
		return fmt.Errorf("typestate of %s: %w", r.Name, err)
	}
	r.Learned, r.File, r.doc = true, file, doc
	r.States, r.Transitions = len(ts.States), len(ts.Edges)
	return nil
}
