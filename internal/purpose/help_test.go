package purpose

import (
	"fmt"
	"strings"
	"testing"
)

// 'droidstar help purposes' names every key of the schema table, with its
// kind and its Doc, under the map it belongs to: the reference cannot
// miss a key the parser takes, nor keep one it no longer does.
func TestHelpTopicNamesEveryKey(t *testing.T) {
	topic := HelpTopic()
	if strings.Contains(topic, KeysMarker) || !strings.Contains(helpTopic, KeysMarker) {
		t.Fatalf("help-purposes.md must hold the marker %q once, for the generated key reference", KeysMarker)
	}
	section := ""
	for _, line := range strings.Split(topic[strings.Index(topic, mapTitle(inTop)):], "\n") {
		if strings.HasPrefix(line, "### ") {
			section = line
		}
		if !strings.HasPrefix(line, "- `") {
			continue
		}
		name := strings.Split(strings.TrimPrefix(line, "- `"), "`")[0]
		found := false
		for _, k := range Schema() {
			if mapTitle(k.In) == section && k.Name == name && k.Wire != Added {
				found = line == fmt.Sprintf("- `%s` (%s): %s", k.Name, k.Kind, k.Doc)
			}
		}
		if !found {
			t.Errorf("the reference's %q under %q is no key of the table as it is", line, section)
		}
	}
	for _, k := range Schema() {
		want := fmt.Sprintf("%s\n\n", mapTitle(k.In))
		at := strings.Index(topic, want)
		line := fmt.Sprintf("- `%s` (%s): %s\n", k.Name, k.Kind, k.Doc)
		switch {
		case k.Wire == Added:
			if strings.Contains(topic, "- `"+k.Name+"`") {
				t.Errorf("%s is added by the host, yet the reference lists it", k.Name)
			}
		case at < 0 || !strings.Contains(topic[at:], line):
			t.Errorf("the reference lacks %q under %q", strings.TrimSpace(line), mapTitle(k.In))
		}
	}
}
