package report

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/droidstar/droidstar/internal/backend/sim"
	"github.com/droidstar/droidstar/internal/compose/composetest"
	goldenfile "github.com/droidstar/droidstar/internal/golden"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/refdata"
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
	// Nothing is loaded from elsewhere; links go to the page's own anchors.
	if m := regexp.MustCompile(`(?i)(src|href)\s*=\s*"[^#]`).FindString(s); m != "" {
		t.Errorf("report refers to an external resource: %s", m)
	}
}

// The queries the purpose's restrictions excluded are by design: the
// mediaplayer report's warnings count them in one line that links to
// their list, and list none of them as a warning.
func TestExcludedQueriesAreNoWarnings(t *testing.T) {
	page, err := HTML(example(t, "mediaplayer"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	section := func(from, to string) string {
		t.Helper()
		_, rest, ok := strings.Cut(s, from)
		body, _, ok2 := strings.Cut(rest, to)
		if !ok || !ok2 {
			t.Fatalf("the page has no section from %q to %q", from, to)
		}
		return body
	}
	want := `
<p class="none" id="warnings">No warnings.</p>
<p class="note" id="excluded-count"><a href="#excluded">8 transitions excluded by the purpose's restrictions</a>: err by design, never run.</p>

`
	if got := section("<h2>Warnings</h2>", "<h2>Transitions</h2>"); got != want {
		t.Errorf("warnings section:\n%s\nwant:\n%s", got, want)
	}
	// The link's anchor lists the 8, each an err transition of kind
	// excluded in the transitions table.
	list := section(`<h3 id="excluded">Excluded by the purpose's restrictions</h3>`, "</ul>")
	items := regexp.MustCompile(`<li>(s\d+) · (\w+): \[prepare\] followed by wait</li>`).FindAllStringSubmatch(list, -1)
	if len(items) != 8 || strings.Count(list, "<li>") != 8 {
		t.Fatalf("the list of excluded queries:\n%s", list)
	}
	for _, it := range items {
		row := fmt.Sprintf(`<tr class="err"><td>%s</td><td class="mono">%s</td><td class="mono">err</td>`, it[1], it[2])
		if !strings.Contains(s, row) || !strings.Contains(s, "<td>excluded</td><td>[prepare] followed by wait</td></tr>") {
			t.Errorf("%s · %s is listed as excluded but the transitions table has no such err", it[1], it[2])
		}
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
	for _, want := range []string{"&lt;b&gt;non-deterministic&lt;/b&gt;", "1 transition excluded by the purpose's restrictions", "restriction &lt;x&gt;",
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

// EnvRequireChromium, set to 1 (as .ci/run does), makes a missing
// chromium fail the browser tests instead of skipping them.
const EnvRequireChromium = "DROIDSTAR_REQUIRE_CHROMIUM"

// chromiumPath is headless Chromium's path, or the test is skipped (failed
// under DROIDSTAR_REQUIRE_CHROMIUM=1) when it is not installed.
func chromiumPath(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv(EnvRequireChromium) == "1" {
			t.Fatalf("no chromium on $PATH and %s=1: apt-get install chromium", EnvRequireChromium)
		}
		t.Skipf("no chromium on $PATH: apt-get install chromium to test the report in a browser (%s=1 makes this a failure)", EnvRequireChromium)
	}
	if testing.Short() {
		t.Skip("-short")
	}
	return p
}

// browser opens pages in headless Chromium at 100% zoom in a 1200×1600
// window.
type browser struct {
	t    *testing.T
	path string
	dir  string
}

func newBrowser(t *testing.T) *browser {
	return &browser{t: t, path: chromiumPath(t), dir: t.TempDir()}
}

// run writes page to a file, opens it with Chromium's flags args, and
// returns what Chromium printed.
func (b *browser) run(page []byte, args ...string) []byte {
	t := b.t
	t.Helper()
	file := filepath.Join(b.dir, "report.html")
	if err := os.WriteFile(file, page, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--window-size=1200,1600", "--force-device-scale-factor=1",
		"--user-data-dir=" + filepath.Join(b.dir, "profile")}
	cmd := exec.CommandContext(ctx, b.path, append(append(base, args...), "file://"+file)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// probeScript runs after the report's own script, in the page as a user
// opens it: it measures every label of the picture as drawn (its font size
// times the scale from SVG units to screen pixels) and works the zoom
// controls, and writes what it found as JSON into <pre id="probe">.
const probeScript = `<script>
(function () {
  var out = { texts: 0, minPx: 0, small: [] };
  var svg = document.querySelector("#typestate svg");
  var texts = document.querySelectorAll("#typestate svg text");
  var min = 1e9;
  for (var k = 0; k < texts.length; k++) {
    var m = texts[k].getScreenCTM();
    var px = parseFloat(getComputedStyle(texts[k]).fontSize) * Math.sqrt(m.a * m.a + m.b * m.b);
    if (px < min) { min = px; }
    if (px < 10 && out.small.length < 5) { out.small.push(texts[k].textContent + ": " + px.toFixed(2) + " px"); }
  }
  out.texts = texts.length;
  out.minPx = Math.round(min * 100) / 100;
  out.drawnWidth = Math.round(svg.getBoundingClientRect().width);
  out.ptWidth = svg.width.baseVal.valueInSpecifiedUnits;
  var fig = document.getElementById("typestate"), view = document.getElementById("ts-view");
  out.toolsShown = !document.getElementById("ts-tools").hidden;
  out.scale = [fig.dataset.scale];
  document.getElementById("ts-in").click(); out.scale.push(fig.dataset.scale);
  document.getElementById("ts-out").click(); document.getElementById("ts-out").click(); out.scale.push(fig.dataset.scale);
  document.getElementById("ts-reset").click(); out.scale.push(fig.dataset.scale);
  var r = view.getBoundingClientRect();
  view.dispatchEvent(new WheelEvent("wheel", { deltaY: 200, clientX: r.left + 50, clientY: r.top + 50, bubbles: true, cancelable: true }));
  out.scale.push(fig.dataset.scale);
  document.getElementById("ts-fit").click(); out.fit = parseFloat(fig.dataset.scale);
  document.getElementById("ts-reset").click();
  var opened = null;
  window.open = function (url, target) { opened = { url: String(url), target: target }; return null; };
  document.getElementById("ts-full").click();
  if (opened) {
    var req = new XMLHttpRequest();
    req.open("GET", opened.url, false);
    req.send();
    out.full = { scheme: opened.url.split(":")[0], target: opened.target, type: req.getResponseHeader("Content-Type"),
      sameSVG: req.responseText === new XMLSerializer().serializeToString(svg).replace(/ style="[^"]*"/, "") };
  }
  var pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>
`

// probe is what probeScript found.
type probe struct {
	Texts      int      `json:"texts"`
	MinPx      float64  `json:"minPx"`
	Small      []string `json:"small"`
	DrawnWidth float64  `json:"drawnWidth"`
	PtWidth    float64  `json:"ptWidth"`
	ToolsShown bool     `json:"toolsShown"`
	Scale      []string `json:"scale"`
	Fit        float64  `json:"fit"`
	// Full is what "open full size" opened.
	Full *struct {
		Scheme, Target, Type string
		SameSVG              bool
	} `json:"full"`
}

// measure opens the report with probeScript and returns the DOM and what
// the probe found.
func (b *browser) measure(page []byte) (string, probe) {
	t := b.t
	t.Helper()
	k := bytes.LastIndex(page, []byte("</body>"))
	if k < 0 {
		t.Fatal("the report has no </body>")
	}
	probed := append(append(append([]byte(nil), page[:k]...), probeScript...), page[k:]...)
	dom := string(b.run(probed, "--dump-dom"))
	m := regexp.MustCompile(`<pre id="probe">([^<]*)</pre>`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the probe wrote nothing: did the page's script fail?\n%.2000s", dom)
	}
	var p probe
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &p); err != nil {
		t.Fatalf("probe: %v: %s", err, m[1])
	}
	return dom, p
}

// checkReadable asserts that the picture is shown at its own size, every
// label at 10 px or more, and that the zoom controls work.
func checkReadable(t *testing.T, p probe) {
	t.Helper()
	t.Logf("%d labels, the smallest %.2f px; %.0f pt drawn %.0f px wide; fit %.3f", p.Texts, p.MinPx, p.PtWidth, p.DrawnWidth, p.Fit)
	if p.Texts == 0 {
		t.Fatal("the picture has no labels")
	}
	if p.MinPx < 10 || len(p.Small) > 0 {
		t.Errorf("labels under 10 px at 100%% zoom (smallest %.2f px): %s", p.MinPx, strings.Join(p.Small, "; "))
	}
	if want := p.PtWidth * 4 / 3; p.DrawnWidth < want-1 || p.DrawnWidth > want+1 {
		t.Errorf("the picture is drawn %.0f px wide, want its own size %.0f pt = %.0f px", p.DrawnWidth, p.PtWidth, want)
	}
	if !p.ToolsShown {
		t.Error("the zoom controls are hidden")
	}
	// 100%, zoom in (×1.25), out twice (÷1.25²), reset, the wheel 200 down
	// (×e^-0.3).
	if want := []string{"1", "1.25", "0.8", "1", "0.741"}; !equal(p.Scale, want) {
		t.Errorf("zoom steps %q, want %q", p.Scale, want)
	}
	// "open full size" opens the picture alone, unscaled, in a new tab.
	if f := p.Full; f == nil || f.Scheme != "blob" || f.Target != "_blank" || f.Type != "image/svg+xml" || !f.SameSVG {
		t.Errorf("open full size opened %+v, want the SVG without its zoom style as a blob: URL in a new tab", f)
	}
	if p.Fit <= 0 || p.Fit >= 1 {
		t.Errorf("fit scales to %v, want a shrink (the picture is wider than the page)", p.Fit)
	}
}

func equal(a, b []string) bool { return strings.Join(a, "\x00") == strings.Join(b, "\x00") }

// TestChromium opens the report in headless Chromium: the SVG is laid out
// (the page's script sees a non-empty bounding box) at its own size with
// every label at 10 px or more, it shows one node per state plus the start
// point and the bundle boxes, the zoom controls work, and the tables have
// their rows.
func TestChromium(t *testing.T) {
	b := newBrowser(t)
	d := example(t, "mediaplayer")
	page, err := HTML(d, Options{Render: renderSVG})
	if err != nil {
		t.Fatal(err)
	}
	dom, p := b.measure(page)
	checkReadable(t, p)

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
	// MediaPlayer's bundles: reset, release, start/pause/stop into s7 and
	// stop into s10.
	const boxes = 4
	if n := strings.Count(dom, `class="node"`); n != len(ts.States)+1+boxes {
		t.Errorf("%d SVG nodes, want %d states, the start point and %d bundle boxes", n, len(ts.States), boxes)
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

	shot := filepath.Join(b.dir, "shot.png")
	b.run(page, "--screenshot="+shot)
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

// A 60-state Mealy model's picture follows the same rule as MediaPlayer's:
// labels at 10 px or more at 100% zoom, zoom controls working. So does
// that of a public benchmark of that size (BitVise's SSH server, 66
// states) when the shared reference data is there.
func TestChromiumLargeMealy(t *testing.T) {
	b := newBrowser(t)
	docs := map[string]*model.Document{"protocol60": protocol(60)}
	if dir := refdata.Dir(); dir != "" {
		file := filepath.Join(dir, "benchmarks", "mealy", "BitVise.dot")
		if sm, err := sim.LoadModel(file, ""); err == nil {
			docs["BitVise"] = model.FromMachine("BitVise", model.SemanticsMealy, sm.Machine, nil)
		} else {
			t.Logf("BitVise left out: %v", err)
		}
	} else {
		t.Logf("BitVise left out: no shared reference data (set %s)", refdata.Env)
	}
	for name, d := range docs {
		t.Run(name, func(t *testing.T) {
			b.t = t
			page, err := HTML(d, Options{Render: renderSVG})
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(page, []byte("The typestate picture is missing")) {
				t.Fatalf("no picture: %s", regexp.MustCompile(`The typestate picture is missing[^<]*`).Find(page))
			}
			_, p := b.measure(page)
			checkReadable(t, p)
		})
	}
}

// protocol is an n-state Mealy machine shaped like a protocol: next moves
// on (ok; the last state wraps to the first), back steps back (ok, the
// first state stays), reset returns to the first state from every state
// (ack), and poll stays (the state's number modulo 3, as output).
func protocol(n int) *model.Document {
	outs := []string{"ok", "ack", "p0", "p1", "p2"}
	m := mealy.NewMachine(mealy.MustAlphabet("next", "back", "reset", "poll"), mealy.MustAlphabet(outs...), n)
	for q := 0; q < n; q++ {
		m.SetTransition(q, 0, 0, (q+1)%n)
		m.SetTransition(q, 1, 0, max(q-1, 0))
		m.SetTransition(q, 2, 1, 0)
		m.SetTransition(q, 3, 2+q%3, q)
	}
	return model.FromMachine(fmt.Sprintf("protocol%d", n), model.SemanticsMealy, m, nil)
}

// The caption explains what the picture of each kind of model shows: a
// plain Mealy model has no callins, callbacks or error sink.
func TestCaptionFitsTheKind(t *testing.T) {
	caption := func(d *model.Document) string {
		t.Helper()
		page, err := HTML(d, Options{Render: renderSVG})
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`<figcaption class="note">([^<]*)</figcaption>`).FindSubmatch(page)
		if m == nil {
			t.Fatal("no caption")
		}
		return html.UnescapeString(string(m[1]))
	}
	if got, want := caption(protocol(6)), "6 states shown; each arrow is labelled input / output. A self-loop is a line of its state (↻); the same input / output into one state from 4 states or more is one arrow from a dashed box that lists them."; got != want {
		t.Errorf("Mealy caption:\n%s\nwant\n%s", got, want)
	}
	if got, want := caption(example(t, "asynctask")), "5 states shown; callins are black arrows, callbacks blue double arrows, a quiet timeout that changed state a grey dashed arrow. A self-loop is a line of its state (↻); the same input into one state from 4 states or more is one arrow from a dashed box that lists them. The error sink and err transitions are hidden: the transitions table lists them."; got != want {
		t.Errorf("typestate caption:\n%s\nwant\n%s", got, want)
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
	stats.Timeout = &model.AutoTimeout{StartMs: 100, SettledMs: 820, CeilingMs: 1000, SlowestMs: 410, Raises: 2, Stale: 37,
		Contexts: []model.ContextTimeout{{Context: "go+1", TimeoutMs: 820, SlowestMs: 410}}}
	if page, err = HTML(&d, Options{Render: renderSVG}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<th class="num">quiescence timeout</th>`,
		`<td class="num">auto per wait context, started at 100ms; raised go&#43;1 to 820ms (2x the slowest callback there, 410ms); the other contexts stayed at the start; raised 2 times, 37 quiet answers asked again under a longer one, 0 late callbacks</td>`,
	} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}
