package export

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
)

// maxListed caps the transitions Summary lists, to keep it on one screen.
const maxListed = 40

// Summary is a one-screen text summary of a model: what was learned and
// where, the typestate as a list of transitions (--> callin, ==> callback,
// ..> a wait that timed out and changed state; err transitions are only
// counted), the statistics in the columns of the DroidStar paper's Table 1
// (MQ per EQ is rounded up, as the paper does), device time and query
// counts, the distinguisher bound and any warnings. It never fails: a
// model that cannot be read is summarised with the reason.
func Summary(d *model.Document) string {
	var b strings.Builder
	if d == nil {
		return "no model\n"
	}
	name := d.Name
	if name == "" {
		name = "(unnamed model)"
	}
	kind := "plain Mealy model"
	if d.Semantics == model.SemanticsClosure {
		kind = "callback typestate (synchronous closure)"
	}
	fmt.Fprintf(&b, "%s: %s\n", name, kind)
	if p := d.Purpose; p != nil {
		line := ""
		if p.Class != "" {
			line = "class " + p.Class
		}
		if p.Name != "" || p.File != "" {
			pur := p.Name
			if p.File != "" {
				pur = strings.TrimSpace(pur + " (" + p.File + ")")
			}
			line = joinNonEmpty(", ", line, "purpose "+pur)
		}
		if line != "" {
			fmt.Fprintf(&b, "  %s\n", line)
		}
	}
	if be := d.Backend; be != nil {
		fmt.Fprintf(&b, "  backend %s\n", backendLine(be))
	}
	if d.Learned != nil || d.Tool != nil {
		line := "learned"
		if d.Learned != nil {
			line += " " + d.Learned.UTC().Format("2006-01-02 15:04 UTC")
		}
		if d.Tool != nil {
			line += strings.TrimRight(" by "+d.Tool.Name+" "+d.Tool.Version, " ")
		}
		fmt.Fprintf(&b, "  %s\n", line)
	}

	v, err := newView(d)
	if err != nil {
		fmt.Fprintf(&b, "  invalid model: %v\n", err)
	} else if v.closure() {
		if err := v.typestateSummary(&b); err != nil {
			fmt.Fprintf(&b, "  invalid model: %v\n", err)
		}
	} else {
		v.mealySummary(&b)
	}

	if s := d.Stats; s != nil {
		statsSummary(&b, s, d.Bound)
	}
	if d.Bound != nil {
		fmt.Fprintf(&b, "bound: %s\n", BoundText(d))
	}
	if d.Conformance != nil {
		fmt.Fprintf(&b, "conformance: %s\n", ConformanceText(d))
	}
	if tc := d.Target; tc != nil {
		fmt.Fprintf(&b, "target: %s\n", TargetText(tc))
	}
	if len(d.Warnings) > 0 {
		b.WriteString("warnings:\n")
		for _, w := range d.Warnings {
			fmt.Fprintf(&b, "  - %s\n", w)
		}
	}
	return b.String()
}

