package report

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/droidstar/droidstar/internal/compose/composetest"
	goldenfile "github.com/droidstar/droidstar/internal/golden"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/render/gvwasm"
)

// renderSVG renders in-process, as the helper does.
func renderSVG(dot []byte) ([]byte, error) { return gvwasm.SVG(context.Background(), dot) }

// learned learns a bundled example on the simulated device, as 'droidstar
// learn --example' does, and pins what varies from run to run (wall time,
// the purpose's fingerprint).
var learned = sync.OnceValues(func() (map[string]*model.Document, error) {
	docs := map[string]*model.Document{}
	for _, name := range []string{"asynctask", "mediaplayer"} {
		d, err := composetest.LearnExample(name)
		if err != nil {
			return nil, err
		}
		d.Stats.WallSecs = 1.25
		docs[name] = d
	}
	return docs, nil
})

func example(t *testing.T, name string) *model.Document {
	t.Helper()
	docs, err := learned()
	if err != nil {
		t.Fatal(err)
	}
	return docs[name]
}

// golden compares got with testdata/report/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, "report", name, got, "./internal/report")
}

func TestGolden(t *testing.T) {
	for _, name := range []string{"asynctask", "mediaplayer"} {
		t.Run(name, func(t *testing.T) {
			d := example(t, name)
			got, err := HTML(d, Options{Render: renderSVG})
			if err != nil {
				t.Fatal(err)
			}
			again, _ := HTML(d, Options{Render: renderSVG})
			if !bytes.Equal(got, again) {
				t.Fatal("two reports of one model differ")
			}
			golden(t, name+".html", got)
		})
	}
}

// The page is self-contained and holds every section.
func TestContent(t *testing.T) {
	d := example(t, "asynctask")
	page, err := HTML(d, Options{Render: renderSVG})
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	for _, want := range []string{
		"<svg", `id="stats"`, "MQ asked (executed)", "bound used (learned needs)", "cache hits", "excluded",
		"android.os.AsyncTask", "learned at", "2024-05-01 12:00:00 UTC", "droidstar test",
		`id="transitions"`, "Per-query logs are not recorded yet", `id="phases"`, "equivalence",
		"document.body.dataset.rendered",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(s, "<?xml") || strings.Contains(s, "<!DOCTYPE svg") {
		t.Error("the inline SVG keeps its XML prologue")
	}
	// A known target's comparison replaces the bound's guarantee.
	d.Target = &model.TargetCheck{NeededBound: 3, Counterexample: &model.TargetCounterexample{Input: []string{"exec"}}}
	page, err = HTML(d, Options{Render: renderSVG})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"<tr><th>bound</th><td>2 used, the learned model needs 1</td></tr>",
		"<tr><th>target</th><td>the learned model differs from the target, which needs bound 3 (see the warnings)</td></tr>",
	} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// Nothing is loaded from elsewhere.
	if m := regexp.MustCompile(`(?i)(src|href)\s*=\s*"`).FindString(s); m != "" {
		t.Errorf("report refers to an external resource: %s", m)
	}
}

// Names and details are escaped, warnings are listed, and "no warnings" is
// said when there are none.
func TestEscapingAndWarnings(t *testing.T) {
	d := *example(t, "asynctask")
	d.Name = `<script>alert("x")</script>`
	d.Warnings = []string{`lane 1: <b>non-deterministic</b> answer`}
	d.Transitions = append([]model.Transition(nil), d.Transitions...)
	for k := range d.Transitions {
		if d.Transitions[k].Output == "err" && d.Transitions[k].From != d.Transitions[len(d.Transitions)-1].From {
			d.Transitions[k].Err = &model.ErrInfo{Kind: model.ErrExcluded, Detail: "restriction <x>"}
			break
		}
	}
	page, err := HTML(&d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	for _, bad := range []string{`<script>alert`, `<b>non-deterministic`, "restriction <x>"} {
		if strings.Contains(s, bad) {
			t.Errorf("%q is not escaped", bad)
		}
	}
	for _, want := range []string{"&lt;b&gt;non-deterministic&lt;/b&gt;", "excluded query (never ran, answered err)", "restriction &lt;x&gt;",
		"The typestate picture is missing: no SVG renderer was given"} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q", want)
		}
	}

	d.Warnings = nil
	for k := range d.Transitions {
		d.Transitions[k].Err = nil
	}
	page, _ = HTML(&d, Options{Render: func([]byte) ([]byte, error) { return nil, errors.New("droidstar-render not found") }})
	if !strings.Contains(string(page), "No warnings.") {
		t.Error("a model without warnings does not say so")
	}
	if !strings.Contains(string(page), "The typestate picture is missing: svg: droidstar-render not found") {
		t.Error("a failed render is not explained")
	}
}

