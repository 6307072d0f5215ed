// Command app-error is a fixture server whose lookup answers bad input with an
// application-defined JSON-RPC error code (4001): a refusal, verdict rejected.
package main

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/sdkserver"
)

func main() {
	sdkserver.Main("app-error", "Fixture: application error code 4001 on bad input.", func(s *mcp.Server) {
		sdkserver.AddNameTool(s, "lookup", func(_ context.Context, valid bool, _ json.RawMessage) (*mcp.CallToolResult, error) {
			if !valid {
				return nil, &jsonrpc.Error{Code: 4001, Message: "lookup needs one name of at most 20 characters"}
			}
			return sdkserver.Text("found"), nil
		})
	})
}
