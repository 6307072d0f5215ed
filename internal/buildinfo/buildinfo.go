// Package buildinfo says which build of mcp-fuzz is running: the version
// a release stamped into the binary, else what the Go toolchain recorded
// (the module version of `go install ...@v1.2.3`, or the VCS revision of a
// build from a checkout), so that no build reports a bare "dev".
package buildinfo

import (
	"runtime/debug"
)

// Unset is the version of a binary built without -ldflags "-X main.version=...".
const Unset = "dev"

// Version returns stamped when a release set it (-X main.version=v1.2.3),
// else the version the build info of this binary records: see [FromBuild].
func Version(stamped string) string {
	if stamped != "" && stamped != Unset {
		return stamped
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return Unset
	}
	return FromBuild(info)
}

// FromBuild is the version info records: the main module's version when
// the go command knew it (`go install module@v1.2.3`), else the first 12
// hex digits of the VCS revision it was built from, with "-dirty" when the
// working tree had changes; [Unset] when it records neither (a build
// outside a repository, or with -buildvcs=false).
func FromBuild(info *debug.BuildInfo) string {
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev string
	var dirty bool
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return Unset
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return rev
}
