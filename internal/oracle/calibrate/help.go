package calibrate

import _ "embed"

// helpTopic is 'droidstar help timeouts', kept beside the code it describes
// so that a change to one shows in the diff beside the other.
//
//go:embed help-timeouts.md
var helpTopic string

// HelpTopic returns the text of 'droidstar help timeouts' (Markdown).
func HelpTopic() string { return helpTopic }
