// Command hostile-binary-stdout is a raw fixture server that, before
// answering any tools/call whose q is not a plain string, writes binary
// garbage to stdout: NUL and other control bytes, terminal escape sequences
// (clear screen, colours, a window title), invalid UTF-8, a bare carriage
// return, half a JSON-RPC frame, the API_TOKEN value, and a 1 MiB line of
// random bytes. Then it answers politely. The valid call gets no garbage.
package main

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/rawserver"
	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/spawn"
)

// garbage returns the lines written before a bad call's answer.
func garbage(rng *rand.Rand) [][]byte {
	random := make([]byte, 1<<20)
	for i := range random {
		random[i] = byte(rng.IntN(256))
	}
	random = bytes.ReplaceAll(random, []byte("\n"), []byte(" "))
	return [][]byte{
		[]byte("\x00\x01\x02\x03\x07\x08\x0b\x0c\x0e\x1f\x7f\n"),
		[]byte("\x1b[2J\x1b[H\x1b[31mRED ALERT\x1b[0m \x1b]0;pwned title\x07 \x1b]8;;https://example.invalid\x07link\x1b]8;;\x07\n"),
		[]byte("\xff\xfe\xc3\x28 invalid utf-8 \xe2\x82 \xf0\x9f\x98\n"),
		[]byte("progress 10%\rprogress 100%\r\n"),
		[]byte(`{"jsonrpc":"2.0","id":` + "\n"),
		[]byte("token " + os.Getenv("API_TOKEN") + " \x1b[8mhidden\x1b[0m\n"),
		append(random, '\n'),
	}
}

func main() {
	spawn.Record("server")
	rng := rand.New(rand.NewPCG(1, 2))
	rawserver.Main(&rawserver.Server{
		Name:    "hostile-binary-stdout",
		Version: "1.0.0",
		Methods: map[string]rawserver.Handler{
			"tools/list": func(*rawserver.Server, *rawserver.Request) (any, error) {
				return map[string]any{"tools": []any{rawserver.PoliteTool("noisy")}}, nil
			},
			"tools/call": func(s *rawserver.Server, req *rawserver.Request) (any, error) {
				p, err := rawserver.DecodeCall(req)
				if err != nil {
					return nil, err
				}
				var args struct {
					Q *string `json:"q"`
				}
				if json.Unmarshal(p.Arguments, &args) != nil || args.Q == nil || len(*args.Q) > 100 {
					for _, line := range garbage(rng) {
						if err := s.SendLine(line); err != nil {
							return nil, err
						}
					}
				}
				return rawserver.PoliteAnswer(p), nil
			},
		},
	})
}
