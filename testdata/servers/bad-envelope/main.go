// Command bad-envelope is a raw fixture server whose tools/call answers break
// the JSON-RPC or MCP envelope (verdict protocol_violation):
//   - broken_reply answers with a result that is not a CallToolResult
//     ({"content": "oops"});
//   - stray_reply first sends a response to id 987654321, which was never
//     used, then answers properly;
//   - bad_version_reply answers with "jsonrpc": "1.0".
package main

import (
	"encoding/json"
	"fmt"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/rawserver"
)

// strayID is the id of the response stray_reply sends unasked.
const strayID = 987654321

var tools = []any{
	rawserver.Tool("broken_reply", "Answer with a result whose content is a string, not a list.", rawserver.OneString()),
	rawserver.Tool("stray_reply", "Send a response to a request id that was never used, then answer.", rawserver.OneString()),
	rawserver.Tool("bad_version_reply", "Answer with a JSON-RPC 1.0 version tag.", rawserver.OneString()),
}

func call(s *rawserver.Server, req *rawserver.Request) (any, error) {
	p, err := rawserver.DecodeCall(req)
	if err != nil {
		return nil, err
	}
	switch p.Name {
	case "broken_reply":
		return map[string]any{"content": "oops"}, nil
	case "stray_reply":
		if err := s.Send(map[string]any{"jsonrpc": "2.0", "id": strayID, "result": rawserver.Text("stray")}); err != nil {
			return nil, err
		}
		return rawserver.Text("stray_reply answered"), nil
	case "bad_version_reply":
		result, _ := json.Marshal(rawserver.Text("bad_version_reply answered"))
		line := fmt.Sprintf(`{"jsonrpc":"1.0","id":%s,"result":%s}`+"\n", req.ID, result)
		if err := s.SendLine([]byte(line)); err != nil {
			return nil, err
		}
		return nil, rawserver.ErrAnswered
	}
	return nil, rawserver.UnknownTool(p.Name)
}

func main() {
	rawserver.Main(&rawserver.Server{
		Name:         "bad-envelope",
		Version:      "1.0.0",
		Instructions: "Fixture: tools/call answers with broken envelopes.",
		Methods: map[string]rawserver.Handler{
			"tools/list": rawserver.ToolsList(tools),
			"tools/call": call,
		},
	})
}
