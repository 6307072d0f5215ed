package sdkserver

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// NameToolSchema is the input schema of [AddNameTool]: one required string
// "name" of at most 20 characters, nothing else.
const NameToolSchema = `{
	"type": "object",
	"properties": {"name": {"type": "string", "maxLength": 20, "description": "The name to look up."}},
	"required": ["name"],
	"additionalProperties": false
}`

// AddNameTool registers a read-only tool with [NameToolSchema] whose
// behaviour is handle's: it gets the arguments and whether they satisfy the
// schema, so each fixture only writes its one misbehaviour.
func AddNameTool(s *mcp.Server, tool string, handle func(ctx context.Context, valid bool, args json.RawMessage) (*mcp.CallToolResult, error)) {
	s.AddTool(&mcp.Tool{
		Name:        tool,
		Description: "Look up a name; a fixture tool with one named misbehaviour.",
		Annotations: &mcp.ToolAnnotations{Title: tool, ReadOnlyHint: true},
		InputSchema: json.RawMessage(NameToolSchema),
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return handle(ctx, validName(req.Params.Arguments), req.Params.Arguments)
	})
}

func validName(raw json.RawMessage) bool {
	var args map[string]json.RawMessage
	if json.Unmarshal(raw, &args) != nil || len(args) != 1 {
		return false
	}
	var name string
	raw, ok := args["name"]
	if !ok || len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &name) != nil {
		return false // absent, null or not a string
	}
	return len([]rune(name)) <= 20
}

// Text is a successful text result.
func Text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// ToolError is an isError result.
func ToolError(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// AddErrorCodeTool registers a name tool that answers valid input with a
// result and bad input with the JSON-RPC error code and message given.
func AddErrorCodeTool(s *mcp.Server, tool string, code int64, message string) {
	AddNameTool(s, tool, func(_ context.Context, valid bool, _ json.RawMessage) (*mcp.CallToolResult, error) {
		if !valid {
			return nil, &jsonrpc.Error{Code: code, Message: message}
		}
		return Text("found"), nil
	})
}
