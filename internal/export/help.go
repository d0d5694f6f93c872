package export

import _ "embed"

// helpTopic is 'droidstar help formats', kept beside the code it describes
// so that a change to one shows in the diff beside the other.
//
//go:embed help-formats.md
var helpTopic string

// HelpTopic returns the text of 'droidstar help formats' (Markdown).
func HelpTopic() string { return helpTopic }
