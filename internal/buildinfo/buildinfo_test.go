package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestFromBuild(t *testing.T) {
	settings := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i+1 < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	for _, tc := range []struct {
		name string
		info debug.BuildInfo
		want string
	}{
		{"go install at a tag", debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, "v1.4.0"},
		{"a pseudo-version", debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261201164800-0123456789ab"}}, "v0.0.0-20261201164800-0123456789ab"},
		{"a clean checkout", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: settings("vcs.revision", "eb3beb8a0c1d2e3f40516273849a0b1c2d3e4f50", "vcs.modified", "false")}, "eb3beb8a0c1d"},
		{"a dirty checkout", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: settings("vcs.revision", "eb3beb8a0c1d2e3f40516273849a0b1c2d3e4f50", "vcs.modified", "true")}, "eb3beb8a0c1d-dirty"},
		{"no VCS information", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, Unset},
		{"nothing at all", debug.BuildInfo{}, Unset},
	} {
		if got := FromBuild(&tc.info); got != tc.want {
			t.Errorf("%s: FromBuild = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestStampedVersionWins(t *testing.T) {
	if got := Version("v2.0.1"); got != "v2.0.1" {
		t.Errorf("Version(v2.0.1) = %q", got)
	}
	// A test binary has build info but no stamped version: never "".
	if got := Version(Unset); got == "" {
		t.Error(`Version("dev") = ""`)
	}
}
