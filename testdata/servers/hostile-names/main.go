// Command hostile-names is a raw fixture server whose names and messages
// try every injection a report's readers could fall for: its server name,
// version and tool names hold workflow commands ("\n::error::", "%0A"),
// terminal escapes, @mentions, HTML (<img src=…> for tracking, <details>),
// forged comment markers, Markdown links and table breaks. Every tool
// answers bad input with a JSON-RPC -32603 whose message holds the same
// text (verdict crash: a finding per tool), and a valid call with text.
package main

import (
	"encoding/json"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/rawserver"
)

// evil is the text every name and message carries.
const evil = "\n::error::pwned-by-name\r\n%0A::warning::pct\x1b[31m\x1b]8;;https://evil.example/\x07@octocat @github/everyone " +
	"<img src=\"https://evil.example/track.png\"> <!-- mcp-fuzz:comment --> <!-- mcp-fuzz:section a --> " +
	"[click](https://evil.example/) ![t](https://evil.example/t.png) | col | </details></table>"

// names are the tool names.
var names = []string{
	"::error::tool" + evil,
	"@octocat" + evil,
	"<img src=x onerror=alert(1)>" + evil,
	"%0A::warning::tool" + evil,
	"..%2F..%2Fetc%2Fpasswd" + evil,
}

func main() {
	var tools []any
	for _, n := range names {
		tools = append(tools, rawserver.Tool(n, "A tool."+evil, rawserver.OneString()))
	}
	rawserver.Main(&rawserver.Server{
		Name:    "names" + evil,
		Version: "1.0" + evil,
		Methods: map[string]rawserver.Handler{
			"tools/list": rawserver.ToolsList(tools),
			"tools/call": func(_ *rawserver.Server, req *rawserver.Request) (any, error) {
				p, err := rawserver.DecodeCall(req)
				if err != nil {
					return nil, err
				}
				var args struct {
					Q *string `json:"q"`
				}
				if json.Unmarshal(p.Arguments, &args) == nil && args.Q != nil && *args.Q != "" && len(*args.Q) < 100 {
					return rawserver.Text("ok" + evil), nil
				}
				return nil, &rawserver.Error{Code: -32603, Message: "internal error in " + p.Name + evil}
			},
		},
	})
}
