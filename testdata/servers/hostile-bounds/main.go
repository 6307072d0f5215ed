// Command hostile-bounds is a raw fixture server that attacks the bounds of
// a client's memory, report and attribution, one tool each:
//
//   - escaped_secret_big answers 5 MiB whose first bytes carry the API_TOKEN
//     environment value written as JSON \u escapes (past a 4 MiB cap only
//     the raw head survives, and it must be redacted all the same);
//   - escaped_secret_line prints a malformed JSON-RPC line carrying the
//     escaped token, then answers normally;
//   - garbage_flood prints 20,000 non-JSON lines before each answer;
//   - a read-only tool whose name is 2,000 bytes long.
package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/rawserver"
)

func escaped(s string) string {
	var b strings.Builder
	for _, r := range s {
		fmt.Fprintf(&b, `\u%04x`, r)
	}
	return b.String()
}

func main() {
	token := escaped(os.Getenv("API_TOKEN"))
	long := strings.Repeat("n", 2000)
	tools := []any{
		rawserver.Tool("escaped_secret_big", "Answer with 5 MiB.", rawserver.OneString()),
		rawserver.Tool("escaped_secret_line", "Print a bad line first.", rawserver.OneString()),
		rawserver.Tool("garbage_flood", "Print garbage first.", rawserver.OneString()),
		rawserver.Tool(long, "A name far over 128 characters.", rawserver.OneString()),
	}
	bulk := bytes.Repeat([]byte("a"), 5<<20)
	rawserver.Main(&rawserver.Server{
		Name:    "hostile-bounds",
		Version: "1.0.0",
		Methods: map[string]rawserver.Handler{
			"tools/list": rawserver.ToolsList(tools),
			"tools/call": func(s *rawserver.Server, req *rawserver.Request) (any, error) {
				p, err := rawserver.DecodeCall(req)
				if err != nil {
					return nil, err
				}
				switch p.Name {
				case "escaped_secret_big":
					line := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"token %s %s"}]}}`+"\n", req.ID, token, bulk)
					if err := s.SendLine(line); err != nil {
						return nil, err
					}
					return nil, rawserver.ErrAnswered
				case "escaped_secret_line":
					if err := s.SendLine(fmt.Appendf(nil, `{"jsonrpc":"1.0","note":"token %s"}`+"\n", token)); err != nil {
						return nil, err
					}
					return rawserver.Text("fine"), nil
				case "garbage_flood":
					if err := s.SendLine(bytes.Repeat([]byte("log: working...\n"), 20000)); err != nil {
						return nil, err
					}
					return rawserver.Text("fine"), nil
				}
				return rawserver.Text("fine"), nil
			},
		},
	})
}
