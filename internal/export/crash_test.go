package export

import (
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/model"
)

// An err of kind crash is listed in the summary with its last words, and
// drawn labelled "(crash)", which the legend explains.
func TestCrashInSummaryAndLegend(t *testing.T) {
	d := asyncTask(t)
	const detail = "the process died (exit status 7): Fuse: blown while lit"
	n := 0
	for k, tr := range d.Transitions {
		if tr.From == "s4" && tr.Input == "exec" {
			d.Transitions[k].Err = &model.ErrInfo{Kind: model.ErrCrash, Detail: detail}
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d transitions done · exec", n)
	}
	sum := Summary(d)
	for _, want := range []string{
		"  3 err transitions left out: crash 1, excluded 1, thrown 1\n",
		"  crash: done · exec: " + detail + "\n",
	} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary lacks %q:\n%s", want, sum)
		}
	}
	if strings.Count(sum, "  crash: ") != 1 {
		t.Errorf("summary lists %d crashes, want 1:\n%s", strings.Count(sum, "  crash: "), sum)
	}
	dot, err := TypestateDOT(d, PictureOptions{ShowErrors: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"(crash): it killed the harness's process</font>>;", `label="exec (crash)"`} {
		if !strings.Contains(string(dot), want) {
			t.Errorf("DOT lacks %q:\n%s", want, dot)
		}
	}
	// Without errors drawn there is no crash to explain.
	dot, err = TypestateDOT(d, PictureOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(dot), "crash") {
		t.Errorf("DOT without errors mentions a crash:\n%s", dot)
	}
}
