package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// 'droidstar help' lists every topic with its title after the commands,
// and each topic prints plain (no escape codes) when stdout is no
// terminal.
func TestHelpListsAndPrintsEveryTopic(t *testing.T) {
	topics := helpTopics()
	if len(topics) < 9 {
		t.Fatalf("%d topics, want the nine of issue 28 at least", len(topics))
	}
	seen := map[string]bool{}
	for _, topic := range topics {
		if seen[topic.Name] || !strings.HasPrefix(topic.Markdown, "# ") {
			t.Errorf("topic %q is declared twice or does not start with its \"# Title\" line", topic.Name)
		}
		seen[topic.Name] = true
	}
	code, stdout, stderr := droidstar(t, "help")
	if code != ExitOK || stderr != "" {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, list, ok := strings.Cut(stdout, "\nHelp topics (droidstar help TOPIC):\n")
	if !ok {
		t.Fatalf("no list of topics in:\n%s", stdout)
	}
	for _, topic := range topics {
		line := fmt.Sprintf("  %-13s %s\n", topic.Name, topic.Title())
		if !strings.Contains(list, line) {
			t.Errorf("the list lacks %q:\n%s", line, list)
		}
		code, stdout, stderr := droidstar(t, "help", topic.Name)
		if code != ExitOK || stderr != "" {
			t.Errorf("help %s: exit %d: %s", topic.Name, code, stderr)
		}
		if !strings.HasPrefix(stdout, strings.ToUpper(topic.Title())+"\n\n") || strings.Contains(stdout, "\x1b") {
			t.Errorf("help %s does not start with its title, plain:\n%.300s", topic.Name, stdout)
		}
	}
}

// A command's help is there too, and a name that is neither is a usage
// error that lists the topics.
func TestHelpOfACommandAndOfNothing(t *testing.T) {
	code, stdout, _ := droidstar(t, "help", "learn")
	_, want, _ := droidstar(t, "learn", "--help")
	if code != ExitOK || stdout != want {
		t.Errorf("help learn (exit %d) differs from learn --help", code)
	}
	code, stdout, stderr := droidstar(t, "help", "purpose")
	wantErr := "droidstar: no command or help topic \"purpose\"\nThe topics: " + strings.Join(topicNames(), ", ") +
		". Run 'droidstar help' for the commands.\n"
	if code != ExitUsage || stdout != "" || stderr != wantErr {
		t.Errorf("help purpose: exit %d, stdout %q, stderr %q\nwant %q", code, stdout, stderr, wantErr)
	}
}

// A flag's help is one line; the why is in a topic: every flag of the
// commands that learn is named in some topic.
func TestEveryLearningFlagIsExplainedInATopic(t *testing.T) {
	var all strings.Builder
	for _, topic := range helpTopics() {
		all.WriteString(topic.Markdown)
	}
	text := all.String()
	for _, name := range []string{"learn", "matrix"} {
		c, _, err := newRoot(&env{}).Find([]string{name})
		if err != nil {
			t.Fatal(err)
		}
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			named := strings.Contains(text, "--"+f.Name) || (f.Shorthand != "" && strings.Contains(text, "-"+f.Shorthand+" "))
			if !named && f.Name != "help" && !f.Hidden {
				t.Errorf("%s --%s is in no help topic", name, f.Name)
			}
		})
	}
}
