// Command internal-error is a fixture server whose parse_date panics on bad
// input; the panic is recovered and answered as JSON-RPC error -32603:
// verdict crash (internal_error).
package main

import (
	"github.com/mcp-fuzz/mcp-fuzz/internal/demo"
	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/sdkserver"
)

func main() {
	sdkserver.Main("internal-error", "Fixture: parse_date panics on bad input and answers -32603.", demo.AddParseDate)
}
