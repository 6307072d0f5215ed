package engine

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-fuzz/mcp-fuzz/internal/demo"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// paramsRefusingServer serves the demo's lookup_user over stateless
// Streamable HTTP, and answers a request whose params are an array with
// HTTP 400 and body: a JSON-RPC error with id null, as the TypeScript SDK
// does, or anything else.
func paramsRefusingServer(t *testing.T, body string) *httptest.Server {
	t.Helper()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "params-refusing", Version: "1.0.0"}, nil)
		demo.AddLookupUser(s)
		return s
	}, &mcp.StreamableHTTPOptions{Stateless: true})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		b, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if bytes.Contains(b, []byte(`"params":[]`)) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, body)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// An HTTP 400 whose body holds a JSON-RPC error (id null: the client
// cannot match it to its request) is judged as that error, and the
// detail says so; a 400 with no error in the body says that instead, a
// protocol_deviation as silence is over stdio (a probe's rule).
func TestProbeHTTPErrorBody(t *testing.T) {
	parallel(t)
	for _, tc := range []struct {
		name, body string
		status     string
		code       string
		errorCode  int64
		detail     string
	}{
		{"invalid request", `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: params must be an object"},"id":null}`,
			report.CheckPass, "", -32600, "refused with -32600: Invalid Request: params must be an object (HTTP 400)"},
		{"parse error", `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: Invalid JSON-RPC message"},"id":null}`,
			report.CheckFail, report.CodeProtocolDeviation, -32700, "refused with -32700: Parse error: Invalid JSON-RPC message (HTTP 400)"},
		{"no error", `{"oops":true}`,
			report.CheckFail, report.CodeProtocolDeviation, 0, "refused with HTTP 400 and no JSON-RPC error in the body (application/json)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := paramsRefusingServer(t, tc.body)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			rep, err := Run(ctx, Config{URL: srv.URL, Timeout: 5 * time.Second, StartupTimeout: 10 * time.Second, Cases: 2, Protocol: true})
			if err != nil {
				t.Fatal(err)
			}
			var c *report.Check
			for i := range rep.Checks {
				if rep.Checks[i].ID == "probe/params-not-object" {
					c = &rep.Checks[i]
				}
			}
			if c == nil {
				t.Fatalf("no probe/params-not-object check in %+v", rep.Checks)
			}
			gotCode := int64(0)
			if c.ErrorCode != nil {
				gotCode = *c.ErrorCode
			}
			if c.Status != tc.status || c.Code != tc.code || gotCode != tc.errorCode || !strings.Contains(c.Detail, tc.detail) {
				t.Errorf("check = %s %s %d %q, want %s %s %d %q", c.Status, c.Code, gotCode, c.Detail, tc.status, tc.code, tc.errorCode, tc.detail)
			}
		})
	}
}
