package bench

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/droidstar/droidstar/internal/golden"
	"github.com/droidstar/droidstar/internal/learn"
	"github.com/droidstar/droidstar/internal/refdata"
	"github.com/droidstar/droidstar/internal/run"
)

// The benchmark document (README.md here) shows each suite's output as
// `droidstar bench --only SUITE` prints it, in a code block whose first
// line is that command. TestDocument runs every suite and compares; with
// -update it rewrites the blocks and the headline from what the suites
// print.

var slow = flag.Bool("slow", false, "also learn the checks suite's --bound auto cells of the Mealy models, and random machines of 1,000 and 2,000 states with no counting diagnosis (minutes)")

const (
	docFile    = "README.md"
	docCommand = "$ droidstar bench --only "
	// varies stands in the document for the figures that are not on the
	// simulated device's virtual clock: the mealy suite's CPU seconds.
	varies = "varies"
)

// docBlock is where a suite's output sits in the document: lines
// [start, end), after the command line and before the closing fence.
type docBlock struct{ start, end int }

// docBlocks finds each suite's block in the document's lines.
func docBlocks(lines []string) (map[string]docBlock, error) {
	blocks := map[string]docBlock{}
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "```") {
			continue
		}
		end := slices.IndexFunc(lines[i+1:], func(l string) bool { return strings.HasPrefix(l, "```") })
		if end < 0 {
			return nil, fmt.Errorf("%s:%d: a code block that never ends", docFile, i+1)
		}
		end += i + 1
		if i+1 < end && strings.HasPrefix(lines[i+1], docCommand) {
			suite := strings.TrimPrefix(lines[i+1], docCommand)
			if !slices.Contains(Suites(), suite) {
				return nil, fmt.Errorf("%s:%d: %q is no suite (suites: %v)", docFile, i+2, suite, Suites())
			}
			if _, dup := blocks[suite]; dup {
				return nil, fmt.Errorf("%s:%d: a second block for the %s suite", docFile, i+2, suite)
			}
			blocks[suite] = docBlock{start: i + 2, end: end}
		}
		i = end
	}
	for _, s := range Suites() {
		if _, ok := blocks[s]; !ok {
			return nil, fmt.Errorf("%s has no block starting %q", docFile, docCommand+s)
		}
	}
	return blocks, nil
}

