// Command clean is a well-behaved fixture server: every tool is read-only,
// answers its valid call with content, and answers every bad input with
// isError (verdicts ok and handled; grade A). lookup_user checks its
// arguments by hand; add_numbers relies on the go-sdk's typed validation and
// declares an output schema that its result honours.
package main

import (
	"context"
	"encoding/json"

	"github.com/mcp-fuzz/mcp-fuzz/internal/demo"
	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/sdkserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type addArgs struct {
	A int64 `json:"a"`
	B int64 `json:"b"`
}

type addResult struct {
	Sum int64 `json:"sum" jsonschema:"a plus b"`
}

func addAddNumbers(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{
		Name:        "add_numbers",
		Description: "Add two whole numbers and return their sum.",
		Annotations: &mcp.ToolAnnotations{Title: "Add numbers", ReadOnlyHint: true, IdempotentHint: true},
		InputSchema: json.RawMessage(`{
			"type": "object",
			"properties": {
				"a": {"type": "integer", "minimum": -1000000, "maximum": 1000000, "description": "First addend."},
				"b": {"type": "integer", "minimum": -1000000, "maximum": 1000000, "description": "Second addend."}
			},
			"required": ["a", "b"],
			"additionalProperties": false
		}`),
	}, func(_ context.Context, _ *mcp.CallToolRequest, in addArgs) (*mcp.CallToolResult, addResult, error) {
		return nil, addResult{Sum: in.A + in.B}, nil
	})
}

func main() {
	sdkserver.Main("clean", "Fixture: a well-behaved server. lookup_user finds users by id; add_numbers adds two integers.",
		demo.AddLookupUser, addAddNumbers)
}
