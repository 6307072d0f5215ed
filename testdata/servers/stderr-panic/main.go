// Command stderr-panic is a fixture server that prints a Go panic to stderr on
// bad input and still answers with isError (verdict handled, flag
// stderr_panic).
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
	sdkserver.Main("stderr-panic", "Fixture: panic text on stderr on bad input.", func(s *mcp.Server) {
		sdkserver.AddNameTool(s, "lookup", func(_ context.Context, valid bool, _ json.RawMessage) (*mcp.CallToolResult, error) {
			if !valid {
				fmt.Fprintln(os.Stderr, "panic: runtime error: index out of range [1] with length 1 (recovered)")
				return sdkserver.ToolError("lookup needs one name of at most 20 characters"), nil
			}
			return sdkserver.Text("found"), nil
		})
	})
}