// tidy is output as the document holds it: tabwriter's trailing spaces
// (right-aligned empty cells) cut, and no blank lines at the end.
func tidy(out string) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	for k, l := range lines {
		lines[k] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// maskSeconds puts varies in place of the mealy suite's CPU seconds, which
// change from run to run, right-aligned where the figures were.
func maskSeconds(out string) string {
	lines := strings.Split(out, "\n")
	in := false
	for k, l := range lines {
		f := strings.Fields(l)
		switch {
		case len(f) > 0 && f[0] == "learner" && strings.HasSuffix(l, "seconds for all models"):
			in = true
		case in && len(f) == 0:
			in = false
		case in:
			head := strings.TrimRight(strings.TrimSuffix(l, f[len(f)-1]), " ")
			lines[k] = head + strings.Repeat(" ", max(len(l)-len(head)-len(varies), 2)) + varies
		}
	}
	return strings.Join(lines, "\n")
}

// docCell is one cell of the checks suite's first table as the document
// shows it: "546 [3] x" is 546 executed, bound 3, the model differs.
type docCell struct {
	executed, bound int
	equal           bool
}

// docChecks reads the checks suite's first table from its block: the
// cells of each target by check name.
func docChecks(block []string) (map[string]map[string]docCell, error) {
	configs := checksConfigs()
	out := map[string]map[string]docCell{}
	in := false
	for _, l := range block {
		f := strings.Fields(l)
		switch {
		case len(f) > 0 && f[0] == "target":
			in = true
			continue
		case !in:
			continue
		case len(f) == 0:
			return out, nil
		}
		name, rest := f[0], f[2:]
		cells := map[string]docCell{}
		for _, cf := range configs {
			if len(rest) == 0 {
				return nil, fmt.Errorf("%s: no cell for %s in %q", name, cf.Name, l)
			}
			n, err := strconv.Atoi(rest[0])
			if err != nil {
				return nil, fmt.Errorf("%s, %s: %w", name, cf.Name, err)
			}
			c := docCell{executed: n, equal: true}
			rest = rest[1:]
			if cf.Bound == run.BoundAuto {
				if len(rest) == 0 {
					return nil, fmt.Errorf("%s, %s: no [bound] in %q", name, cf.Name, l)
				}
				if c.bound, err = strconv.Atoi(strings.Trim(rest[0], "[]")); err != nil {
					return nil, fmt.Errorf("%s, %s: %w", name, cf.Name, err)
				}
				rest = rest[1:]
			}
			if len(rest) > 0 && rest[0] == "x" {
				c.equal, rest = false, rest[1:]
			}
			cells[cf.Name] = c
		}
		out[name] = cells
	}
	return out, nil
}

// fromDocument reports whether the checks suite takes a cell from the
// document instead of learning it: --bound auto on the Mealy models runs
// up to tens of millions of queries a cell, minutes in all, which only
// -slow spends.
func fromDocument(t CheckTarget, cf Checks) bool {
	return !*slow && t.Suite == "mealy" && cf.Bound == run.BoundAuto
}

// checksOutput is what `droidstar bench --only checks` prints, its cells
// learned on every CPU at once, but those fromDocument names read from the
// document's block.
func checksOutput(t *testing.T, shared string, block []string) string {
	targets, err := CheckTargets(shared)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := docChecks(block)
	if err != nil {
		t.Fatalf("%s, the checks block: %v", docFile, err)
	}
	taken := 0
	cell := func(ctx context.Context, tg CheckTarget, cf Checks) (*ChecksRow, error) {
		if !fromDocument(tg, cf) {
			return RunChecks(ctx, tg, cf)
		}
		c, ok := doc[tg.Name][cf.Name]
		if !ok {
			return nil, fmt.Errorf("%s under %s: not in %s, and only -slow learns it", tg.Name, cf.Name, docFile)
		}
		return &ChecksRow{Target: tg, Executed: c.executed, BoundUsed: c.bound, Equal: c.equal}, nil
	}
	configs := checksConfigs()
	for _, tg := range targets {
		for _, cf := range configs {
			if fromDocument(tg, cf) {
				taken++
			}
		}
	}
	if taken > 0 {
		t.Logf("%d cells (--bound auto on the Mealy models) are the document's; -slow learns them", taken)
	}
	grid, err := checksGrid(context.Background(), targets, configs, cell, runtime.GOMAXPROCS(0))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := writeChecks(&b, targets, configs, grid); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// suiteOutput is what `droidstar bench --only suite` prints, as the
// document holds it.
func suiteOutput(t *testing.T, suite string, block []string) string {
	shared := ""
	// The examples suite alone needs no reference data.
	if suite != "examples" {
		shared = refdata.Require(t)
	}
	if suite == "checks" {
		return tidy(checksOutput(t, shared, block))
	}
	var b bytes.Buffer
	bad, err := Run(context.Background(), &b, Options{Only: []string{suite}, Shared: shared, Lanes: DefaultLanes})
	if err != nil {
		t.Fatal(err)
	}
	if bad > 0 {
		t.Errorf("%d learned models differ from their targets", bad)
	}
	return tidy(maskSeconds(b.String()))
}

// firstDifference says where got and want part: the line of the document
// and both versions of it.
func firstDifference(got, want string, line int) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for k := range max(len(g), len(w)) {
		var gl, wl string
		if k < len(g) {
			gl = g[k]
		}
		if k < len(w) {
			wl = w[k]
		}
		if gl != wl || k >= len(g) || k >= len(w) {
			return fmt.Sprintf("%s:%d\n--- the bench prints ---\n%s\n--- the document says ---\n%s", docFile, line+k+1, gl, wl)
		}
	}
	return ""
}

// Every table of the benchmark document is what the bench prints now,
// and its headline quotes those tables' figures. The suites run at once;
// the checks suite takes its slowest cells from the document unless
// -slow. Without the shared reference data only the examples suite runs.
func TestDocument(t *testing.T) {
	raw, err := os.ReadFile(docFile)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(raw), "\n")
	blocks, err := docBlocks(lines)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	got := map[string]string{}
	t.Run("suite", func(t *testing.T) {
		for _, suite := range Suites() {
			t.Run(suite, func(t *testing.T) {
				t.Parallel()
				b := blocks[suite]
				out := suiteOutput(t, suite, lines[b.start:b.end])
				mu.Lock()
				got[suite] = out
				mu.Unlock()
				if want := strings.Join(lines[b.start:b.end], "\n"); !golden.Updating() && out != want {
					t.Errorf("the %s block differs from `droidstar bench --only %s` (go test ./internal/bench -run TestDocument -update rewrites it): %s",
						suite, suite, firstDifference(out, want, b.start))
				}
			})
		}
	})
	doc := string(raw)
	if golden.Updating() {
		if t.Failed() {
			t.Fatalf("%s left as it was: a suite failed", docFile)
		}
		doc = rewriteBlocks(lines, blocks, got)
	}
	if got["droidstar"] == "" || got["mealy"] == "" {
		t.Skip("the headline quotes the droidstar and mealy suites, which did not run")
	}
	want, err := headlineOf(got["droidstar"], got["mealy"])
	if err != nil {
		t.Fatal(err)
	}
	if golden.Updating() {
		if doc, err = setHeadline(doc, want); err != nil {
			t.Fatal(err)
		}
	} else if have, err := Headline(doc); err != nil {
		t.Fatalf("%s: %v", docFile, err)
	} else if have != want {
		t.Errorf("the headline of %s differs from the bench's figures (-update rewrites it)\n--- the bench's ---\n%s\n--- the document's ---\n%s", docFile, want, have)
	}
	if golden.Updating() {
		if err := os.WriteFile(docFile, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// rewriteBlocks puts each suite's output in its block, the suites that
// did not run left as they were.
func rewriteBlocks(lines []string, blocks map[string]docBlock, got map[string]string) string {
	suites := Suites()
	// From the last block up, so that the earlier blocks' lines stay put.
	slices.SortFunc(suites, func(a, b string) int { return blocks[b].start - blocks[a].start })
	out := slices.Clone(lines)
	for _, s := range suites {
		if g, ok := got[s]; ok {
			b := blocks[s]
			out = slices.Replace(out, b.start, b.end, strings.Split(g, "\n")...)
		}
	}
	return strings.Join(out, "\n")
}

// setHeadline puts block between doc's headline markers.
func setHeadline(doc, block string) (string, error) {
	if _, err := Headline(doc); err != nil {
		return "", err
	}
	before, rest, _ := strings.Cut(doc, HeadlineStart)
	_, after, _ := strings.Cut(rest, HeadlineEnd)
	return before + HeadlineStart + "\n" + block + "\n" + HeadlineEnd + after, nil
}

// tableAfter returns the lines of out's table whose title line is title:
// from its header to the blank line after it.
func tableAfter(out, title string) ([][]string, error) {
	_, rest, ok := strings.Cut("\n"+out, "\n"+title)
	if !ok {
		return nil, fmt.Errorf("no %q in the output", title)
	}
	var rows [][]string
	for _, l := range strings.Split(rest, "\n")[1:] {
		f := strings.Fields(l)
		if len(f) == 0 {
			break
		}
		rows = append(rows, f)
	}
	return rows, nil
}

// rowStarting is the first row whose first fields are words.
func rowStarting(rows [][]string, words ...string) ([]string, error) {
	for _, r := range rows {
		if len(r) >= len(words) && slices.Equal(r[:len(words)], words) {
			return r, nil
		}
	}
	return nil, fmt.Errorf("no row %q", strings.Join(words, " "))
}

var atOrBelow = regexp.MustCompile(`is at or below AALpy's L# on (\d+) of (\d+) models`)

// headlineOf writes the headline from the droidstar and mealy suites'
// outputs: the figures are those the tables print, as they print them.
func headlineOf(droidstar, mealy string) (string, error) {
	// The first table: DroidStar's counting of the bound, as DroidStar ran.
	ds, err := tableAfter(droidstar, "floor: ")
	if err != nil {
		return "", err
	}
	total, err := rowStarting(ds, "total")
	if err != nil {
		return "", err
	}
	geo, err := rowStarting(ds, "geo", "mean")
	if err != nil {
		return "", err
	}
	if len(total) < 6 || len(geo) < 5 {
		return "", fmt.Errorf("the DroidStar table's total %q or geo mean %q is short", total, geo)
	}
	exact := 0
	for _, c := range DroidStarCases {
		if r, err := rowStarting(ds, c.Class); err == nil && len(r) > 2 && r[2] == "yes" {
			exact++
		}
	}
	// total: floor, executed, /floor, DroidStar, ratio; geo mean: ratio,
	// device-s /DS, wall /DS.
	executed, theirs, ratio := total[2], total[4], total[5]
	gQueries, gDevice, gWall := geo[2], geo[3], geo[4]

	mq, err := tableAfter(mealy, "executed queries")
	if err != nil {
		return "", err
	}
	k := slices.Index(run.Learners(), learn.NameLSharp)
	mTotal, err := rowStarting(mq, "total")
	if err != nil {
		return "", err
	}
	vs, err := rowStarting(mq, "vs", "AALpy", "L#")
	if err != nil {
		return "", err
	}
	if k < 0 || len(mTotal) < 3 || len(vs) < 4+k {
		return "", fmt.Errorf("the Mealy table's total %q or vs AALpy L# %q is short (L# is learner %d)", mTotal, vs, k)
	}
	ours, aalpy, mRatio := mTotal[1+k], mTotal[len(mTotal)-2], vs[3+k]
	m := atOrBelow.FindStringSubmatch(mealy)
	if m == nil {
		return "", fmt.Errorf("no %q line in the mealy suite's output", atOrBelow)
	}
	learned := fmt.Sprintf("all %d learned exactly", exact)
	if exact != len(DroidStarCases) {
		learned = fmt.Sprintf("%d of %d learned exactly", exact, len(DroidStarCases))
	}
	return fmt.Sprintf(`- **DroidStar's six typestates** (ICSE 2018), on the simulated device with DroidStar's alphabets,
  timeouts, restrictions and bound: %s, with %s executed queries against the
  %s DroidStar ran on a real phone (%s; geo mean %s); device time %s of DroidStar's wall
  time, and %s estimated on %d devices (geo means): `+"`droidstar bench --only droidstar`"+`.
- **The %s public Mealy benchmarks** with a perfect teacher: droidstar's L# executes %s queries
  against AALpy 1.6.1's L#'s %s (%s), and its best learner is at or below AALpy's L# on %s of
  %s models: `+"`droidstar bench --only mealy`"+`.`,
		learned, executed, theirs, ratio, gQueries, gDevice, gWall, DefaultLanes,
		m[2], ours, aalpy, mRatio, m[1], m[2]), nil
}

// Headline returns the block between the markers, without the newlines
// beside them, and refuses a document with none, an unclosed one or two.
func TestHeadline(t *testing.T) {
	for _, c := range []struct{ doc, want, err string }{
		{"# x\n\n<!-- headline -->\n- one\n- two\n<!-- /headline -->\n\nmore\n", "- one\n- two", ""},
		{"<!-- headline --><!-- /headline -->", "", ""},
		{"# x\n", "", "no <!-- headline --> marker"},
		{"<!-- headline -->\n- one\n", "", "<!-- headline --> has no <!-- /headline --> after it"},
		{"<!-- headline -->a<!-- /headline --><!-- headline -->b<!-- /headline -->", "", "more than one <!-- headline --> marker"},
		{"<!-- headline -->a<!-- headline -->b<!-- /headline -->", "", "more than one <!-- headline --> marker"},
	} {
		got, err := Headline(c.doc)
		if msg := fmt.Sprint(err); (c.err == "" && err != nil) || (c.err != "" && msg != c.err) || got != c.want {
			t.Errorf("Headline(%q) = %q, %v; want %q, %q", c.doc, got, err, c.want, c.err)
		}
	}
}

// maskSeconds puts varies in place of the seconds alone, right-aligned
// as the figures were, and leaves every other table as it was.
func TestMaskSeconds(t *testing.T) {
	in := "  learner  seconds for all models\n    lstar                    0.21\n   lsharp                   12.19\n\n    lstar                    0.21\n"
	want := "  learner  seconds for all models\n    lstar                  varies\n   lsharp                  varies\n\n    lstar                    0.21\n"
	if got := maskSeconds(in); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
