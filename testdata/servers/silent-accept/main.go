// Command silent-accept is a fixture server whose echo_note succeeds on any
// arguments, even those its schema forbids: verdict accepted.
package main

import (
	"github.com/mcp-fuzz/mcp-fuzz/internal/demo"
	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/sdkserver"
)

func main() {
	sdkserver.Main("silent-accept", "Fixture: echo_note accepts anything.", demo.AddEchoNote)
}
