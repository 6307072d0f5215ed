// Command slow-bloated is a fixture server with a tool whose valid call takes
// 600 ms (flag slow with --slow-ms below that) and one whose valid call
// answers 30,000 characters (flag bloated above the 20,000 default).
package main

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/sdkserver"
)

func main() {
	sdkserver.Main("slow-bloated", "Fixture: one slow tool, one bloated tool, one normal tool.", func(s *mcp.Server) {
		sdkserver.AddNameTool(s, "slow_lookup", func(ctx context.Context, valid bool, _ json.RawMessage) (*mcp.CallToolResult, error) {
			if !valid {
				return sdkserver.ToolError("lookup needs one name"), nil
			}
			select {
			case <-time.After(600 * time.Millisecond):
			case <-ctx.Done():
			}
			return sdkserver.Text("found"), nil
		})
		sdkserver.AddNameTool(s, "bloated_lookup", func(_ context.Context, valid bool, _ json.RawMessage) (*mcp.CallToolResult, error) {
			if !valid {
				return sdkserver.ToolError("lookup needs one name"), nil
			}
			return sdkserver.Text(strings.Repeat("x", 30000)), nil
		})
		sdkserver.AddNameTool(s, "quick_lookup", func(_ context.Context, valid bool, _ json.RawMessage) (*mcp.CallToolResult, error) {
			if !valid {
				return sdkserver.ToolError("lookup needs one name"), nil
			}
			return sdkserver.Text("found"), nil
		})
	})
}
