package hostile

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// rpcMsg is one JSON-RPC message as a raw server reads it.
type rpcMsg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
}

// mcpHTTP is a raw Streamable HTTP MCP server on 127.0.0.1 with one polite
// tool, "echo" (a required string q), whose hooks replace the parts that
// misbehave. Every hook that answers slowly or forever must return when
// r.Context() or stop is done.
type mcpHTTP struct {
	// answer writes the whole HTTP answer to a request; nil, or a false
	// return, means the polite answer.
	answer func(w http.ResponseWriter, r *http.Request, m rpcMsg) bool
	// header, if set, may set headers on every answer.
	header func(w http.ResponseWriter)

	stop chan struct{} // closed when the test ends

	mu   sync.Mutex
	seen []string // every request header value received, "Name: value"
}

// start serves h on 127.0.0.1 until the test ends and returns its MCP URL.
func (h *mcpHTTP) start(t *testing.T) string {
	t.Helper()
	h.stop = make(chan struct{})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		close(h.stop)
		srv.CloseClientConnections()
	})
	return srv.URL + "/mcp"
}

// headers returns every header value the server received.
func (h *mcpHTTP) headers() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.seen...)
}

func (h *mcpHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	for name, vs := range r.Header {
		for _, v := range vs {
			h.seen = append(h.seen, name+": "+v)
		}
	}
	h.mu.Unlock()
	if h.header != nil {
		h.header(w)
	}
	switch r.Method {
	case http.MethodPost:
	case http.MethodDelete:
		w.WriteHeader(http.StatusOK)
		return
	default:
		if h.answer == nil || !h.answer(w, r, rpcMsg{}) {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		}
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		http.Error(w, "reading body", http.StatusBadRequest)
		return
	}
	var m rpcMsg
	if err := json.Unmarshal(body, &m); err != nil {
		http.Error(w, "not one JSON-RPC message", http.StatusBadRequest)
		return
	}
	if h.answer != nil && h.answer(w, r, m) {
		return
	}
	if m.Method == "" || m.ID == nil { // a response or a notification
		w.WriteHeader(http.StatusAccepted)
		return
	}
	writeJSON(w, m.ID, politeResult(m), nil)
}

// politeResult is the polite server's result for a request.
func politeResult(m rpcMsg) any {
	switch m.Method {
	case "initialize":
		return map[string]any{
			"protocolVersion": "2025-06-18",
			"capabilities":    map[string]any{"tools": map[string]any{}},
			"serverInfo":      map[string]any{"name": "hostile-http", "version": "1.0.0"},
		}
	case "tools/list":
		return map[string]any{"tools": []any{map[string]any{
			"name":        "echo",
			"description": "Answer the text q back; a well-behaved tool.",
			"inputSchema": map[string]any{
				"type":       "object",
				"properties": map[string]any{"q": map[string]any{"type": "string", "description": "Any text."}},
				"required":   []string{"q"},
			},
			"annotations": map[string]any{"readOnlyHint": true},
		}}}
	case "tools/call":
		var p struct {
			Arguments struct {
				Q *string `json:"q"`
			} `json:"arguments"`
		}
		if json.Unmarshal(m.Params, &p) != nil || p.Arguments.Q == nil {
			return toolText(`"q" is required and must be a string`, true)
		}
		return toolText("answered", false)
	}
	return map[string]any{}
}

func toolText(s string, isError bool) map[string]any {
	return map[string]any{"content": []any{map[string]any{"type": "text", "text": s}}, "isError": isError}
}

// frame encodes a JSON-RPC response.
func frame(id json.RawMessage, result any, rpcErr any) []byte {
	msg := map[string]any{"jsonrpc": "2.0", "id": id}
	if rpcErr != nil {
		msg["error"] = rpcErr
	} else {
		msg["result"] = result
	}
	b, _ := json.Marshal(msg)
	return b
}

func writeJSON(w http.ResponseWriter, id json.RawMessage, result any, rpcErr any) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(frame(id, result, rpcErr))
}

// isValidCall reports whether m is a tools/call whose q is a string.
func isValidCall(m rpcMsg) bool {
	var p struct {
		Arguments map[string]json.RawMessage `json:"arguments"`
	}
	if m.Method != "tools/call" || json.Unmarshal(m.Params, &p) != nil {
		return false
	}
	q := p.Arguments["q"]
	return len(q) > 0 && q[0] == '"'
}

// pause waits d, and reports false when the client or the test is gone.
func (h *mcpHTTP) pause(r *http.Request, d time.Duration) bool {
	select {
	case <-r.Context().Done():
		return false
	case <-h.stop:
		return false
	case <-time.After(d):
		return true
	}
}

// trickle writes body one byte a second.
func (h *mcpHTTP) trickle(w http.ResponseWriter, r *http.Request, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	for _, b := range body {
		if _, err := w.Write([]byte{b}); err != nil {
			return
		}
		w.(http.Flusher).Flush()
		if !h.pause(r, time.Second) {
			return
		}
	}
}

// endlessEvents answers with an event stream that never carries the
// response: a notification every 10 ms, or, when oneLine is set, a single
// data line that grows by 64 KiB every 10 ms and never ends.
func (h *mcpHTTP) endlessEvents(w http.ResponseWriter, r *http.Request, oneLine bool) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	chunk := strings.Repeat("a", 64<<10)
	if oneLine {
		_, _ = io.WriteString(w, "event: message\ndata: ")
	}
	for i := 0; ; i++ {
		var err error
		if oneLine {
			_, err = io.WriteString(w, chunk)
		} else {
			note, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/message", "params": map[string]any{
				"level": "info", "data": fmt.Sprintf("event %d for %s", i, r.Header.Get("X-Api-Key")),
			}})
			_, err = fmt.Fprintf(w, "id: %d\nevent: message\ndata: %s\n\n", i, note)
		}
		if err != nil {
			return
		}
		w.(http.Flusher).Flush()
		if !h.pause(r, 10*time.Millisecond) {
			return
		}
	}
}
