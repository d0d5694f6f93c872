package cli

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// A flag's help is one short line: every line of every command's flag
// list, as --help prints it, fits in 100 columns. The why of an option
// belongs in a help topic.
func TestEveryFlagHelpFitsOneLine(t *testing.T) {
	const limit = 100
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, set := range []string{c.LocalFlags().FlagUsagesWrapped(0), c.InheritedFlags().FlagUsagesWrapped(0)} {
			for _, line := range strings.Split(strings.TrimRight(set, "\n"), "\n") {
				if n := len([]rune(line)); n > limit {
					t.Errorf("%s: a flag's help line is %d columns (at most %d):\n%s", c.CommandPath(), n, limit, line)
				}
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot(&env{}))
}

// 'droidstar learn --help' fits a screen: its usage, a few examples and
// one line per flag, pointing at the topics for the rest.
func TestLearnHelpFitsAScreen(t *testing.T) {
	code, stdout, stderr := droidstar(t, "learn", "--help")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if n := strings.Count(stdout, "\n"); n > 60 {
		t.Errorf("learn --help is %d lines, at most 60:\n%s", n, stdout)
	}
}
