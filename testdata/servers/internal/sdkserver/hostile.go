package sdkserver

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// AddPoliteTool registers a name tool that behaves: it answers valid input
// with a result and bad input with an isError result. The hostile fixtures
// misbehave around it, not in it.
func AddPoliteTool(s *mcp.Server) {
	AddNameTool(s, "lookup_name", func(_ context.Context, valid bool, _ json.RawMessage) (*mcp.CallToolResult, error) {
		if !valid {
			return ToolError(`"name" must be a string of at most 20 characters, and nothing else`), nil
		}
		return Text("found"), nil
	})
}
