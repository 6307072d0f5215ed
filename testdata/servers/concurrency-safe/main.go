// Command concurrency-safe is the clean twin of concurrency-race: the same
// tool, reserve, which works for the same moment on state of its own
// process, so that calls from several processes at once all succeed.
package main

import (
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/rawserver"
)

// work is as long as concurrency-race's.
const work = 300 * time.Millisecond

func main() {
	rawserver.Main(&rawserver.Server{
		Name:    "concurrency-safe",
		Version: "1.0.0",
		Methods: rawserver.PoliteMethods("reserve", map[string]rawserver.Handler{
			"tools/call": func(_ *rawserver.Server, req *rawserver.Request) (any, error) {
				p, err := rawserver.DecodeCall(req)
				if err != nil {
					return nil, err
				}
				answer := rawserver.PoliteAnswer(p)
				if answer["isError"] == nil {
					time.Sleep(work)
				}
				return answer, nil
			},
		}),
	})
}
