package adb

import _ "embed"

// helpTopic is 'droidstar help devices', kept beside the code it describes
// so that a change to one shows in the diff beside the other.
//
//go:embed help-devices.md
var helpTopic string

// HelpTopic returns the text of 'droidstar help devices' (Markdown).
func HelpTopic() string { return helpTopic }
