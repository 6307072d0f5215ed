// Command server-error is a fixture server whose lookup answers bad input with
// JSON-RPC error -32001, from the implementation-defined server-error range:
// an exception escaped (verdict crash, internal_error).
package main

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/sdkserver"
)

func main() {
	sdkserver.Main("server-error", "Fixture: -32001 on bad input.", func(s *mcp.Server) {
		sdkserver.AddErrorCodeTool(s, "lookup", -32001, "unhandled exception in lookup")
	})
}
