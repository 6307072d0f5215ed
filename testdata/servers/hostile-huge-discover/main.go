// Command hostile-huge-discover is a fixture server of the 2025 revisions
// whose answer to server/discover is larger than a client holds: 5 MiB
// (over the default response cap) of instructions in an otherwise sound
// DiscoverResult. With HUGE_DISCOVER=never-ends in its environment the
// answer is 1 MiB without a newline, and nothing more on that line. It
// speaks the initialize handshake and its one tool is well-behaved: a
// client that gives up on the probe has every reason to go on in the
// legacy era.
package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/rawserver"
)

func main() {
	rawserver.Main(&rawserver.Server{
		Name:    "hostile-huge-discover",
		Version: "1.0.0",
		Methods: rawserver.PoliteMethods("echo", map[string]rawserver.Handler{
			"server/discover": func(s *rawserver.Server, req *rawserver.Request) (any, error) {
				size, end := 5<<20, "\"}}\n"
				if os.Getenv("HUGE_DISCOVER") == "never-ends" {
					size, end = 1<<20, ""
				}
				line := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"instructions":"`, req.ID)
				line = append(line, bytes.Repeat([]byte("d"), size)...)
				line = append(line, end...)
				if err := s.SendLine(line); err != nil {
					return nil, err
				}
				return nil, rawserver.ErrAnswered
			},
		}),
	})
}
