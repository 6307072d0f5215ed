package lint

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/mcp-fuzz/mcp-fuzz/internal/casegen"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// Tool is one tools/list entry as the server listed it.
type Tool struct {
	Name        string
	Description string
	// Title is the "title", empty when absent; only [Changed] reads it.
	Title string
	// InputSchema is the raw "inputSchema"; it may be absent (nil), null or
	// not an object at all.
	InputSchema json.RawMessage
	// OutputSchema is the raw "outputSchema", nil when absent.
	OutputSchema json.RawMessage
	// Annotations is the raw "annotations", nil when absent.
	Annotations json.RawMessage

	// Input and Output are InputSchema and OutputSchema compiled by
	// [casegen.Compile], for a caller that compiled them already (the
	// engine compiles each tool's schemas once, for lint, case generation
	// and output validation). When nil, Check compiles them.
	Input, Output *casegen.Schema
}

// Server is what the server said about itself: in the initialize result
// (the 2025 revisions) or in the server/discover result (the stateless
// 2026-07-28 revision).
type Server struct {
	Name, Version, Instructions string
	// ToolsCapability is true when the server advertised "tools".
	ToolsCapability bool
	// Source is the request whose result this is, [SourceInitialize] or
	// [SourceDiscover]; messages name it. Empty, they name neither.
	Source string
}

// The requests a [Server] can come from.
const (
	SourceInitialize = "initialize"
	SourceDiscover   = "server/discover"
)

// Severities of lint findings.
const (
	SeverityError   = report.SeverityError
	SeverityWarning = report.SeverityWarning
	SeverityInfo    = report.SeverityInfo
)

// maxNameLen is how much of a server-supplied name a message quotes.
const maxNameLen = 80

// maxPerRule caps how many findings one rule reports for one tool (the
// per-property rules), so a schema with thousands of properties does not
// drown the report; the last finding says how many were left out.
const maxPerRule = 20

// hit is one problem a rule found; the rule supplies code and severity.
type hit struct {
	Pointer string
	Message string
	Hint    string
}

// rule is one row of the rule table. Exactly one of server and tool is set.
type rule struct {
	Code     string
	Severity report.Severity
	server   func(s Server, tools []Tool) []hit
	tool     func(t *toolInput) []hit
}

// toolInput is what a tool rule sees: the tool, its place in the list and
// its schemas, parsed and compiled once.
type toolInput struct {
	Tool
	index int
	// first maps each name to where it first appears in the list.
	first map[string]int
	// folds finds the tools whose names look alike; one for the list.
	folds  *foldIndex
	input  *schemaInfo
	output *schemaInfo
	// trees are the schemas decoded whole, by root pointer, for the rules
	// that read every text in them (see [toolInput.tree]).
	trees map[string]any
}

// tree returns the schema at root ("/inputSchema" or "/outputSchema")
// decoded, once for every rule that asks; nil when it is absent or not
// JSON.
func (t *toolInput) tree(root string) any {
	if v, ok := t.trees[root]; ok {
		return v
	}
	raw := t.InputSchema
	if root == "/outputSchema" {
		raw = t.OutputSchema
	}
	var v any
	if len(raw) > 0 && json.Unmarshal(raw, &v) != nil {
		v = nil
	}
	if t.trees == nil {
		t.trees = map[string]any{}
	}
	t.trees[root] = v
	return v
}

