package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/audit"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// TestRecordedTarget: replay of the recorded target asks for its
// environment variables and headers again by name, from this environment
// (the report has no values), says which it could not find, and starts
// this binary's demo server when the recorded one is gone (a go run build).
func TestRecordedTarget(t *testing.T) {
	t.Parallel()
	env := map[string]string{"API_TOKEN": "x", "X_TENANT": "acme"}
	a := &App{
		LookupEnv:  func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		Executable: func() (string, error) { return "/usr/local/bin/mcp-fuzz", nil },
	}
	rep := &report.Report{Target: report.Target{Args: []string{"/tmp/go-build1/b001/exe/mcp-fuzz", "demo-server"},
		Env: []string{"API_TOKEN", "MISSING"}, Headers: []string{"X-Tenant", "X-Other"}}}
	var st audit.Settings
	warnings := a.recordedTarget(&st, rep)
	if want := []string{"/usr/local/bin/mcp-fuzz", "demo-server"}; !slices.Equal(st.Command, want) {
		t.Errorf("command %q, want %q", st.Command, want)
	}
	if !slices.Equal(st.Given.List("pass-env"), []string{"API_TOKEN"}) || !slices.Equal(st.Given.List("header"), []string{"X-Tenant: acme"}) {
		t.Errorf("pass-env %q, headers %q", st.Given.List("pass-env"), st.Given.List("header"))
	}
	if len(warnings) != 2 || !strings.Contains(warnings[0], "$MISSING") || !strings.Contains(warnings[1], "$X_OTHER") {
		t.Errorf("warnings %q", warnings)
	}
	if rep.Target.Args[0] != "/tmp/go-build1/b001/exe/mcp-fuzz" {
		t.Errorf("the report's target was changed: %q", rep.Target.Args)
	}
}

// TestGoRunBuild: a go run program is in $WORK/b001/exe under a go-build
// directory; a go test binary or an installed one is not.
func TestGoRunBuild(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]bool{
		"/tmp/go-build2791/b001/exe/mcp-fuzz":    true,
		"/var/tmp/x/go-build1/b001/exe/mcp-fuzz": true,
		"/tmp/go-build2791/b001/cli.test":        false,
		"/home/u/go/bin/mcp-fuzz":                false,
		"/opt/exe/mcp-fuzz":                      false,
		"/usr/local/bin/mcp-fuzz":                false,
	} {
		if got := goRunBuild(path); got != want {
			t.Errorf("goRunBuild(%q) = %v, want %v", path, got, want)
		}
	}
}
