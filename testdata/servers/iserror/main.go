// Command iserror is a fixture server whose lookup_user answers every bad
// input with isError: true and a helpful message: verdict handled.
package main

import (
	"github.com/mcp-fuzz/mcp-fuzz/internal/demo"
	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/sdkserver"
)

func main() {
	sdkserver.Main("iserror", "Fixture: lookup_user answers bad input with isError.", demo.AddLookupUser)
}
