// Package manual is droidstar's reference, read with 'droidstar help
// TOPIC': the topics, each a Markdown file kept beside the code whose
// behaviour it describes (help-TOPIC.md, embedded by that package), laid
// out for a terminal, and written as manual pages.
//
// A topic is Markdown in the subset Render lays out (headings, paragraphs,
// lists, fenced code, pipe tables, inline code, bold, links) and starts
// with its title, "# Title: what it covers". The README and the topics
// are tested as documents (internal/cli's doc tests), so their code
// blocks follow these conventions:
//
//   - "sh" holds commands a reader can run anywhere, with no device: each
//     line starting with "droidstar " runs in the test, in a folder that
//     has the repository's examples/ and testdata/, and must exit 0. A
//     trailing comment is dropped; pipes, redirections and variables are
//     refused. Other lines (make, go, cd) are the reader's.
//   - "sh device" holds commands that need a phone, an adb server, a farm
//     or minutes: each must name a command and flags that exist, and none
//     runs.
//   - "console" shows commands and what they print: each "$ droidstar ..."
//     line runs and what it prints must equal the lines that follow, where
//     a line "..." stands for any number of lines. What a command prints is
//     its standard output, or its standard output followed by its standard
//     error (a failing command's message is what the reader sees).
//   - "LANG file=PATH" quotes a file of the repository whole, and must be
//     that file as it is.
//   - Any other block (yaml, text, json, dot) is shown, not run.
//
// In prose, every --flag must be a flag of some command, every 'droidstar
// help NAME' a topic or a command, and every relative link a file of the
// repository, relative to the Markdown file.
package manual

import (
	"strings"

	"github.com/droidstar/droidstar/internal/backend/adb"
	"github.com/droidstar/droidstar/internal/export"
	"github.com/droidstar/droidstar/internal/matrix"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/oracle/calibrate"
	"github.com/droidstar/droidstar/internal/purpose"
	"github.com/droidstar/droidstar/internal/store"
)

// Topic is one page of the reference.
type Topic struct {
	// Name is what 'droidstar help' takes: purposes, exit-codes.
	Name string
	// Markdown is the page. Its first line is its title, "# Title", which
	// the list of topics shows.
	Markdown string
}

// Title is the topic's first line without its "# ".
func (t Topic) Title() string {
	first, _, _ := strings.Cut(t.Markdown, "\n")
	return strings.TrimSpace(strings.TrimLeft(first, "#"))
}

// Topics are the pages the packages below the commands own, in the order
// a reader meets them: what to write, what comes out and what it rests
// on, then where it runs and what is kept. The commands add their own
// (the environment they read, the codes they exit with).
func Topics() []Topic {
	return []Topic{
		{"purposes", purpose.HelpTopic()},
		{"model", model.HelpTopic()},
		{"timeouts", calibrate.HelpTopic()},
		{"devices", adb.HelpTopic()},
		{"store", store.HelpTopic()},
		{"formats", export.HelpTopic()},
		{"ci", matrix.HelpTopic()},
	}
}
