package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// A server that refuses bad tools/call input with HTTP 400 and a JSON-RPC
// error body has answered: the case is rejected with the server's code, and
// the session is kept (before, every such case was a "connection closed"
// crash followed by a new initialize).
func TestHTTPErrorStatusWithJSONRPCErrorIsAnAnswer(t *testing.T) {
	parallel(t)
	var inits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Arguments map[string]any `json:"arguments"`
			} `json:"params"`
		}
		raw, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(raw, &req)
		w.Header().Set("Content-Type", "application/json")
		switch {
		case req.ID == nil:
			w.WriteHeader(http.StatusAccepted)
		case req.Method == "initialize":
			inits.Add(1)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"h","version":"1"}}}`, req.ID)
		case req.Method == "tools/list":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"q","inputSchema":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]},"annotations":{"readOnlyHint":true}}]}}`, req.ID)
		case req.Method == "tools/call":
			if _, ok := req.Params.Arguments["q"].(string); ok {
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"ok"}]}}`, req.ID)
				return
			}
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"q must be a string"}}`, req.ID)
		default:
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, req.ID)
		}
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := Run(ctx, Config{URL: srv.URL, Timeout: 2 * time.Second, StartupTimeout: 10 * time.Second, Cases: 6, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	rejected := withVerdict(rep, report.Rejected)
	if len(rejected) == 0 || len(failures(rep)) > 0 {
		t.Errorf("%d rejected, failures %+v", len(rejected), failures(rep))
	}
	for _, c := range rejected {
		if c.ErrorCode == nil || *c.ErrorCode != -32602 {
			t.Errorf("%s: code %v, want the body's -32602", c.ID, c.ErrorCode)
		}
	}
	if n := inits.Load(); n != 1 {
		t.Errorf("%d initializes: an HTTP 400 answer restarted the session", n)
	}
}
