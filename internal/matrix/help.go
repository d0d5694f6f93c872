package matrix

import _ "embed"

// helpTopic is 'droidstar help ci', kept beside the code it describes
// so that a change to one shows in the diff beside the other.
//
//go:embed help-ci.md
var helpTopic string

// HelpTopic returns the text of 'droidstar help ci' (Markdown).
func HelpTopic() string { return helpTopic }
