// Command closed-stdout is a fixture server that closes its stdout on bad input
// but keeps running: the connection drops while the process lives (verdict
// crash, closed).
package main

import (
	"context"
	"encoding/json"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/sdkserver"
)

func main() {
	sdkserver.Main("closed-stdout", "Fixture: closes stdout on bad input.", func(s *mcp.Server) {
		sdkserver.AddNameTool(s, "lookup", func(ctx context.Context, valid bool, _ json.RawMessage) (*mcp.CallToolResult, error) {
			if !valid {
				os.Stdout.Close()
				<-ctx.Done() // stay alive until the session ends
				return nil, ctx.Err()
			}
			return sdkserver.Text("found"), nil
		})
	})
}
