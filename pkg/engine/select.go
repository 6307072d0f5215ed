package engine

import (
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/suggest"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// NoCallsReason is the skip reason of every tool of a static audit
// ([Config.NoCalls]).
const NoCallsReason = "not called: --no-calls (static audit)"

// skipReason says why t is not called, or "" when it is. An explicit --tools
// match overrides the read-only rule: the user asked for that tool.
func (c Config) skipReason(t tool) string {
	if c.NoCalls {
		return NoCallsReason
	}
	if len(t.Name) > report.MaxStoredToolName {
		// Its case ids, findings and reproducers would each carry it.
		return fmt.Sprintf("not called: its name is %d bytes long, over %d (MCP tool names are 1 to 128 characters)", len(t.Name), report.MaxStoredToolName)
	}
	if i := matchIndex(c.SkipTools, t.Name); i >= 0 {
		return "skipped by " + c.skipFrom(i)
	}
	explicit := matchIndex(c.Tools, t.Name) >= 0
	if len(c.Tools) > 0 && !explicit {
		from := c.ToolsFrom
		if from == "" {
			from = "--tools " + strings.Join(c.Tools, ",")
		}
		return "not matched by " + from
	}
	if (explicit && !c.ToolsOnlyNarrow) || c.IncludeDestructive || slices.Contains(c.AlsoCall, t.Name) {
		return ""
	}
	if t.ReadOnly == nil || !*t.ReadOnly {
		hint := c.NotReadOnlyHint
		if hint == "" {
			hint = "use --include-destructive, or --tools NAME, to call it"
		}
		return "not annotated readOnlyHint: true (" + hint + ")"
	}
	return ""
}

// TaskModernReason is the skip reason of a task-only tool of a server
// audited in the modern era, where tasks are the extension
// io.modelcontextprotocol/tasks: the go-sdk mcp-fuzz follows (v1.8.0)
// implements no tasks in any era, so there is no reference for the
// extension's calls to follow.
const TaskModernReason = `task-only tool (execution.taskSupport: "required") of a modern-era server: tasks are the extension io.modelcontextprotocol/tasks there, which mcp-fuzz does not call (go-sdk v1.8.0, its reference, implements no tasks), and a plain call is refused by design`

// taskSkipReason says why the task-only tool t is not called in era, or
// "" when it is (task-augmented calls of MCP 2025-11-25, see
// [session.Session.TaskCall]).
func taskSkipReason(t tool, era string) string {
	if t.TaskSupport == "required" && era == EraModern {
		return TaskModernReason
	}
	return ""
}

// skipFrom is where the i-th pattern of SkipTools came from.
func (c Config) skipFrom(i int) string {
	if i < len(c.SkipToolsFrom) && c.SkipToolsFrom[i] != "" {
		return c.SkipToolsFrom[i]
	}
	return "--skip-tools " + c.SkipTools[i]
}

// matchIndex returns the index of the first glob in globs that matches
// name, or -1.
func matchIndex(globs []string, name string) int {
	for i, g := range globs {
		if ok, _ := path.Match(g, name); ok {
			return i
		}
	}
	return -1
}

// ErrNoMatch marks a tool pattern or per-tool name of the configuration
// that matches no tool of the server: a typo or a stale entry, which would
// otherwise do nothing at all. It comes wrapped with a [*ConfigError]
// (so it matches [ErrConfig] too) whose message names the nearest tools.
var ErrNoMatch = errors.New("matches no tool")

// noMatchError wraps a [*ConfigError] with [ErrNoMatch].
type noMatchError struct{ *ConfigError }

func (e noMatchError) Unwrap() []error { return []error{e.ConfigError, ErrNoMatch} }

// checkMatches returns an error wrapping [ErrNoMatch] for the first tool
// pattern (Tools, SkipTools) or per-tool name (Examples, ToolTimeouts,
// AlsoCall, Lifecycle) of c that matches none of the tools the server listed.
func (c Config) checkMatches(tools []tool) error {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	matches := func(g string) bool {
		return slices.ContainsFunc(names, func(n string) bool {
			ok, _ := path.Match(g, n)
			return ok
		})
	}
	none := func(format, given string, args ...any) error {
		hint := suggest.Hint(given, names)
		if len(names) == 0 {
			hint = " (it lists none)"
		}
		return noMatchError{&ConfigError{Format: format + " matches no tool of the server%s", Args: append(args, hint)}}
	}
	for _, n := range slices.Sorted(maps.Keys(c.Examples)) {
		if !slices.Contains(names, n) {
			return none("{Examples} %s", n, n)
		}
	}
	for _, n := range slices.Sorted(maps.Keys(c.ToolTimeouts)) {
		if !slices.Contains(names, n) {
			return none("{ToolTimeouts} %s", n, n)
		}
	}
	for _, n := range c.AlsoCall {
		if !slices.Contains(names, n) {
			return none("{AlsoCall} %s", n, n)
		}
	}
	for i, m := range c.Lifecycle {
		for _, n := range []string{m.Create, m.Read, m.Delete} {
			if n != "" && !slices.Contains(names, n) {
				return none("{Lifecycle} [%d] %s", n, i, n)
			}
		}
	}
	for _, g := range c.Tools {
		if !matches(g) {
			return none("{Tools} %s", g, g)
		}
	}
	for i, g := range c.SkipTools {
		if matches(g) {
			continue
		}
		if i < len(c.SkipToolsFrom) && c.SkipToolsFrom[i] != "" {
			return none("%s", g, c.SkipToolsFrom[i])
		}
		return none("{SkipTools} %s", g, g)
	}
	return nil
}

// ToolHints is a listed tool and its annotation hints: see
// [Config.Listed].
type ToolHints struct {
	Name string
	// ReadOnly, Destructive and Idempotent are the tool's annotation
	// hints, nil when it does not set them.
	ReadOnly, Destructive, Idempotent *bool
}

// SkipReason says why a run with c would not call the tool t, or "" when
// it would: the selection rules of a run (read-only by default,
// IncludeDestructive, Tools, SkipTools, NoCalls), without running it.
func (c Config) SkipReason(t ToolHints) string {
	return c.skipReason(tool{Name: t.Name, ReadOnly: t.ReadOnly, Destructive: t.Destructive, Idempotent: t.Idempotent})
}

// hints are the hints of tools.
func hints(tools []tool) []ToolHints {
	out := make([]ToolHints, len(tools))
	for i, t := range tools {
		out[i] = ToolHints{Name: t.Name, ReadOnly: t.ReadOnly, Destructive: t.Destructive, Idempotent: t.Idempotent}
	}
	return out
}