func (v *view) typestateSummary(b *strings.Builder) error {
	ts, err := v.m.Typestate()
	if err != nil {
		return err
	}
	sinkNote := ""
	if ts.Sink >= 0 {
		sinkNote = " (+ error sink)"
	}
	fmt.Fprintf(b, "  %s%s, %s\n", plural(len(ts.States), "state"), sinkNote, plural(len(ts.Edges), "transition"))

	// err transitions, counted by kind.
	errOut, _ := v.m.Outputs.Index(mealy.Err)
	kinds := map[string]int{}
	total := 0
	for _, q := range ts.States {
		for i := 0; i < v.m.Inputs.Size(); i++ {
			if v.m.Out[q][i] == errOut {
				total++
				k := string(v.errKind(q, i))
				if k == "" {
					k = string(model.ErrUnknown)
				}
				kinds[k]++
			}
		}
	}
	if total > 0 {
		names := make([]string, 0, len(kinds))
		for k := range kinds {
			names = append(names, k)
		}
		sort.Strings(names)
		parts := make([]string, len(names))
		for k, n := range names {
			parts[k] = fmt.Sprintf("%s %d", n, kinds[n])
		}
		fmt.Fprintf(b, "  %s left out: %s\n", plural(total, "err transition"), strings.Join(parts, ", "))
		// A crash is the class killing its process: the most telling err
		// there is, so each is listed with its last words.
		for _, q := range ts.States {
			for i := 0; i < v.m.Inputs.Size(); i++ {
				if e := v.errs[[2]int{q, i}]; v.m.Out[q][i] == errOut && e != nil && e.Kind == model.ErrCrash {
					fmt.Fprintf(b, "  crash: %s · %s: %s\n", v.names[q], v.m.Inputs.Name(i), e.Detail)
				}
			}
		}
	}

	fmt.Fprintf(b, "typestate from %s (--> callin, ==> callback, ..> quiet timeout):\n", v.names[ts.Initial])
	rows := make([][3]string, len(ts.Edges))
	for k, e := range ts.Edges {
		arrow := "--" + e.Label + "-->"
		switch e.Kind {
		case mealy.Callback:
			arrow = "==" + e.Label + "==>"
		case mealy.Timeout:
			arrow = "..quiet..>"
		}
		rows[k] = [3]string{v.names[e.From], arrow, v.names[e.To]}
	}
	writeRows(b, rows)
	return nil
}

func (v *view) mealySummary(b *strings.Builder) {
	states, raw := v.mealyEdges()
	fmt.Fprintf(b, "  %s, %s\n", plural(len(states), "state"), plural(len(raw), "transition"))
	fmt.Fprintf(b, "machine from %s:\n", v.names[v.m.Initial])
	rows := make([][3]string, len(raw))
	for k, e := range raw {
		rows[k] = [3]string{v.names[e.from], "--" + e.label + "-->", v.names[e.to]}
	}
	writeRows(b, rows)
}

// writeRows prints "from arrow to" lines in aligned columns, at most
// maxListed of them.
func writeRows(b *strings.Builder, rows [][3]string) {
	shown := rows
	if len(rows) > maxListed {
		shown = rows[:maxListed-1]
	}
	w0, w1 := 0, 0
	for _, r := range shown {
		w0 = max(w0, len([]rune(r[0])))
		w1 = max(w1, len([]rune(r[1])))
	}
	for _, r := range shown {
		fmt.Fprintf(b, "  %s %s %s\n", pad(r[0], w0), pad(r[1], w1), r[2])
	}
	if len(shown) < len(rows) {
		fmt.Fprintf(b, "  ... %d more (see the JSON or DOT output)\n", len(rows)-len(shown))
	}
}

func statsSummary(b *strings.Builder, s *model.Stats, bound *model.Bound) {
	tot := s.Total()
	cols := StatsColumns(s, bound)[:table1Columns]
	header, values := make([]string, len(cols)), make([]string, len(cols))
	for k, c := range cols {
		header[k], values[k] = c.Name, c.Value
	}
	b.WriteString("statistics (columns of DroidStar's Table 1):\n")
	hs, vs := make([]string, len(header)), make([]string, len(header))
	for k := range header {
		w := max(len([]rune(header[k])), len([]rune(values[k])))
		hs[k] = padLeft(header[k], w)
		vs[k] = padLeft(values[k], w)
	}
	fmt.Fprintf(b, "  %s\n  %s\n", strings.Join(hs, " | "), strings.Join(vs, " | "))
	clock := ""
	if s.VirtualClock {
		clock = "virtual "
	}
	wall := ""
	if s.EstimatedWallSecs > 0 {
		// Device time sums the lanes; this is the run on them in real time.
		wall = fmt.Sprintf(" (estimated wall time %s)", longSeconds(s.EstimatedWallSecs))
	}
	fmt.Fprintf(b, "  %sdevice time %s%s, %s executed, %s excluded, %s\n",
		clock, longSeconds(s.DeviceSecs), wall, plural(tot.Symbols, "symbol"), plural(tot.Excluded, "query"), plural(tot.CacheHits, "cache hit"))
	if tot.Stored > 0 {
		// A resumed run: say how much an earlier run had already executed.
		fmt.Fprintf(b, "  %s answered from the query store (executed by an earlier run)\n", plural(tot.Stored, "query"))
	}
	fmt.Fprintf(b, "  learning: %d asked, %d executed; equivalence: %d asked, %d executed\n",
		s.Learning.Asked, s.Learning.Executed, s.Equivalence.Asked, s.Equivalence.Executed)
	if v := s.Verification; v.Asked > 0 {
		fmt.Fprintf(b, "  final check: %d asked again, %d executed, device time %s\n", v.Asked, v.Executed, longSeconds(v.DeviceSecs))
	}
	if t := s.Timeout; t != nil {
		fmt.Fprintf(b, "  timeout: %s\n", TimeoutText(t))
	}
	if d := s.Determinism; d != nil {
		fmt.Fprintf(b, "  determinism: %d of %s agreed (repeat %d, verify %g, seed %d)\n",
			d.Agreements, plural(d.Reruns, "re-run"), d.Repeat, d.Verify, d.Seed)
		for _, v := range d.Votes {
			tallies := make([]string, len(v.Answers))
			for k, a := range v.Answers {
				tallies[k] = fmt.Sprintf("%s ×%d", strings.Join(a.Outputs, " "), a.Votes)
			}
			fmt.Fprintf(b, "  voted %s: %s\n", strings.Join(v.Query, " "), strings.Join(tallies, ", "))
		}
	}
}

