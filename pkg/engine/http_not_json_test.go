package engine

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// An HTTP 200 application/json answer that is not JSON (an HTML error page)
// is a protocol violation of the call, not a crash: the session goes on,
// nothing is restarted, and the small answer is not "bloated".
func TestHTTPAnswerThatIsNotJSON(t *testing.T) {
	parallel(t)
	var inits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req := readRPC(r)
		w.Header().Set("Content-Type", "application/json")
		switch {
		case req.ID == nil:
			w.WriteHeader(http.StatusAccepted)
		case req.Method == "initialize":
			inits.Add(1)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"html","version":"1"}}}`, req.ID)
		case req.Method == "tools/list":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]},"annotations":{"readOnlyHint":true}}]}}`, req.ID)
		case req.Method == "tools/call":
			io.WriteString(w, "<html><body>502 Bad Gateway</body></html>")
		case req.Method == "server/discover":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`, req.ID)
		default:
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, req.ID)
		}
	}))
	t.Cleanup(srv.Close)
	rep := runFixture(t, "clean", func(c *Config) {
		c.Command, c.URL, c.Timeout = nil, srv.URL, 5*time.Second
	})
	var calls []report.Case
	for _, tl := range rep.Tools {
		calls = append(calls, tl.Cases...)
	}
	if len(calls) == 0 {
		t.Fatal("no case ran")
	}
	for _, c := range calls {
		if c.Verdict != report.ProtocolViolation || slices.Contains(c.Flags, report.FlagBloated) {
			t.Errorf("%s: %s %v (%s), want a protocol violation and no bloated flag", c.ID, c.Verdict, c.Flags, c.Detail)
		}
	}
	if n := inits.Load(); n != 1 {
		t.Errorf("%d initialize requests: the session was restarted", n)
	}
}
