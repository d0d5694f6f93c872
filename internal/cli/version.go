package cli

import (
	"runtime/debug"
)

// Version is the tool's version when set at build time with
// -ldflags "-X github.com/droidstar/droidstar/internal/cli.Version=..."
// (make build does, from git describe); empty otherwise, when the version
// comes from the build information instead (toolVersion).
var Version = ""

// toolVersion is the version droidstar reports.
func toolVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		info = nil
	}
	return versionFrom(Version, info)
}

// versionFrom is the -ldflags version if set; else the module version the
// go command recorded (the one asked for in 'go install ...@v1.2.0', or,
// since Go 1.24, one derived from the git tag and commit of a clone, with
// +dirty for uncommitted changes); else the git commit the build records
// (12 digits, -dirty when the tree had changes); else "devel".
func versionFrom(ldflags string, info *debug.BuildInfo) string {
	if ldflags != "" {
		return ldflags
	}
	if info == nil {
		return "devel"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var revision string
	var dirty bool
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if revision == "" {
		return "devel"
	}
	if len(revision) > 12 {
		revision = revision[:12]
	}
	if dirty {
		revision += "-dirty"
	}
	return revision
}
