package engine

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-fuzz/mcp-fuzz/internal/demo"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// httpServer serves a server with the demo's well-behaved lookup_user tool,
// refusing requests without the expected credentials.
func httpServer(t *testing.T, sse bool) *httptest.Server {
	t.Helper()
	newServer := func(*http.Request) *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "http-fixture", Version: "1.0.0"}, nil)
		demo.AddLookupUser(s)
		return s
	}
	var h http.Handler = mcp.NewStreamableHTTPHandler(newServer, nil)
	if sse {
		h = mcp.NewSSEHandler(newServer, nil)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret-bearer" || r.Header.Get("X-Tenant") != "t1" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		if sse && r.Method == http.MethodPost && r.URL.Query().Get("sessionid") == "" {
			// A legacy server: the Streamable POST is not understood.
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func runHTTP(t *testing.T, url string, headers []string, bearer string) (*report.Report, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return Run(ctx, Config{URL: url, Headers: headers, Bearer: bearer, Timeout: 5 * time.Second, StartupTimeout: 10 * time.Second, Cases: 6})
}

func TestStreamableHTTPWithHeaders(t *testing.T) {
	parallel(t)
	srv := httpServer(t, false)
	rep, err := runHTTP(t, srv.URL, []string{"X-Tenant: t1"}, "s3cret-bearer")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Target.Transport != "streamable-http" || rep.Summary.OK != 1 || rep.Summary.Handled == 0 {
		t.Fatalf("transport %s, summary %+v", rep.Target.Transport, rep.Summary)
	}
	if f := failures(rep); len(f) > 0 {
		t.Fatalf("failures over HTTP: %+v", f[0])
	}
}

func TestLegacySSEFallback(t *testing.T) {
	parallel(t)
	srv := httpServer(t, true)
	rep, err := runHTTP(t, srv.URL, []string{"X-Tenant: t1"}, "s3cret-bearer")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Target.Transport != "sse" || rep.Summary.OK != 1 {
		t.Fatalf("transport %s, summary %+v; want the legacy SSE fallback to work", rep.Target.Transport, rep.Summary)
	}
}

func TestHTTPRefusedCredentialsIsAConnectError(t *testing.T) {
	parallel(t)
	srv := httpServer(t, false)
	_, err := runHTTP(t, srv.URL, nil, "wrong-bearer")
	if err == nil || !strings.Contains(err.Error(), "cannot connect") {
		t.Fatalf("err = %v, want a connect error", err)
	}
	if strings.Contains(err.Error(), "wrong-bearer") {
		t.Fatal("the bearer token appears in the error")
	}
}
