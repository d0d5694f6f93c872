package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// make man writes a page for every command and every topic, each a roff
// page with its title line, and nothing else.
func TestManPagesForEveryCommandAndTopic(t *testing.T) {
	dir := t.TempDir()
	files, err := WriteManPages(dir)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		want = append(want, strings.ReplaceAll(c.CommandPath(), " ", "-")+".1")
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() {
				walk(sub)
			}
		}
	}
	walk(newRoot(&env{}))
	for _, topic := range helpTopics() {
		want = append(want, "droidstar-"+topic.Name+".7")
	}
	var got []string
	for _, f := range files {
		got = append(got, filepath.Base(f))
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("pages %v\nwant %v", got, want)
	}
	for _, name := range []string{"droidstar-learn.1", "droidstar-purposes.7"} {
		page, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		title := ".TH \"DROIDSTAR\" \"1\""
		if strings.HasSuffix(name, ".7") {
			title = ".TH DROIDSTAR-PURPOSES 7"
		}
		if !strings.Contains(string(page), "\n"+title) || !strings.Contains(string(page), ".SH NAME") {
			t.Errorf("%s has no %q title or no NAME section:\n%.400s", name, title, page)
		}
	}
}
