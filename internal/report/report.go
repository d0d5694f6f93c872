// Package report writes a learned model as one self-contained HTML page:
// what was learned and where, the typestate picture (the export package's
// typestate DOT, rendered to SVG and inlined), the statistics in the
// columns of the DroidStar paper's Table 1, the warnings, every
// transition with the reason behind its err answer, and the statistics of
// the two query phases. The page loads nothing: its CSS, its SVG and its
// one small script are inline. The same document gives the same bytes.
package report

import (
	"bufio"
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io"
	"iter"
	"sort"
	"strings"

	"github.com/droidstar/droidstar/internal/export"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/nouns"
)

//go:embed report.html.tmpl
var files embed.FS

var page = template.Must(template.New("report.html.tmpl").ParseFS(files, "report.html.tmpl"))

// Options are the options of HTML.
type Options struct {
	// Render turns the typestate DOT into SVG (droidstar passes
	// render.SVG). When it is nil or fails, the page says why instead of
	// showing the picture; HTML does not fail.
	Render func(dot []byte) ([]byte, error)
}

// HTML renders the report page of d. It fails only when d does not
// describe a machine.
func HTML(d *model.Document, opts Options) ([]byte, error) {
	var buf bytes.Buffer
	if err := WriteHTML(&buf, d, opts); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteHTML writes HTML's page to w as it is made: the transitions table,
// which grows with the model, is never held whole. It fails before
// writing anything when d does not describe a machine.
func WriteHTML(w io.Writer, d *model.Document, opts Options) error {
	if d == nil {
		return fmt.Errorf("no model document")
	}
	m, _, err := d.Machine()
	if err != nil {
		return fmt.Errorf("model %q: %w", d.Name, err)
	}
	p := pageData{
		Title:    titleOf(d),
		Name:     d.Name,
		Kind:     "plain Mealy model",
		Complete: d.Complete,
		Shown:    m.NumStates(),
		Closure:  d.Semantics == model.SemanticsClosure,

		BundleMin: export.BundleMin,
	}
	if d.Semantics == model.SemanticsClosure {
		p.Kind = "callback typestate (synchronous closure)"
		ts, err := m.Typestate()
		if err != nil {
			return fmt.Errorf("model %q: %w", d.Name, err)
		}
		p.Shown = len(ts.States)
	}
	names := stateNames(d)
	p.Header = header(d)
	p.Picture, p.NoPicture = picture(d, opts)
	if d.Stats != nil {
		p.Stats = export.StatsColumns(d.Stats, d.Bound)
		p.Phases = phases(d.Stats)
	}
	p.Warnings = warnings(d, names)
	p.Excluded = errsOf(d, names, model.ErrExcluded)
	p.ExcludedCount = nouns.Count(len(p.Excluded), "transition")
	p.NumTransitions = len(d.Transitions)
	p.Transitions = transitions(d, names)
	bw := bufio.NewWriter(w)
	if err := page.Execute(bw, p); err != nil {
		return err
	}
	return bw.Flush()
}

// pageData is what the template shows.
type pageData struct {
	Title, Name, Kind string
	Complete          bool
	Header            []field
	// Picture is the inline SVG; NoPicture says why there is none.
	Picture   template.HTML
	NoPicture string
	Shown     int // states the picture shows
	// Closure selects the caption: a plain Mealy model has no callins,
	// callbacks or error sink to explain.
	Closure   bool
	BundleMin int // the fewest source states drawn as one arrow
	Stats     []export.Column
	Phases    []phase
	Warnings  []string
	// Excluded are the transitions the purpose's restrictions excluded:
	// by design, so the warnings count them in one line that links to
	// their list, which would otherwise drown what is worth a look.
	Excluded      []string
	ExcludedCount string // "8 transitions"
	// Transitions are made one row at a time as the template writes
	// them: a model's table can run to millions of rows.
	Transitions    iter.Seq[transition]
	NumTransitions int
}

type field struct {
	Name  string
	Value string
	List  []string
}

type phase struct {
	Name                                       string
	Asked, Executed, CacheHits, Excluded, Syms int
	Device                                     string
}

type transition struct {
	From, Input, Output, To string
	ErrKind, ErrDetail      string
	Err                     bool
}

func titleOf(d *model.Document) string {
	t := d.Name
	if t == "" {
		t = "(unnamed model)"
	}
	if d.Purpose != nil && d.Purpose.Class != "" && d.Purpose.Class != d.Name {
		t += " (" + d.Purpose.Class + ")"
	}
	return t
}

// header is the table of what was learned, where, when and by what.
func header(d *model.Document) []field {
	var f []field
	if p := d.Purpose; p != nil {
		if p.Class != "" {
			f = append(f, field{Name: "class", Value: p.Class})
		}
		pur := p.Name
		if p.File != "" {
			pur = strings.TrimSpace(pur + " (" + p.File + ")")
		}
		if pur != "" {
			f = append(f, field{Name: "purpose", Value: pur})
		}
	}
	if be := d.Backend; be != nil {
		kind := be.Kind
		if be.Model != "" {
			kind += " (model " + be.Model + ")"
		}
		f = append(f, field{Name: "backend", Value: kind})
		if len(be.Devices) > 0 {
			devs := make([]string, len(be.Devices))
			for k, dev := range be.Devices {
				devs[k] = device(dev)
			}
			f = append(f, field{Name: "devices", List: devs})
		}
	}
	if d.Bound != nil {
		f = append(f, field{Name: "bound", Value: export.BoundText(d)})
	}
	if d.Conformance != nil {
		f = append(f, field{Name: "conformance", Value: export.ConformanceText(d)})
	}
	if d.Target != nil {
		f = append(f, field{Name: "target", Value: export.TargetText(d.Target)})
	}
	if d.Learned != nil {
		f = append(f, field{Name: "learned at", Value: d.Learned.UTC().Format("2006-01-02 15:04:05 UTC")})
	}
	if t := d.Tool; t != nil {
		f = append(f, field{Name: "tool", Value: strings.TrimSpace(t.Name + " " + t.Version)})
	}
	return f
}

func device(dev model.DeviceInfo) string {
	var about []string
	for _, s := range []string{dev.Platform, dev.Model} {
		if s != "" {
			about = append(about, s)
		}
	}
	if dev.Release != "" {
		if dev.Platform == "jvm" {
			about = append(about, "Java "+dev.Release)
		} else {
			about = append(about, "Android "+dev.Release)
		}
	}
	if dev.SDK > 0 {
		about = append(about, fmt.Sprintf("API %d", dev.SDK))
	}
	if dev.User != nil && *dev.User != 0 {
		// Worth saying only when it is not the phone's owner.
		about = append(about, fmt.Sprintf("user %d", *dev.User))
	}
	if len(about) == 0 {
		return dev.Serial
	}
	return dev.Serial + " (" + strings.Join(about, ", ") + ")"
}

// picture is the typestate as inline SVG, or why there is none.
func picture(d *model.Document, opts Options) (template.HTML, string) {
	if opts.Render == nil {
		return "", "no SVG renderer was given"
	}
	svg, err := export.SVG(d, export.PictureOptions{Render: opts.Render})
	if err != nil {
		return "", err.Error()
	}
	// Inline, the SVG starts at its element: drop the XML declaration,
	// doctype and comments before it.
	k := bytes.Index(svg, []byte("<svg"))
	if k < 0 {
		return "", "the renderer's output has no <svg> element"
	}
	return template.HTML(bytes.TrimSpace(svg[k:])), ""
}

func phases(s *model.Stats) []phase {
	row := func(name string, p model.PhaseStats) phase {
		return phase{Name: name, Asked: p.Asked, Executed: p.Executed, CacheHits: p.CacheHits,
			Excluded: p.Excluded, Syms: p.Symbols, Device: export.Seconds(p.DeviceSecs)}
	}
	out := []phase{row("learning", s.Learning), row("equivalence", s.Equivalence)}
	if s.Conformance.Asked > 0 {
		out = append(out, row("conformance", s.Conformance))
	}
	if s.Verification.Asked > 0 {
		out = append(out, row("final check", s.Verification))
	}
	return append(out, row("total", s.Total()))
}

// warnings are the document's warnings (timing violations,
// non-determinism, a partial model), a bound that was too small, and the
// err transitions that are not what the class does nor what the purpose
// chose: errors of unknown cause, and of a kind this droidstar does not
// know. Queries the purpose's restrictions excluded are not among them
// (see pageData.Excluded).
func warnings(d *model.Document, names map[string]string) []string {
	w := append([]string(nil), d.Warnings...)
	if b := d.Bound; b != nil && b.LearnedNeeds > b.Used && d.Conformance != nil {
		w = append(w, fmt.Sprintf("the learned model needs a distinguisher bound of %d, more than the %d the run assumed: the target needs more than %d too, so only the conformance test (%s) speaks for the model", b.LearnedNeeds, b.Used, b.Used, d.Conformance))
	} else if b != nil && b.LearnedNeeds > b.Used {
		w = append(w, fmt.Sprintf("the learned model needs a distinguisher bound of %d, more than the %d the run assumed: the target needs more than %d too, so the model may be wrong", b.LearnedNeeds, b.Used, b.Used))
	}
	for _, what := range errsOf(d, names, model.ErrUnknown) {
		w = append(w, "err of unknown cause: "+what)
	}
	counts := map[model.ErrKind]int{}
	for _, t := range d.Transitions {
		if t.Err != nil {
			counts[t.Err.Kind]++
		}
	}
	var other []string
	for k, n := range counts {
		switch k {
		case model.ErrExcluded, model.ErrUnknown, model.ErrThrown, model.ErrErrorCallback, model.ErrReturned, model.ErrNoCallback, model.ErrCrash:
		default:
			other = append(other, fmt.Sprintf("%d err transitions of unrecognised kind %q", n, k))
		}
	}
	sort.Strings(other)
	return append(w, other...)
}

// errsOf lists the err transitions of kind k, in the document's order,
// as "state · input: detail".
func errsOf(d *model.Document, names map[string]string, k model.ErrKind) []string {
	var out []string
	for _, t := range d.Transitions {
		if t.Err == nil || t.Err.Kind != k {
			continue
		}
		what := stateName(names, t.From) + " · " + t.Input
		if t.Err.Detail != "" {
			what += ": " + t.Err.Detail
		}
		out = append(out, what)
	}
	return out
}

func transitions(d *model.Document, names map[string]string) iter.Seq[transition] {
	return func(yield func(transition) bool) {
		for _, t := range d.Transitions {
			row := transition{From: stateName(names, t.From), Input: t.Input, Output: t.Output, To: stateName(names, t.To),
				Err: t.Output == mealy.Err}
			if t.Err != nil {
				row.ErrKind, row.ErrDetail = string(t.Err.Kind), t.Err.Detail
			}
			if !yield(row) {
				return
			}
		}
	}
}

// stateNames maps the ID of each state that has a name of its own to how
// the tables show it, the name with the ID. Looking each state up in the
// document's list instead made the report quadratic in the states.
func stateNames(d *model.Document) map[string]string {
	names := map[string]string{}
	for _, s := range d.States {
		if _, dup := names[s.ID]; dup || s.Name == "" || s.Name == s.ID {
			continue
		}
		names[s.ID] = s.Name + " (" + s.ID + ")"
	}
	return names
}

// stateName is a state's name, with its ID when they differ.
func stateName(names map[string]string, id string) string {
	if n, ok := names[id]; ok {
		return n
	}
	return id
}
