// Package mcptool reads the tools a server lists: one [Tool] per tools/list
// entry, read leniently (malformed fields are kept raw for lint), with its
// schemas compiled once and shared by lint, case generation and output
// validation.
package mcptool

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/mcp-fuzz/mcp-fuzz/internal/casegen"
	"github.com/mcp-fuzz/mcp-fuzz/internal/mcpheader"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// Tool is one tools/list entry, read leniently: malformed fields are kept raw
// and reported by lint instead of failing the listing.
type Tool struct {
	Name         string
	Title        string
	Description  string
	InputSchema  json.RawMessage
	OutputSchema json.RawMessage
	Annotations  json.RawMessage
	ReadOnly     *bool
	Destructive  *bool
	Idempotent   *bool
	TaskSupport  string
	schemas      *schemas
	// Params are the x-mcp-header bindings of InputSchema, whose
	// Mcp-Param headers a modern call over Streamable HTTP carries;
	// ParamProblems, when any, make the definition invalid (see
	// [mcpheader.Parse]) and Params unusable.
	Params        []mcpheader.Binding
	ParamProblems []mcpheader.Problem
}

// schemas holds a tool's input and output schemas, compiled on first use
// and then shared by lint, case generation and output validation.
type schemas struct {
	once          sync.Once
	input, output *casegen.Schema
}

// Compiled returns t's input and output schemas, compiling them with
// [casegen.Compile] on the first call; output is nil when t declares none.
func (t Tool) Compiled() (input, output *casegen.Schema) {
	s := t.schemas
	if s == nil {
		s = &schemas{}
	}
	s.once.Do(func() {
		s.input, _ = casegen.Compile(t.InputSchema)
		if len(t.OutputSchema) > 0 && string(t.OutputSchema) != "null" {
			s.output, _ = casegen.Compile(t.OutputSchema)
		}
	})
	return s.input, s.output
}

// Parse reads one tools/list entry; only an entry that is not an object is
// an error.
func Parse(raw json.RawMessage) (Tool, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil { // null decodes to a nil map
		return Tool{}, fmt.Errorf("tool entry is not an object")
	}
	t := Tool{schemas: &schemas{}}
	_ = json.Unmarshal(fields["name"], &t.Name)
	_ = json.Unmarshal(fields["title"], &t.Title)
	_ = json.Unmarshal(fields["description"], &t.Description)
	t.InputSchema = fields["inputSchema"]
	t.Params, t.ParamProblems = mcpheader.Parse(t.InputSchema)
	t.OutputSchema = fields["outputSchema"]
	t.Annotations = fields["annotations"]
	var ann struct {
		ReadOnlyHint    *bool `json:"readOnlyHint"`
		DestructiveHint *bool `json:"destructiveHint"`
		IdempotentHint  *bool `json:"idempotentHint"`
	}
	if json.Unmarshal(fields["annotations"], &ann) == nil {
		t.ReadOnly, t.Destructive, t.Idempotent = ann.ReadOnlyHint, ann.DestructiveHint, ann.IdempotentHint
	}
	var exec struct {
		TaskSupport string `json:"taskSupport"`
	}
	if json.Unmarshal(fields["execution"], &exec) == nil {
		t.TaskSupport = exec.TaskSupport
	}
	return t, nil
}

// Decode reads the entries of a tools/list answer. Entries that are not
// objects, have no name or repeat an earlier name are left out, each with a
// lint.
func Decode(raws []json.RawMessage) ([]Tool, []report.Lint) {
	var tools []Tool
	var lint []report.Lint
	seen := map[string]bool{}
	for i, raw := range raws {
		t, err := Parse(raw)
		switch {
		case err != nil:
			lint = append(lint, report.Lint{Code: "tool_not_object", Severity: report.SeverityError, Pointer: fmt.Sprintf("/tools/%d", i), Message: err.Error(), Hint: "every tools/list entry must be a Tool object"})
			continue
		case t.Name == "":
			lint = append(lint, report.Lint{Code: "tool_without_name", Severity: report.SeverityError, Pointer: fmt.Sprintf("/tools/%d", i), Message: "tool has no name; it cannot be called", Hint: "give every tool a unique name"})
			continue
		case seen[t.Name]:
			lint = append(lint, report.Lint{Code: "duplicate_tool_name", Severity: report.SeverityError, Tool: t.Name, Message: fmt.Sprintf("tool name %q is listed more than once; only the first is tested", t.Name), Hint: "tool names must be unique within a server"})
			continue
		}
		seen[t.Name] = true
		tools = append(tools, t)
	}
	return tools, lint
}
