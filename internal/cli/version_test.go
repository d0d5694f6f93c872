package cli

import (
	"runtime/debug"
	"testing"
)

func TestVersionFrom(t *testing.T) {
	vcs := func(revision, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: revision}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "e0984ff6d64111871a2297369926ebb3f69ec05b"
	for _, c := range []struct {
		name    string
		ldflags string
		info    *debug.BuildInfo
		want    string
	}{
		{"ldflags win", "v0.9.0-3-gabc", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}}, "v0.9.0-3-gabc"},
		{"go install @version", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}}, "v1.2.0"},
		{"a clone, Go 1.24 stamping", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261124085801-e0984ff6d641+dirty"}, Settings: vcs(rev, "true")}, "v0.0.0-20261124085801-e0984ff6d641+dirty"},
		{"commit only", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "false")}, "e0984ff6d641"},
		{"commit with changes", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "true")}, "e0984ff6d641-dirty"},
		{"no version, no commit", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "devel"},
		{"no build information", "", nil, "devel"},
	} {
		if got := versionFrom(c.ldflags, c.info); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
