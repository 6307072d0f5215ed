// Command legacy-only is a raw fixture server of the 2025 revisions only:
// it answers server/discover with -32601 (method not found), as the
// TypeScript SDK's servers do, and speaks the initialize handshake; its one
// tool is well-behaved. With LEGACY_ONLY_DIE=1 in its environment it
// exits instead, as soon as it is asked server/discover. With
// LEGACY_ONLY_DISCOVER=claims it answers server/discover as a server of
// both eras would, yet refuses every other request until initialize
// (-32600): a server that claims the stateless era but needs the
// handshake.
package main

import (
	"os"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/rawserver"
	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/spawn"
)

func main() {
	spawn.Record("server")
	claims := os.Getenv("LEGACY_ONLY_DISCOVER") == "claims"
	initialized := false
	methods := rawserver.PoliteMethods("echo", map[string]rawserver.Handler{
		"server/discover": func(*rawserver.Server, *rawserver.Request) (any, error) {
			if os.Getenv("LEGACY_ONLY_DIE") == "1" {
				os.Exit(2)
			}
			if claims {
				return map[string]any{
					"resultType":        "complete",
					"supportedVersions": []string{"2026-07-28", "2025-11-25"},
					"capabilities":      map[string]any{"tools": map[string]any{}},
				}, nil
			}
			return nil, &rawserver.Error{Code: -32601, Message: "method not found: \"server/discover\""}
		},
		"initialize": func(s *rawserver.Server, req *rawserver.Request) (any, error) {
			initialized = true
			return s.Initialize(req.Params), nil
		},
	})
	if claims {
		for name, h := range methods {
			if name == "server/discover" || name == "initialize" {
				continue
			}
			methods[name] = func(s *rawserver.Server, req *rawserver.Request) (any, error) {
				if !initialized {
					return nil, &rawserver.Error{Code: -32600, Message: "the session is not initialized: send initialize first"}
				}
				return h(s, req)
			}
		}
	}
	rawserver.Main(&rawserver.Server{Name: "legacy-only", Version: "1.0.0", Methods: methods})
}
