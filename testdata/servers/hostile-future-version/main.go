// Command hostile-future-version is a raw fixture server that answers
// initialize with protocolVersion "2099-01-01", a revision no client knows,
// whatever the client asked for; otherwise it behaves.
package main

import (
	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/rawserver"
	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/spawn"
)

// Version is the protocol version the server claims.
const Version = "2099-01-01"

func main() {
	spawn.Record("server")
	rawserver.Main(&rawserver.Server{
		Name:    "hostile-future-version",
		Version: "1.0.0",
		Methods: rawserver.PoliteMethods("echo", map[string]rawserver.Handler{
			"initialize": func(*rawserver.Server, *rawserver.Request) (any, error) {
				return map[string]any{
					"protocolVersion": Version,
					"capabilities":    map[string]any{"tools": map[string]any{}},
					"serverInfo":      map[string]any{"name": "hostile-future-version", "version": "1.0.0"},
				}, nil
			},
		}),
	})
}
