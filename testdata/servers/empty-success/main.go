// Command empty-success is a fixture server whose list_items answers the
// valid call with empty content and no structured content: verdict
// empty_success.
package main

import (
	"github.com/mcp-fuzz/mcp-fuzz/internal/demo"
	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/sdkserver"
)

func main() {
	sdkserver.Main("empty-success", "Fixture: list_items succeeds with nothing in the result.", demo.AddListItems)
}