// BoundText is what the summary says of the distinguisher bound after
// "bound: ": the bound used (and how --bound auto chose it), the one the
// learned model needs and what the bound check guarantees; "" when d
// records no bound.
func BoundText(d *model.Document) string {
	bd := d.Bound
	if bd == nil {
		return ""
	}
	used := fmt.Sprintf("%d used", bd.Used)
	if a := bd.Auto; a != nil {
		used = autoText(bd.Used, a)
	}
	if bd.CountsEvery {
		used += " (counting every symbol)"
	}
	return fmt.Sprintf("%s, the learned model needs %d%s", used, bd.LearnedNeeds, boundNote(bd, d.Target, d.Conformance != nil))
}

// autoText says how --bound auto settled on used.
func autoText(used int, a *model.AutoBound) string {
	var found []string
	for k, n := range a.Found {
		at := a.Start + k
		if at == used {
			break
		}
		found = append(found, fmt.Sprintf("at %d: %s", at, countOrNone(n)))
	}
	last := 0
	if k := used - a.Start; k >= 0 && k < len(a.Found) {
		last = a.Found[k]
	}
	before := ""
	if len(found) > 0 {
		before = "counterexamples found by rounds " + strings.Join(found, ", ") + "; "
	}
	if a.Capped {
		return fmt.Sprintf("auto stopped at its ceiling %d (%srounds at %d found %s)", used, before, used, countOrNone(last))
	}
	return fmt.Sprintf("auto settled on %d (%sthe first round at %d found none)", used, before, used)
}

func countOrNone(n int) string {
	if n == 0 {
		return "none"
	}
	return fmt.Sprint(n)
}

// boundNote says what the bound check guarantees. The bound the learned
// model needs says nothing about the target's when it is at most the bound
// used (a bound too small for the target yields a smaller, wrong model
// that needs no more), so only the check's own guarantee is stated; a
// checked target (tc) replaces it.
func boundNote(bd *model.Bound, tc *model.TargetCheck, conformance bool) string {
	switch {
	case bd.LearnedNeeds > bd.Used && conformance:
		// A counterexample from the conformance test made states the
		// bound cannot tell apart: the bound vouches for nothing.
		return fmt.Sprintf(", more than the bound: the target needs more than %d too, so only the conformance test speaks for the model (try --bound %d)", bd.Used, bd.LearnedNeeds)
	case bd.LearnedNeeds > bd.Used:
		// Had the target needed at most bd.Used, the model would be the
		// target and need no more.
		return fmt.Sprintf(", more than the bound: the target needs more than %d too, so the model may be wrong (try --bound %d)", bd.Used, bd.LearnedNeeds)
	case tc != nil:
		return ""
	case bd.Auto != nil && bd.Auto.Capped:
		return fmt.Sprintf("; exact if the target needs bound <= %d (raise the ceiling with --bound auto:%d)", bd.Used, bd.Used+1)
	}
	return fmt.Sprintf("; exact if the target needs bound <= %d", bd.Used)
}

