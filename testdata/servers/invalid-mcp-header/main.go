// Command invalid-mcp-header is a raw fixture server (stdio, 2025 era)
// whose one read-only tool, price_of, puts x-mcp-header on a number
// property: an invalid definition for Streamable HTTP clients, which stdio
// clients may ignore. Every tools/call is answered with a text result.
package main

import (
	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/rawserver"
)

func main() {
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"price": map[string]any{"type": "number", "description": "A price.", "x-mcp-header": "Price"},
		},
		"required": []string{"price"},
	}
	rawserver.Main(&rawserver.Server{
		Name:    "invalid-mcp-header",
		Version: "1.0.0",
		Methods: map[string]rawserver.Handler{
			"tools/list": func(*rawserver.Server, *rawserver.Request) (any, error) {
				return map[string]any{"tools": []any{rawserver.Tool("price_of", "Prices a thing, with a header on a number.", schema)}}, nil
			},
			"tools/call": func(*rawserver.Server, *rawserver.Request) (any, error) {
				return rawserver.Text("ok"), nil
			},
		},
	})
}
