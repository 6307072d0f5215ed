// Command stdout-garbage is a fixture server whose debug_status writes the
// non-JSON line "DEBUG: status called" to stdout before every answer:
// verdict protocol_violation.
package main

import (
	"github.com/mcp-fuzz/mcp-fuzz/internal/demo"
	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/sdkserver"
)

func main() {
	sdkserver.Main("stdout-garbage", "Fixture: debug_status prints a debug line on stdout.", demo.AddDebugStatus)
}
