// Command stdout-banner is a fixture server that prints a banner line on
// stdout before it serves, as `sh -c 'echo banner; exec node server.js'`
// does: a protocol violation before initialize, outside any tool call.
// The banner quotes API_TOKEN's value when it is set, for a client that
// must redact it. Its one tool, lookup, is well-behaved.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/sdkserver"
)

func main() {
	banner := "stdout-banner 1.0 ready"
	if tok := os.Getenv("API_TOKEN"); tok != "" {
		banner += " (token " + tok + ")"
	}
	fmt.Println(banner)
	sdkserver.Main("stdout-banner", "Fixture: a banner on stdout before serving.", func(s *mcp.Server) {
		sdkserver.AddNameTool(s, "lookup", func(_ context.Context, valid bool, _ json.RawMessage) (*mcp.CallToolResult, error) {
			if !valid {
				return sdkserver.ToolError("lookup needs one name"), nil
			}
			return sdkserver.Text("found"), nil
		})
	})
}
