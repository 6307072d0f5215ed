package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/rpc"
	"github.com/mcp-fuzz/mcp-fuzz/internal/session"
)

// malformedServer is a streamable HTTP server whose tools/call answer is
// body(id), over the 64 KiB cap of malformedSession, with media type ct.
func malformedServer(t *testing.T, ct string, body func(id string) string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req := readRPC(r)
		switch {
		case req.ID == nil:
			w.WriteHeader(http.StatusAccepted)
		case req.Method == "initialize":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"m","version":"1"}}}`, req.ID)
		case req.Method == "tools/call":
			w.Header().Set("Content-Type", ct)
			io.WriteString(w, body(string(req.ID)))
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, req.ID)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// rpcRequest is what a test server reads of a JSON-RPC request: its id
// (nil for a notification) and method.
type rpcRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

func readRPC(r *http.Request) rpcRequest {
	var req rpcRequest
	raw, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(raw, &req)
	return req
}

func malformedSession(t *testing.T, url string) *session.Session {
	t.Helper()
	return httpSession(t, Config{URL: url, MaxResponse: MinMaxResponse})
}

// An answer over the cap that is malformed, not JSON, or the answer to
// another id is an Oversize that says so: its size does not launder it.
func TestOversizeHTTPMalformed(t *testing.T) {
	parallel(t)
	pad := strings.Repeat("x", 2*MinMaxResponse)
	text := `{"content":[{"type":"text","text":"` + pad + `"}]}`
	sse := func(data string) string { return "event: message\ndata: " + data + "\n\n" }
	for _, tc := range []struct {
		name string
		ct   string
		body func(id string) string
		want string // in Malformed; "" for none
	}{
		{"good", "application/json", func(id string) string {
			return `{"jsonrpc":"2.0","id":` + id + `,"result":` + text + `}`
		}, ""},
		{"jsonrpc 1.0", "application/json", func(id string) string {
			return `{"jsonrpc":"1.0","id":` + id + `,"result":` + text + `}`
		}, `"jsonrpc" is not "2.0"`},
		{"string result", "application/json", func(id string) string {
			return `{"jsonrpc":"2.0","id":` + id + `,"result":"` + pad + `"}`
		}, `"result" is not an object`},
		{"both", "application/json", func(id string) string {
			return `{"jsonrpc":"2.0","id":` + id + `,"result":` + text + `,"error":{"code":1,"message":"m"}}`
		}, `both "result" and "error"`},
		{"neither", "application/json", func(id string) string {
			return `{"jsonrpc":"2.0","id":` + id + `,"data":` + text + `}`
		}, `neither "result" nor "error"`},
		{"not JSON", "application/json", func(string) string { return pad }, "not JSON"},
		{"JSON cut short", "application/json", func(id string) string {
			return `{"jsonrpc":"2.0","id":` + id + `,"result":{"text":"` + pad
		}, "not JSON"},
		{"another id", "application/json", func(string) string {
			return `{"jsonrpc":"2.0","id":987654,"result":` + text + `}`
		}, "answer to id 987654, not to this request"},
		{"a string id", "application/json", func(id string) string {
			return `{"jsonrpc":"2.0","id":"` + id + `","result":` + text + `}`
		}, "not to this request"},
		{"no id", "application/json", func(string) string {
			return `{"jsonrpc":"2.0","result":` + text + `}`
		}, `no "id"`},
		{"sse good", "text/event-stream", func(id string) string {
			return sse(`{"jsonrpc":"2.0","id":` + id + `,"result":` + text + `}`)
		}, ""},
		{"sse jsonrpc 1.0", "text/event-stream", func(id string) string {
			return sse(`{"jsonrpc":"1.0","id":` + id + `,"result":` + text + `}`)
		}, `"jsonrpc" is not "2.0"`},
		{"sse not JSON", "text/event-stream", func(string) string { return sse(pad) }, "not JSON"},
		{"sse no id", "text/event-stream", func(string) string {
			return sse(`{"jsonrpc":"2.0","result":` + text + `}`)
		}, `no "id"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := malformedSession(t, malformedServer(t, tc.ct, tc.body))
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, _, err := s.Call(ctx, "tools/call", map[string]any{"name": "x"})
			var o *rpc.Oversize
			switch {
			case !errors.As(err, &o):
				t.Fatalf("call = %v, want an Oversize", err)
			case tc.want == "" && o.Malformed != "":
				t.Errorf("Malformed = %q, want none", o.Malformed)
			case tc.want != "" && !strings.Contains(o.Malformed, tc.want):
				t.Errorf("Malformed = %q, want %q", o.Malformed, tc.want)
			}
		})
	}
}