// ConformanceText is what the summary says after "conformance: ": the
// test that ran after the bound check, what it found and cost. Passing it
// is evidence, not a guarantee: it tried some words beyond the bound.
func ConformanceText(d *model.Document) string {
	c := d.Conformance
	name := c.String()
	if c.Method == "random" {
		name = fmt.Sprintf("random:%d (seed %d)", c.Walks, c.Seed)
	}
	var rounds []string
	if d.Stats != nil {
		for _, f := range d.Stats.Counterexamples {
			if f.Check == model.CheckConformance {
				rounds = append(rounds, fmt.Sprint(f.Round))
			}
		}
	}
	text := name + " found no difference from the final model"
	if c.Method == "wp" {
		// The Wp-method's suite of depth K is complete for targets of at
		// most K states more (Fujiwara et al. 1991).
		text += fmt.Sprintf(", so it is exact also if the target, as the purpose sees it, has at most %s more than the model", plural(c.Depth, "state"))
	}
	if len(rounds) > 0 {
		in := "round"
		if len(rounds) > 1 {
			in = "rounds"
		}
		text += fmt.Sprintf(" (earlier, %s in %s %s)", plural(len(rounds), "counterexample"), in, strings.Join(rounds, ", "))
	}
	if s := d.Stats; s != nil {
		text += fmt.Sprintf("; %d asked, %d executed", s.Conformance.Asked, s.Conformance.Executed)
	}
	return text
}

// TargetText is what the summary says after "target: ": how the learned
// model compares with a target known in full; the details of a difference
// are in the document's warnings.
func TargetText(tc *model.TargetCheck) string {
	how := ""
	if tc.Perfect {
		how = " (perfect oracle)"
	}
	if tc.Equal {
		return fmt.Sprintf("the learned model equals the target%s, which needs bound %d", how, tc.NeededBound)
	}
	return fmt.Sprintf("the learned model differs from the target%s, which needs bound %d (see the warnings)", how, tc.NeededBound)
}

func backendLine(be *model.BackendInfo) string {
	line := be.Kind
	if line == "" {
		line = "?"
	}
	if be.Model != "" {
		line += " (model " + be.Model + ")"
	}
	if n := len(be.Devices); n > 0 {
		const listed = 3
		descs := make([]string, 0, listed+1)
		for k, dev := range be.Devices {
			if k == listed {
				descs = append(descs, fmt.Sprintf("+%d more", n-listed))
				break
			}
			desc := deviceDesc(dev)
			if n > 1 && dev.Queries > 0 {
				// Several devices shared the run: show how it was shared.
				desc += " " + plural(dev.Queries, "query")
			}
			descs = append(descs, desc)
		}
		line += fmt.Sprintf(", %s: %s", plural(n, "device"), strings.Join(descs, ", "))
	}
	return line
}

func deviceDesc(dev model.DeviceInfo) string {
	var about []string
	if dev.Model != "" {
		about = append(about, dev.Model)
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

// seconds rounds a duration in seconds to what matters at its size.
func seconds(s float64) string {
	switch a := math.Abs(s); {
	case a == 0:
		return "0"
	case a < 0.001:
		return "<0.001"
	case a < 1:
		return strconv.FormatFloat(s, 'g', 2, 64)
	case a < 10:
		return fmt.Sprintf("%.1f", s)
	}
	return fmt.Sprintf("%.0f", s)
}

// longSeconds is seconds with hours and minutes past two minutes.
func longSeconds(s float64) string {
	if s >= 120 {
		return time.Duration(math.Round(s) * float64(time.Second)).String()
	}
	return seconds(s) + " s"
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "y") {
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(noun, "y"))
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func pad(s string, w int) string {
	return s + strings.Repeat(" ", max(0, w-len([]rune(s))))
}

func padLeft(s string, w int) string {
	return strings.Repeat(" ", max(0, w-len([]rune(s)))) + s
}

func joinNonEmpty(sep string, parts ...string) string {
	var keep []string
	for _, p := range parts {
		if p != "" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, sep)
}
