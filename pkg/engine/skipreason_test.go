package engine

import (
	"strings"
	"testing"
)

// TestSkipReason is the selection rules as Config.SkipReason applies them
// to listed tools, ToolsOnlyNarrow included (mcp-fuzz serve's audit).
func TestSkipReason(t *testing.T) {
	parallel(t)
	yes, no := true, false
	ro := ToolHints{Name: "get", ReadOnly: &yes}
	rw := ToolHints{Name: "delete", ReadOnly: &no, Destructive: &yes}
	bare := ToolHints{Name: "bare"}
	for _, c := range []struct {
		name string
		cfg  Config
		t    ToolHints
		want string // a prefix of the reason; "" when called
	}{
		{"read-only", Config{}, ro, ""},
		{"not read-only", Config{}, rw, "not annotated readOnlyHint: true"},
		{"no annotations", Config{}, bare, "not annotated readOnlyHint: true"},
		{"include destructive", Config{IncludeDestructive: true}, rw, ""},
		{"explicit tools", Config{Tools: []string{"delete"}}, rw, ""},
		{"explicit tools, narrow only", Config{Tools: []string{"delete"}, ToolsOnlyNarrow: true}, rw, "not annotated readOnlyHint: true"},
		{"narrow only keeps read-only", Config{Tools: []string{"g*"}, ToolsOnlyNarrow: true}, ro, ""},
		{"narrow only, destructive", Config{Tools: []string{"delete"}, ToolsOnlyNarrow: true, IncludeDestructive: true}, rw, ""},
		{"not matched", Config{Tools: []string{"x"}, ToolsOnlyNarrow: true}, ro, "not matched by --tools x"},
		{"skipped", Config{SkipTools: []string{"get"}}, ro, "skipped by"},
		{"no calls", Config{NoCalls: true}, ro, NoCallsReason},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := c.cfg.SkipReason(c.t)
			if c.want == "" && got != "" || c.want != "" && !strings.HasPrefix(got, c.want) {
				t.Errorf("SkipReason = %q, want prefix %q", got, c.want)
			}
		})
	}
}
