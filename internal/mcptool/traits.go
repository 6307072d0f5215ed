package mcptool

import (
	"encoding/json"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/learn"
)

// OutputValidator checks structuredContent against the tool's outputSchema;
// nil when it declares none (or one that does not compile: internal/lint reports
// that).
func (t Tool) OutputValidator() func(json.RawMessage) error {
	if _, out := t.Compiled(); out.Compiled() {
		return out.Validate
	}
	return nil
}

// RetrySafe reports whether a tool may be called again with learned
// arguments: annotated read-only, or explicitly not destructive.
func (t Tool) RetrySafe() bool {
	if t.Destructive != nil && *t.Destructive {
		return false
	}
	return (t.ReadOnly != nil && *t.ReadOnly) || (t.Destructive != nil && !*t.Destructive)
}

// DiscoverySafe reports whether a tool may be called only to learn from
// its answer: annotated read-only and not destructive.
func (t Tool) DiscoverySafe() bool {
	return t.ReadOnly != nil && *t.ReadOnly && (t.Destructive == nil || !*t.Destructive)
}

func (t Tool) Shallow() learn.Schema { return learn.ParseSchema(t.InputSchema) }

// IsListing reports whether t looks like a read-only listing that takes no
// required argument, e.g. list_allowed_directories.
func (t Tool) IsListing() bool {
	// The name first: it is cheap, and the schema is decoded only for the
	// few tools named like a listing (this runs over every tool for each
	// errored valid call).
	return strings.Contains(strings.ToLower(t.Name), "list") && t.DiscoverySafe() && len(t.Shallow().Required) == 0
}

// DirLister returns the one required string property of a read-only
// listing tool that takes a path (e.g. list_directory's path), or "".
func (t Tool) DirLister() string {
	if !strings.Contains(strings.ToLower(t.Name), "list") || !t.DiscoverySafe() {
		return ""
	}
	s := t.Shallow()
	if len(s.Required) != 1 {
		return ""
	}
	p, ok := s.Properties[s.Required[0]]
	if !ok || !p.IsString() || !learn.PathLike(s.Required[0]) {
		return ""
	}
	return s.Required[0]
}

// Repeatable reports whether calling t twice with the same arguments is
// harmless by its own annotations: readOnlyHint (it changes nothing) or
// idempotentHint (a second call changes nothing more). Other tools are timed
// on their one valid call.
func (t Tool) Repeatable() bool {
	return t.ReadOnly != nil && *t.ReadOnly || t.Idempotent != nil && *t.Idempotent
}
