// Command app-error is a fixture server whose lookup answers bad input with an
// application-defined JSON-RPC error code (4001): a refusal, verdict rejected.
package main

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/sdkserver"
)

func main() {
	sdkserver.Main("app-error", "Fixture: application error code 4001 on bad input.", func(s *mcp.Server) {
		sdkserver.AddErrorCodeTool(s, "lookup", 4001, "lookup needs one name of at most 20 characters")
	})
}
