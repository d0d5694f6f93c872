package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cpuguy83/go-md2man/v2/md2man"
	"github.com/spf13/cobra/doc"
)

// WriteManPages writes a manual page for every command (section 1,
// droidstar-learn.1) and every help topic (section 7, droidstar-purposes.7)
// into dir, and returns the files written. The pages are generated from
// the same command tree and topics that --help and 'droidstar help' print.
func WriteManPages(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("man pages: %w", err)
	}
	root := newRoot(&env{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}})
	root.DisableAutoGenTag = true
	header := &doc.GenManHeader{Title: "DROIDSTAR", Section: "1", Source: "droidstar " + toolVersion(), Manual: "droidstar manual"}
	if err := doc.GenManTree(root, header, dir); err != nil {
		return nil, fmt.Errorf("man pages of the commands: %w", err)
	}
	for _, t := range helpTopics() {
		page := md2man.Render([]byte(topicManSource(t.Name, t.Markdown)))
		if err := os.WriteFile(filepath.Join(dir, "droidstar-"+t.Name+".7"), page, 0o644); err != nil {
			return nil, fmt.Errorf("man page of the topic %s: %w", t.Name, err)
		}
	}
	files, err := filepath.Glob(filepath.Join(dir, "droidstar*.[17]"))
	if err != nil {
		return nil, fmt.Errorf("man pages: %w", err)
	}
	return files, nil
}

// topicManSource is a topic as go-md2man reads it: a title block naming
// the page, then the topic with its own title as the NAME section.
func topicManSource(name, markdown string) string {
	title, body, _ := strings.Cut(markdown, "\n")
	title = strings.TrimSpace(strings.TrimPrefix(title, "#"))
	return fmt.Sprintf("%% DROIDSTAR-%s 7 \"\" \"droidstar %s\" \"droidstar manual\"\n\n# NAME\n\ndroidstar-%s - %s\n\n# DESCRIPTION\n%s",
		strings.ToUpper(name), toolVersion(), name, title, demoteHeadings(body))
}

// demoteHeadings moves the topic's sections under DESCRIPTION, as a man
// page's sections are the few standard ones.
func demoteHeadings(md string) string {
	lines := strings.Split(md, "\n")
	in := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			in = !in
		}
		if !in && strings.HasPrefix(l, "#") {
			lines[i] = "#" + l
		}
	}
	return strings.Join(lines, "\n")
}
