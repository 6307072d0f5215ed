// Command legacy-only is a raw fixture server of the 2025 revisions only:
// it answers server/discover with -32601 (method not found), as the
// TypeScript SDK's servers do, and speaks the initialize handshake; its one
// tool is well-behaved.
package main

import (
	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/rawserver"
	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/spawn"
)

func main() {
	spawn.Record("server")
	rawserver.Main(&rawserver.Server{
		Name:    "legacy-only",
		Version: "1.0.0",
		Methods: rawserver.PoliteMethods("echo", nil),
	})
}
