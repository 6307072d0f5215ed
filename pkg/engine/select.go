package engine

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// skipReason says why t is not called, or "" when it is. An explicit --tools
// match overrides the read-only rule: the user asked for that tool.
func (c Config) skipReason(t tool) string {
	if len(t.Name) > report.MaxStoredToolName {
		// Its case ids, findings and reproducers would each carry it.
		return fmt.Sprintf("not called: its name is %d bytes long, over %d (MCP tool names are 1 to 128 characters)", len(t.Name), report.MaxStoredToolName)
	}
	if g := matchAny(c.SkipTools, t.Name); g != "" {
		return "skipped by --skip-tools " + g
	}
	explicit := matchAny(c.Tools, t.Name) != ""
	if len(c.Tools) > 0 && !explicit {
		return "not matched by --tools " + strings.Join(c.Tools, ",")
	}
	if t.TaskSupport == "required" {
		return `task-only tool (execution.taskSupport: "required"): mcp-fuzz does not make task-augmented calls yet, and a plain call is refused by design`
	}
	if explicit || c.IncludeDestructive || slices.Contains(c.AlsoCall, t.Name) {
		return ""
	}
	if t.ReadOnly == nil || !*t.ReadOnly {
		return "not annotated readOnlyHint: true (use --include-destructive, or --tools NAME, to call it)"
	}
	return ""
}

// matchAny returns the first glob in globs that matches name.
func matchAny(globs []string, name string) string {
	for _, g := range globs {
		if ok, _ := path.Match(g, name); ok {
			return g
		}
	}
	return ""
}
