// Command hostile-huge-answers is a fixture server whose answers are larger
// than any sane client holds: each tool answers every call with 1 MiB, as a
// result (huge_ok), a result with isError (huge_iserror), a JSON-RPC -32602
// error whose message is the bulk (huge_reject), with "id" last as the
// TypeScript SDK writes it (huge_id_last), or a line that never ends
// (never_ends: 256 KiB without a newline, then silence on that call; the
// server still reads its input), or a 1 MiB answer with "jsonrpc":"1.0"
// (huge_bad_version: a protocol violation at any size). A client with a smaller response cap must
// judge each from what it could scan, in bounded memory.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/rawserver"
)

const size = 1 << 20

func main() {
	tools := []any{}
	for _, n := range []string{"huge_ok", "huge_iserror", "huge_reject", "huge_id_last", "never_ends", "huge_bad_version"} {
		tools = append(tools, rawserver.Tool(n, "Answer with more than a client should read.", rawserver.OneString()))
	}
	bulk := bytes.Repeat([]byte("a"), size)
	rawserver.Main(&rawserver.Server{
		Name:    "hostile-huge-answers",
		Version: "1.0.0",
		Methods: map[string]rawserver.Handler{
			"tools/list": rawserver.ToolsList(tools),
			"tools/call": func(s *rawserver.Server, req *rawserver.Request) (any, error) {
				p, err := rawserver.DecodeCall(req)
				if err != nil {
					return nil, err
				}
				var line []byte
				id := string(req.ID)
				switch p.Name {
				case "huge_ok":
					line = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"%s"}]}}`+"\n", id, bulk)
				case "huge_iserror":
					line = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"%s"}],"isError":true}}`+"\n", id, bulk)
				case "huge_reject":
					line = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"%s"}}`+"\n", id, bulk)
				case "huge_id_last":
					text, _ := json.Marshal(string(bulk) + `"},"id":999,"x":"`) // an id-like text inside a string
					line = fmt.Appendf(nil, `{"result":{"content":[{"type":"text","text":%s}]},"jsonrpc":"2.0","id":%s}`+"\n", text, id)
				case "huge_bad_version":
					line = fmt.Appendf(nil, `{"jsonrpc":"1.0","id":%s,"result":{"content":[{"type":"text","text":"%s"}]}}`+"\n", id, bulk)
				case "never_ends":
					line = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"%s`, id, bulk[:256<<10])
				default:
					return nil, rawserver.UnknownTool(p.Name)
				}
				if err := s.SendLine(line); err != nil {
					return nil, err
				}
				return nil, rawserver.ErrAnswered
			},
		},
	})
}
