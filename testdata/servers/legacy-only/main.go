// Command legacy-only is a raw fixture server of the 2025 revisions only:
// it answers server/discover with -32601 (method not found), as the
// TypeScript SDK's servers do, and speaks the initialize handshake; its one
// tool is well-behaved. With LEGACY_ONLY_DIE=1 in its environment it
// exits instead, as soon as it is asked server/discover.
package main

import (
	"os"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/rawserver"
	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/spawn"
)

func main() {
	spawn.Record("server")
	rawserver.Main(&rawserver.Server{
		Name:    "legacy-only",
		Version: "1.0.0",
		Methods: rawserver.PoliteMethods("echo", map[string]rawserver.Handler{
			"server/discover": func(*rawserver.Server, *rawserver.Request) (any, error) {
				if os.Getenv("LEGACY_ONLY_DIE") == "1" {
					os.Exit(2)
				}
				return nil, &rawserver.Error{Code: -32601, Message: "method not found: \"server/discover\""}
			},
		}),
	})
}
