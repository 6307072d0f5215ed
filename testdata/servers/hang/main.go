// Command hang is a fixture server whose slow_lookup never answers bad input
// and ignores cancellation: verdict hang. Valid input is answered at once.
package main

import (
	"github.com/mcp-fuzz/mcp-fuzz/internal/demo"
	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/sdkserver"
)

func main() {
	sdkserver.Main("hang", "Fixture: slow_lookup blocks forever on bad input.", demo.AddSlowLookup)
}
