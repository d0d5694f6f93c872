package store

import _ "embed"

// helpTopic is 'droidstar help store', kept beside the code it describes
// so that a change to one shows in the diff beside the other.
//
//go:embed help-store.md
var helpTopic string

// HelpTopic returns the text of 'droidstar help store' (Markdown).
func HelpTopic() string { return helpTopic }
