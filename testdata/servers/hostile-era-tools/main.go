// Command hostile-era-tools is a raw fixture server that speaks both
// protocol eras and breaks only in the legacy one, where a run of one era
// would catch it and an --era both run that compared only what the eras
// share would not. Its tools/list differs by era: the modern era (a request
// with the stateless envelope of the 2026-07-28 revision) lists echo; the
// legacy era (after the initialize handshake) lists echo and legacy_echo.
// Both take a required string q. In the modern era echo answers a bad input
// with an isError result; in the legacy era both tools exit, without an
// answer, on any input whose q is not a string.
package main

import (
	"encoding/json"
	"os"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/rawserver"
	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/spawn"
)

// Version is the stateless protocol version the server speaks.
const Version = "2026-07-28"

// modern reports whether req carries the stateless envelope.
func modern(req *rawserver.Request) bool { return rawserver.HasEnvelope(req, Version) }

// call answers tools/call: politely in the modern era; in the legacy one,
// a bad q ends the process.
func call(_ *rawserver.Server, req *rawserver.Request) (any, error) {
	p, err := rawserver.DecodeCall(req)
	if err != nil {
		return nil, err
	}
	switch {
	case p.Name == "echo" && modern(req):
		return rawserver.PoliteAnswer(p), nil
	case p.Name != "echo" && p.Name != "legacy_echo" || modern(req):
		return nil, rawserver.UnknownTool(p.Name)
	}
	var args struct {
		Q *string `json:"q"`
	}
	if json.Unmarshal(p.Arguments, &args) != nil || args.Q == nil {
		os.Exit(3)
	}
	return rawserver.Text("answered " + p.Name), nil
}

func main() {
	spawn.Record("server")
	rawserver.Main(&rawserver.Server{
		Name:    "hostile-era-tools",
		Version: "1.0.0",
		Methods: map[string]rawserver.Handler{
			"server/discover": rawserver.Discover(Version),
			"tools/list": func(_ *rawserver.Server, req *rawserver.Request) (any, error) {
				tools := []any{rawserver.PoliteTool("echo")}
				if !modern(req) {
					tools = append(tools, rawserver.PoliteTool("legacy_echo"))
				}
				return map[string]any{"tools": tools}, nil
			},
			"tools/call": call,
		},
	})
}