// TestChromium opens the report in headless Chromium: the SVG is laid out
// (the page's script sees a non-empty bounding box), it shows one node per
// state plus the start point, and the tables have their rows.
func TestChromium(t *testing.T) {
	const chromium = "/usr/bin/chromium"
	if _, err := os.Stat(chromium); err != nil {
		t.Skip("no /usr/bin/chromium: install chromium to test the report in a browser")
	}
	if testing.Short() {
		t.Skip("-short")
	}
	d := example(t, "mediaplayer")
	page, err := HTML(d, Options{Render: renderSVG})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, page, 0o644); err != nil {
		t.Fatal(err)
	}
	browse := func(args ...string) []byte {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
			"--disable-background-networking", "--disable-component-update", "--disable-sync",
			"--user-data-dir=" + filepath.Join(dir, "profile")}
		cmd := exec.CommandContext(ctx, chromium, append(append(base, args...), "file://"+file)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("chromium %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		return out
	}
	dom := string(browse("--dump-dom"))

	if !strings.Contains(dom, `data-rendered="ok"`) {
		m := regexp.MustCompile(`data-rendered="[^"]*"`).FindString(dom)
		t.Errorf("the SVG is not laid out: body has %q, want data-rendered=\"ok\"", m)
	}
	if !strings.Contains(dom, "<svg") {
		t.Fatal("no <svg> in the DOM")
	}
	m, _, err := d.Machine()
	if err != nil {
		t.Fatal(err)
	}
	ts, err := m.Typestate()
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(dom, `class="node"`); n != len(ts.States)+1 {
		t.Errorf("%d SVG nodes, want %d states and the start point", n, len(ts.States))
	}
	rows := func(id string) int {
		t.Helper()
		k := strings.Index(dom, `id="`+id+`"`)
		if k < 0 {
			t.Fatalf("no table #%s in the DOM", id)
		}
		end := strings.Index(dom[k:], "</table>")
		return strings.Count(dom[k:k+end], "<tr")
	}
	if n := rows("transitions"); n != len(d.Transitions)+1 {
		t.Errorf("transitions table has %d rows, want %d and the heading", n, len(d.Transitions))
	}
	if n := rows("stats"); n != 2 {
		t.Errorf("statistics table has %d rows, want 2", n)
	}
	if n := rows("phases"); n != 4 {
		t.Errorf("phase table has %d rows, want the heading, learning, equivalence and total", n)
	}
	if n := rows("header"); n != len(header(d)) {
		t.Errorf("header table has %d rows, want %d", n, len(header(d)))
	}

	shot := filepath.Join(dir, "shot.png")
	browse("--screenshot="+shot, "--window-size=1200,1600")
	if fi, err := os.Stat(shot); err != nil || fi.Size() < 10_000 {
		t.Errorf("screenshot: %v (%v)", err, fi)
	}
	if out := os.Getenv("DROIDSTAR_REPORT_SHOT"); out != "" {
		data, _ := os.ReadFile(shot)
		if err := os.WriteFile(out, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A calibrated run's timeout is a column of the statistics; a fixed
// timeout's report has none.
func TestTimeoutColumn(t *testing.T) {
	d := *example(t, "asynctask")
	stats := *d.Stats
	d.Stats = &stats
	page, err := HTML(&d, Options{Render: renderSVG})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(page), "quiescence timeout") {
		t.Error("a fixed timeout's report has a timeout column")
	}
	stats.Timeout = &model.AutoTimeout{StartMs: 100, SettledMs: 820, CeilingMs: 1000, SlowestMs: 410, Raises: 2, Stale: 37}
	if page, err = HTML(&d, Options{Render: renderSVG}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<th class="num">quiescence timeout</th>`,
		`<td class="num">auto, started at 100ms, settled at 820ms (2x the slowest callback seen, 410ms), raised 2 times, 37 quiet answers asked again under a longer one, 0 late callbacks</td>`,
	} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}
