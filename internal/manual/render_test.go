package manual

import (
	"strings"
	"testing"
)

func TestRenderLaysMarkdownOutForATerminal(t *testing.T) {
	const md = "# Store: what is kept\n" +
		"\n" +
		"<!-- a comment for the writers -->\n" +
		"Every executed query is **kept** in the `store`, see [the model](#model) and\n" +
		"[DroidStar](https://example.org/droidstar).\n" +
		"\n" +
		"## Where\n" +
		"\n" +
		"- one item that is long enough to be wrapped onto a second line of the output\n" +
		"  with its continuation\n" +
		"  - a nested item\n" +
		"- `--fresh`\n" +
		"\n" +
		"| flag | meaning |\n" +
		"|---|---|\n" +
		"| `--store` | the file |\n" +
		"| `--fresh` | ignore a\\|b |\n" +
		"\n" +
		"```sh\n" +
		"droidstar store ls   # a code line is never wrapped, however long it is, and keeps its spacing\n" +
		"```\n" +
		"### Deeper\n" +
		"> quoted\n"
	want := "STORE: WHAT IS KEPT\n" +
		"\n" +
		"  Every executed query is kept in the store, see the model and DroidStar\n" +
		"  (https://example.org/droidstar).\n" +
		"\n" +
		"Where\n" +
		"\n" +
		"  - one item that is long enough to be wrapped onto a second line of the\n" +
		"    output with its continuation\n" +
		"    - a nested item\n" +
		"  - --fresh\n" +
		"\n" +
		"  flag     meaning\n" +
		"  -------  ----------\n" +
		"  --store  the file\n" +
		"  --fresh  ignore a|b\n" +
		"\n" +
		"    droidstar store ls   # a code line is never wrapped, however long it is, and keeps its spacing\n" +
		"\n" +
		"  Deeper\n" +
		"\n" +
		"  | quoted\n"
	var b strings.Builder
	if err := Render(&b, md, Style{Width: 76}); err != nil {
		t.Fatal(err)
	}
	if b.String() != want {
		t.Errorf("rendered:\n%s\nwant:\n%s", b.String(), want)
	}

	// On a terminal the headings and strong text are bold; nothing else
	// changes.
	b.Reset()
	if err := Render(&b, "# T\n\nsome **bold** text\n", Style{Width: 76, Bold: true}); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != "\x1b[1mT\x1b[0m\n\n  some \x1b[1mbold\x1b[0m text\n" {
		t.Errorf("styled: %q", got)
	}
}

// A line never runs past the width unless one word is longer than it.
func TestRenderWrapsToTheWidth(t *testing.T) {
	words := strings.Repeat("word ", 60) + strings.Repeat("x", 50)
	for _, width := range []int{40, 60, 100} {
		var b strings.Builder
		if err := Render(&b, "# T\n\n"+words+"\n\n- "+words+"\n", Style{Width: width}); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(b.String(), "\n") {
			if len(line) > width && !strings.Contains(line, strings.Repeat("x", 50)) {
				t.Errorf("width %d: %d columns: %q", width, len(line), line)
			}
		}
	}
}
