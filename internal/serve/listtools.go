package serve

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-fuzz/mcp-fuzz/internal/audit"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
)

// ListToolsInput is the input of list_tools.
type ListToolsInput struct {
	Target
	Tools       []string `json:"tools,omitempty" jsonschema:"glob patterns, as audit's: preview their effect"`
	SkipTools   []string `json:"skip_tools,omitempty" jsonschema:"glob patterns, as audit's: preview their effect"`
	Destructive bool     `json:"destructive,omitempty" jsonschema:"preview audit_destructive's selection instead of audit's"`
}

// ListToolsOutput is what list_tools returns.
type ListToolsOutput struct {
	Server       ServerInfo   `json:"server"`
	Instructions string       `json:"instructions,omitempty" jsonschema:"the server's own instructions, cut at 2000 characters"`
	Tools        []ListedTool `json:"tools" jsonschema:"at most 100"`
	ToolsTotal   int          `json:"tools_total"`
	WouldCall    int          `json:"would_call" jsonschema:"how many tools the previewed audit would call"`
	Lint         []Lint       `json:"lint" jsonschema:"metadata lint findings, at most 100"`
	LintTotal    int          `json:"lint_total"`
	SchemaScore  *int         `json:"schema_score" jsonschema:"the Schema dimension (0-100) from the lint findings; null with no tools"`
}

// ListedTool is one tool of the target.
type ListedTool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty" jsonschema:"cut at 300 characters"`
	ReadOnly    *bool  `json:"read_only_hint"`
	Destructive *bool  `json:"destructive_hint"`
	Idempotent  *bool  `json:"idempotent_hint"`
	WouldCall   bool   `json:"would_call"`
	Why         string `json:"why" jsonschema:"why the previewed audit would call it or not"`
}

// Lint is one metadata lint finding.
type Lint struct {
	Code     string `json:"code"`
	Severity string `json:"severity"`
	Tool     string `json:"tool,omitempty"`
	Pointer  string `json:"pointer,omitempty"`
	Message  string `json:"message"`
	Hint     string `json:"hint,omitempty"`
}

const listToolsDescription = `Start an MCP server (command, an argv array, over stdio; or url over HTTP), list its tools with their annotation hints, say which ones audit would call and why (or audit_destructive, with destructive: true), and lint their metadata (descriptions, schemas, annotations). Calls none of the target's tools: a static look before an audit. It does start the target process, so it is not read-only.`

func addListTools(s *mcp.Server, h *handlers) {
	mcp.AddTool(s, &mcp.Tool{
		Name:        "list_tools",
		Description: listToolsDescription,
		InputSchema: inputSchema[ListToolsInput](nil),
		Annotations: &mcp.ToolAnnotations{
			Title: "List and lint an MCP server's tools (no calls)",
			// Starting the target runs its code, which may do anything
			// at startup: not read-only, though no tool is called.
			ReadOnlyHint:    false,
			DestructiveHint: ptr(false),
			IdempotentHint:  true,
			OpenWorldHint:   ptr(true),
		},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in ListToolsInput) (*mcp.CallToolResult, ListToolsOutput, error) {
		out, err := h.listTools(ctx, in)
		return nil, out, err
	})
}

const (
	maxLint         = 100
	maxDescription  = 300
	maxInstructions = 2000
)

func (h *handlers) listTools(ctx context.Context, in ListToolsInput) (ListToolsOutput, error) {
	redact := in.redactor(h.o.LookupEnv, h.own())
	st, err := in.settings()
	if err != nil {
		return ListToolsOutput{}, err
	}
	st.Given.Set("no-calls", true)
	o, err := audit.Build(st, argNames, h.o.LookupEnv)
	if err != nil {
		return ListToolsOutput{}, errors.New(redact(audit.Describe(err, argNames)))
	}
	// A static audit takes no tool patterns (it lints every tool); they
	// only shape the preview of what an audit would call.
	preview := o.Engine
	preview.NoCalls = false
	preview.Tools, preview.SkipTools = in.Tools, in.SkipTools
	preview.IncludeDestructive, preview.ToolsOnlyNarrow = in.Destructive, !in.Destructive
	preview.NotReadOnlyHint = notReadOnlyHint
	// The skip reasons name the arguments as audit's do, not the flags.
	preview.ToolsFrom, preview.SkipToolsFrom = "", nil
	if len(in.Tools) > 0 {
		preview.ToolsFrom = argNames("tools") + " " + strings.Join(in.Tools, ",")
	}
	for _, g := range in.SkipTools {
		preview.SkipToolsFrom = append(preview.SkipToolsFrom, argNames("skip-tools")+" "+g)
	}
	o.Engine.LookupEnv, o.Engine.Version = h.o.LookupEnv, h.o.Version
	o.Engine.OwnSecrets = h.own()
	var sel []engine.ToolHints
	o.Engine.Listed = func(s []engine.ToolHints) { sel = s }
	res := audit.Run(ctx, o)
	if res.Report == nil {
		if res.Err == nil {
			res.Err = errors.New("no report")
		}
		return ListToolsOutput{}, fmt.Errorf("list_tools: %s", redact(res.Err.Error()))
	}
	rep := res.Report
	out := ListToolsOutput{
		Server:      ServerInfo{Name: rep.Server.Name, Version: rep.Server.Version, ProtocolVersion: rep.Server.ProtocolVersion, Era: rep.Server.Era},
		Tools:       []ListedTool{},
		ToolsTotal:  len(rep.Tools),
		Lint:        []Lint{},
		LintTotal:   len(rep.Lint),
		SchemaScore: rep.Dimensions["schema"].Score,
	}
	out.Instructions, _ = cut(rep.Server.Instructions, maxInstructions, "")
	for i, t := range rep.Tools {
		// The report's name and description are redacted; the
		// selection, in the same order, adds the annotations.
		lt := ListedTool{Name: t.Name, Why: "unknown: the target's tools changed during the listing"}
		lt.Description, _ = cut(t.Description, maxDescription, "")
		if i < len(sel) {
			s := sel[i]
			lt.ReadOnly, lt.Destructive, lt.Idempotent = s.ReadOnly, s.Destructive, s.Idempotent
			reason := preview.SkipReason(s)
			lt.WouldCall, lt.Why = reason == "", redact(reason)
			if lt.WouldCall {
				lt.Why = "would be called: " + calledWhy(s, in.Destructive)
				out.WouldCall++
			}
		}
		if len(out.Tools) < maxTools {
			out.Tools = append(out.Tools, lt)
		}
	}
	for _, l := range rep.Lint {
		if len(out.Lint) == maxLint {
			break
		}
		out.Lint = append(out.Lint, Lint{Code: l.Code, Severity: string(l.Severity), Tool: l.Tool, Pointer: l.Pointer, Message: l.Message, Hint: l.Hint})
	}
	return out, nil
}

// calledWhy says why a selected tool would be called.
func calledWhy(s engine.ToolHints, destructive bool) string {
	switch {
	case s.ReadOnly != nil && *s.ReadOnly:
		return "annotated readOnlyHint: true"
	case destructive:
		return "audit_destructive calls every tool not skipped"
	}
	return "selected"
}
