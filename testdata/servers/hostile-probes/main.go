// Command hostile-probes is a raw fixture server of the 2025 revisions whose
// one polite tool, echo, answers well, and whose answers to the requests
// only the protocol probes (--protocol) and the resources and prompts
// checks send attack the client. -mode chooses how:
//
//   - notify-answer: a request without an id (a notification) is answered,
//     under id null, then under the id of the request before it;
//   - huge: every probe is refused with an 8 MiB error message;
//   - flood: every probe is preceded by 20,000 notifications carrying the
//     API_TOKEN value;
//   - other-id: every probe is answered under the id of the request before
//     it (which was answered already);
//   - close-stdout: after the first probe, the server closes its stdout
//     and goes on living, reading its input.
//
// Probes are any request but initialize, tools/list without params that
// are an array, tools/call of echo and ping. It declares resources and
// prompts, lists one template and one prompt with a required argument.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/rawserver"
)

var (
	mode   = flag.String("mode", "notify-answer", "notify-answer, huge, flood, other-id or close-stdout")
	outMu  sync.Mutex
	out    = os.Stdout
	closed bool
)

func send(v any) {
	b, _ := json.Marshal(v)
	outMu.Lock()
	defer outMu.Unlock()
	if !closed {
		_, _ = out.Write(append(b, '\n'))
	}
}

type msg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

func main() {
	flag.Parse()
	srv := &rawserver.Server{Name: "hostile-probes", Version: "1.0.0",
		Capabilities: map[string]any{"tools": map[string]any{}, "resources": map[string]any{}, "prompts": map[string]any{}}}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var prev json.RawMessage
	for sc.Scan() {
		var m msg
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.Method == "" {
			continue
		}
		isNotify := len(m.ID) == 0 || string(m.ID) == "null"
		if isNotify && !(m.Method == "tools/list" && *mode == "notify-answer") {
			continue
		}
		if res, ok := ordinary(srv, m); ok {
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": res})
			prev = m.ID
			continue
		}
		// A probe.
		id := m.ID
		errObj := map[string]any{"code": -32601, "message": "no: " + m.Method}
		switch *mode {
		case "notify-answer":
			if isNotify {
				send(map[string]any{"jsonrpc": "2.0", "id": nil, "result": map[string]any{"tools": []any{}}})
				if prev != nil {
					send(map[string]any{"jsonrpc": "2.0", "id": prev, "result": map[string]any{"tools": []any{}}})
				}
				continue
			}
		case "huge":
			errObj["message"] = strings.Repeat("x", 8<<20)
		case "flood":
			tok := os.Getenv("API_TOKEN")
			for i := 0; i < 20000; i++ {
				send(map[string]any{"jsonrpc": "2.0", "method": "notifications/message", "params": map[string]any{"level": "info", "data": "token " + tok}})
			}
		case "other-id":
			if prev != nil {
				id = prev
			}
		case "close-stdout":
			outMu.Lock()
			closed = true
			_ = out.Close()
			outMu.Unlock()
		}
		send(map[string]any{"jsonrpc": "2.0", "id": id, "error": errObj})
		prev = m.ID
	}
	if closed {
		time.Sleep(2 * time.Second)
	}
}

// ordinary answers the requests that are not probes.
func ordinary(srv *rawserver.Server, m msg) (any, bool) {
	switch m.Method {
	case "initialize":
		return srv.Initialize(m.Params), true
	case "ping":
		return map[string]any{}, true
	case "tools/list":
		if strings.HasPrefix(strings.TrimSpace(string(m.Params)), "[") || strings.Contains(string(m.Params), "cursor") {
			return nil, false
		}
		return map[string]any{"tools": []any{rawserver.PoliteTool("echo")}}, true
	case "resources/list":
		return map[string]any{"resources": []any{}}, true
	case "resources/templates/list":
		return map[string]any{"resourceTemplates": []any{map[string]any{"uriTemplate": "note://{id}", "name": "note"}}}, true
	case "prompts/list":
		return map[string]any{"prompts": []any{map[string]any{"name": "greet", "arguments": []any{map[string]any{"name": "who", "required": true}}}}}, true
	case "tools/call":
		var p rawserver.CallParams
		if json.Unmarshal(m.Params, &p) == nil && p.Name == "echo" {
			return rawserver.PoliteAnswer(&p), true
		}
	}
	return nil, false
}
