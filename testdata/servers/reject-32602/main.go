// Command reject-32602 is a fixture server whose strict_search answers every
// bad input with JSON-RPC error -32602: verdict rejected.
package main

import (
	"github.com/mcp-fuzz/mcp-fuzz/internal/demo"
	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/sdkserver"
)

func main() {
	sdkserver.Main("reject-32602", "Fixture: strict_search rejects bad input with -32602.", demo.AddStrictSearch)
}
