package model

import _ "embed"

// helpTopic is 'droidstar help model', kept beside the code it describes
// so that a change to one shows in the diff beside the other.
//
//go:embed help-model.md
var helpTopic string

// HelpTopic returns the text of 'droidstar help model' (Markdown).
func HelpTopic() string { return helpTopic }
