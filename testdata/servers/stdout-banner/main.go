// Command stdout-banner is a fixture server that prints a banner line on
// stdout before it serves, as `sh -c 'echo banner; exec node server.js'`
// does: a protocol violation before initialize, outside any tool call.
// The banner quotes API_TOKEN's value when it is set, for a client that
// must redact it; -lines N prints it N times (a flood must stay bounded).
// Its one tool, lookup, is well-behaved.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
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
	lines := flag.Int("lines", 1, "how many times to print the banner")
	flag.Parse()
	w := bufio.NewWriter(os.Stdout)
	for i := 0; i < *lines; i++ {
		fmt.Fprintln(w, banner)
	}
	if err := w.Flush(); err != nil {
		os.Exit(1)
	}
	sdkserver.Main("stdout-banner", "Fixture: a banner on stdout before serving.", func(s *mcp.Server) {
		sdkserver.AddNameTool(s, "lookup", func(_ context.Context, valid bool, _ json.RawMessage) (*mcp.CallToolResult, error) {
			if !valid {
				return sdkserver.ToolError("lookup needs one name"), nil
			}
			return sdkserver.Text("found"), nil
		})
	})
}