// rules is the rule table, in report order. Server rules come first.
var rules = []rule{
	{Code: "tools_capability_but_none", Severity: SeverityWarning, server: checkToolsCapability},
	{Code: "no_server_info", Severity: SeverityWarning, server: checkServerInfo},
	{Code: "no_instructions", Severity: SeverityInfo, server: checkInstructions},

	{Code: "missing_description", Severity: SeverityWarning, tool: checkMissingDescription},
	{Code: "short_description", Severity: SeverityWarning, tool: checkShortDescription},
	{Code: "duplicate_tool_name", Severity: SeverityError, tool: checkDuplicateName},
	{Code: "invalid_tool_name", Severity: SeverityError, tool: checkInvalidName},
	{Code: "tool_name_style", Severity: SeverityWarning, tool: checkNameStyle},
	{Code: "hidden_characters", Severity: SeverityError, tool: checkHiddenCharacters},
	{Code: "model_directed_text", Severity: SeverityWarning, tool: checkModelDirected},
	{Code: "shadowed_name", Severity: SeverityWarning, tool: checkShadowedName},
	{Code: "missing_input_schema", Severity: SeverityError, tool: checkMissingInputSchema},
	{Code: "input_schema_not_object", Severity: SeverityError, tool: checkInputSchemaNotObject},
	{Code: "input_root_not_object", Severity: SeverityError, tool: checkInputRootNotObject},
	{Code: "input_schema_does_not_compile", Severity: SeverityError, tool: checkInputCompiles},
	{Code: "draft07_keyword", Severity: SeverityWarning, tool: checkDraft07Keyword},
	{Code: "remote_ref", Severity: SeverityWarning, tool: checkRemoteRef},
	{Code: "schema_too_complex", Severity: SeverityWarning, tool: checkTooComplex},
	{Code: "property_without_type", Severity: SeverityWarning, tool: checkPropertyType},
	{Code: "property_without_description", Severity: SeverityInfo, tool: checkPropertyDescription},
	{Code: "no_required", Severity: SeverityInfo, tool: checkNoRequired},
	{Code: "no_annotations", Severity: SeverityWarning, tool: checkNoAnnotations},
	{Code: "contradictory_annotations", Severity: SeverityError, tool: checkContradictoryAnnotations},
	{Code: "output_schema_does_not_compile", Severity: SeverityError, tool: checkOutputCompiles},
	{Code: "output_root_not_object", Severity: SeverityError, tool: checkOutputRootNotObject},
}

// Check runs every rule and returns the findings in a deterministic order:
// server findings first, then each tool in list order, rules in table order.
func Check(srv Server, tools []Tool) []report.Lint {
	var out []report.Lint
	for _, r := range rules {
		if r.server == nil {
			continue
		}
		for _, h := range r.server(srv, tools) {
			out = append(out, r.finding("", h))
		}
	}
	first := make(map[string]int, len(tools))
	for i, t := range tools {
		if _, ok := first[t.Name]; !ok {
			first[t.Name] = i
		}
	}
	folds := &foldIndex{tools: tools}
	for i, t := range tools {
		in := &toolInput{
			Tool:   t,
			index:  i,
			first:  first,
			folds:  folds,
			input:  analyzeSchema(t.InputSchema, t.Input),
			output: analyzeSchema(t.OutputSchema, t.Output),
		}
		for _, r := range rules {
			if r.tool == nil {
				continue
			}
			for _, h := range r.tool(in) {
				out = append(out, r.finding(t.Name, h))
			}
		}
	}
	return out
}

func (r rule) finding(tool string, h hit) report.Lint {
	return report.Lint{
		Code:     r.Code,
		Severity: r.Severity,
		Tool:     tool,
		Pointer:  h.Pointer,
		Message:  h.Message,
		Hint:     h.Hint,
	}
}

// short truncates a server-supplied name to maxNameLen runes for quoting in
// a message. Escaping is left to the renderers.
func short(s string) string { return truncate(s, maxNameLen) }

// truncate cuts s to at most n runes, marking a cut with "…".
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + "…"
		}
		i++
	}
	return s
}

// quote wraps a (truncated) name in double quotes without escaping it.
func quote(s string) string {
	return `"` + short(s) + `"`
}

// ref names the tool in a message.
func (t *toolInput) ref() string {
	if t.Name == "" {
		return "tool #" + strconv.Itoa(t.index+1)
	}
	return "tool " + quote(t.Name)
}
