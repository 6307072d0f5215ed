// Command concurrency-race is a raw fixture server whose one tool, reserve,
// keeps shared state without a lock: a call claims the file "reserve.busy"
// in the working directory, works for a moment, and gives it back. A call
// that finds the file taken answers isError ("busy"): alone, every call
// succeeds; called from several processes at once, all but one fail.
//
// With --safe it is its clean twin: the same tool works for the same
// moment on state of its own process, so that calls from several
// processes at once all succeed.
package main

import (
	"errors"
	"os"
	"slices"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/rawserver"
)

// work is how long a call holds the shared state: long enough for calls
// sent together to overlap.
const work = 300 * time.Millisecond

// safe is set by --safe: no state is shared between processes.
var safe = slices.Contains(os.Args[1:], "--safe")

func main() {
	rawserver.Main(&rawserver.Server{
		Name:    "concurrency-race",
		Version: "1.0.0",
		Methods: rawserver.PoliteMethods("reserve", map[string]rawserver.Handler{
			"tools/call": func(_ *rawserver.Server, req *rawserver.Request) (any, error) {
				p, err := rawserver.DecodeCall(req)
				if err != nil {
					return nil, err
				}
				answer := rawserver.PoliteAnswer(p)
				if answer["isError"] != nil {
					return answer, nil
				}
				if safe {
					time.Sleep(work)
					return answer, nil
				}
				f, err := os.OpenFile("reserve.busy", os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
				if errors.Is(err, os.ErrExist) {
					r := rawserver.ErrorText("busy: another call holds the reservation")
					return r, nil
				} else if err != nil {
					return nil, err
				}
				f.Close()
				time.Sleep(work)
				os.Remove("reserve.busy")
				return answer, nil
			},
		}),
	})
}
