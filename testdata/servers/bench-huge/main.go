// Command bench-huge is a raw fixture server for the benchmarks under bench/:
// one read-only tool, huge, whose first tools/call is answered with a single
// text result of -mb MiB (default 200), streamed in 1 MiB writes so the
// server itself stays small. Every later call gets a short text result. It
// measures what one enormous response costs the client.
package main

import (
	"bytes"
	"flag"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/rawserver"
)

const chunk = 1 << 20

func main() {
	mb := flag.Int("mb", 200, "size of the first answer's text, in MiB")
	flag.Parse()

	sent := false
	rawserver.Main(&rawserver.Server{
		Name:    "bench-huge",
		Version: "1.0.0",
		Methods: map[string]rawserver.Handler{
			"tools/list": func(*rawserver.Server, *rawserver.Request) (any, error) {
				return map[string]any{"tools": []any{
					rawserver.Tool("huge", "Answer the first call with one enormous text.", rawserver.OneString()),
				}}, nil
			},
			"tools/call": func(s *rawserver.Server, req *rawserver.Request) (any, error) {
				if sent {
					return rawserver.Text("small"), nil
				}
				sent = true
				if err := sendHuge(s, req.ID, *mb); err != nil {
					return nil, err // the pipe is gone: the error answer fails too and ends Serve
				}
				return nil, rawserver.ErrAnswered
			},
		},
	})
}

// sendHuge writes one response to id whose text is mb MiB of 'a', in 1 MiB
// writes.
func sendHuge(s *rawserver.Server, id []byte, mb int) error {
	var head bytes.Buffer
	head.WriteString(`{"jsonrpc":"2.0","id":`)
	head.Write(id)
	head.WriteString(`,"result":{"content":[{"type":"text","text":"`)
	if err := s.SendLine(head.Bytes()); err != nil {
		return err
	}
	body := bytes.Repeat([]byte("a"), chunk)
	for range mb {
		if err := s.SendLine(body); err != nil {
			return err
		}
	}
	return s.SendLine([]byte("\"}]}}\n"))
}
