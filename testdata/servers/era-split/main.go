// Command era-split is a raw fixture server that speaks both protocol
// eras and validates in only one of them: a tools/call that carries the
// stateless envelope (the 2026-07-28 revision, after server/discover) has
// its arguments checked, and bad ones are refused with -32602; the same
// call after the initialize handshake (the 2025 revisions) is answered as
// a success whatever its arguments. The forbidden inputs an --era both run
// sends are rejected in the modern era and accepted in the legacy one: one
// era_difference finding each. Its one tool, echo, takes a required
// string q.
package main

import (
	"encoding/json"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/rawserver"
	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/spawn"
)

// Version is the stateless protocol version the server speaks.
const Version = "2026-07-28"

// modern reports whether req carries the stateless envelope.
func modern(req *rawserver.Request) bool { return rawserver.HasEnvelope(req, Version) }

// call answers tools/call: checked in the modern era, not in the legacy one.
func call(_ *rawserver.Server, req *rawserver.Request) (any, error) {
	p, err := rawserver.DecodeCall(req)
	if err != nil {
		return nil, err
	}
	if p.Name != "echo" {
		return nil, rawserver.UnknownTool(p.Name)
	}
	if !modern(req) {
		return rawserver.Text("answered echo"), nil
	}
	var args struct {
		Q *string `json:"q"`
	}
	if json.Unmarshal(p.Arguments, &args) != nil || args.Q == nil {
		return nil, &rawserver.Error{Code: -32602, Message: `invalid params: "q" is required and must be a string`}
	}
	return rawserver.Text("answered echo"), nil
}

func main() {
	spawn.Record("server")
	echo := rawserver.PoliteTool("echo")
	rawserver.Main(&rawserver.Server{
		Name:    "era-split",
		Version: "1.0.0",
		Methods: map[string]rawserver.Handler{
			"server/discover": rawserver.Discover(Version),
			"tools/list": func(*rawserver.Server, *rawserver.Request) (any, error) {
				return map[string]any{"tools": []any{echo}}, nil
			},
			"tools/call": call,
		},
	})
}
