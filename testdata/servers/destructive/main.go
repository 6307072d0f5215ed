// Command destructive is a fixture server with one read-only tool
// (lookup_user) and one destructiveHint: true tool (delete_everything), to
// test which tools a run calls.
package main

import (
	"github.com/mcp-fuzz/mcp-fuzz/internal/demo"
	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/sdkserver"
)

func main() {
	sdkserver.Main("destructive", "Fixture: one read-only tool and one destructive tool.",
		demo.AddLookupUser, demo.AddDeleteEverything)
}
