// Command hostile-workflow is a raw fixture server whose text tries the
// workflow commands a plain "never start a line with server text" rule
// misses: the GitHub Actions runner also reads "::" after leading white
// space (a wrapped or indented line), and the older "##[error]" form
// anywhere in a line. Its tool names and messages are long runs of words
// that a wrap breaks right before "::error::", hold "##[error]",
// "##[add-mask]" and "##[stop-commands]", and start with white space the
// runner trims (an em space). Every tool answers bad input with a
// JSON-RPC -32603 quoting its name (verdict crash: a finding per tool,
// and the gate fails), and a valid call with text.
package main

import (
	"encoding/json"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/rawserver"
)

// words pad a text so that some wrap width puts the command at the start
// of a continuation line; every count from 0 to 80 is tried by the
// descriptions and messages below.
func words(n int) string { return strings.Repeat("w ", n) }

const legacy = " ##[error]pwned-legacy ##[add-mask]x ##[stop-commands]tok "

// names are the tool names.
var names = []string{
	"\u2003::error::pwned-emspace",
	"##[error]pwned-legacy-tool",
	"t" + legacy,
	"wrap" + words(30) + "::error::pwned-wrap",
}

func main() {
	var tools []any
	for i, n := range names {
		desc := "A tool. " + words(i*7) + "::error::pwned-desc" + legacy
		tools = append(tools, rawserver.Tool(n, desc, rawserver.OneString()))
	}
	rawserver.Main(&rawserver.Server{
		Name:    "\u2003::error::pwned-server" + legacy,
		Version: "1.0" + legacy,
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
					return rawserver.Text("ok " + legacy), nil
				}
				msg := "internal error: "
				for i := range 80 {
					msg += words(i) + "::error::pwned-msg "
				}
				return nil, &rawserver.Error{Code: -32603, Message: msg + p.Name + legacy}
			},
		},
	})
}
