// Command concurrency-swapped-ids is a raw fixture server that mixes up
// requests in flight together: requests that arrive within a moment of
// each other are answered as a batch, each answer under the id of the next
// request of the batch (the last under the first's). One request at a
// time, every answer is right. Any fixture is its clean twin.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/rawserver"
)

// window is how long the server waits for more requests after one came.
const window = 30 * time.Millisecond

type request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

func main() {
	srv := &rawserver.Server{Name: "concurrency-swapped-ids", Version: "1.0.0"}
	lines := make(chan []byte)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			lines <- append([]byte(nil), sc.Bytes()...)
		}
	}()
	for line := range lines {
		batch := requests(nil, line)
		for more := true; more; {
			select {
			case l, ok := <-lines:
				if !ok {
					more = false
					break
				}
				batch = requests(batch, l)
			case <-time.After(window):
				more = false
			}
		}
		for i, req := range batch {
			id := batch[(i+1)%len(batch)].ID
			frame := map[string]any{"jsonrpc": "2.0", "id": id}
			if result, err := answer(srv, req); err != nil {
				frame["error"] = err
			} else {
				frame["result"] = result
			}
			data, _ := json.Marshal(frame)
			if _, err := os.Stdout.Write(append(data, '\n')); err != nil {
				os.Exit(1)
			}
		}
	}
}

// requests adds line to batch when it is a request (notifications and
// junk need no answer).
func requests(batch []request, line []byte) []request {
	var r request
	if json.Unmarshal(line, &r) != nil || r.Method == "" || len(r.ID) == 0 || string(r.ID) == "null" {
		return batch
	}
	return append(batch, r)
}

func answer(srv *rawserver.Server, req request) (any, *rawserver.Error) {
	switch req.Method {
	case "initialize":
		return srv.Initialize(req.Params), nil
	case "ping":
		return struct{}{}, nil
	case "tools/list":
		return map[string]any{"tools": []any{rawserver.PoliteTool("echo")}}, nil
	case "tools/call":
		var p rawserver.CallParams
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, &rawserver.Error{Code: -32602, Message: "invalid tools/call params"}
		}
		if p.Name != "echo" {
			return nil, &rawserver.Error{Code: -32602, Message: fmt.Sprintf("unknown tool %q", p.Name)}
		}
		return rawserver.PoliteAnswer(&p), nil
	}
	return nil, &rawserver.Error{Code: -32601, Message: "method not found"}
}
