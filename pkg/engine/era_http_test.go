package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-fuzz/mcp-fuzz/internal/demo"
	"github.com/mcp-fuzz/mcp-fuzz/internal/mcpheader"
	"github.com/mcp-fuzz/mcp-fuzz/internal/repro"
)

// seenRequest is what a test HTTP server saw of one POST.
type seenRequest struct {
	body, method, name, session, version string
}

// recordingServer serves the demo's lookup_user over Streamable HTTP (a
// stateless go-sdk handler: both eras; a stateful one offers 2025 versions
// only) and records every POST.
func recordingServer(t *testing.T) (*httptest.Server, func() []seenRequest) {
	t.Helper()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "http-era", Version: "1.0.0"}, nil)
		demo.AddLookupUser(s)
		return s
	}, &mcp.StreamableHTTPOptions{Stateless: true})
	var mu sync.Mutex
	var seen []seenRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			b, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(b))
			mu.Lock()
			seen = append(seen, seenRequest{string(b), r.Header.Get("Mcp-Method"), r.Header.Get("Mcp-Name"), r.Header.Get("Mcp-Session-Id"), r.Header.Get("Mcp-Protocol-Version")})
			mu.Unlock()
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []seenRequest {
		mu.Lock()
		defer mu.Unlock()
		return append([]seenRequest(nil), seen...)
	}
}

// TestStreamableHTTPModern: over Streamable HTTP the audit speaks the
// stateless era: no initialize, no session id, the routing headers.
func TestStreamableHTTPModern(t *testing.T) {
	parallel(t)
	srv, seen := recordingServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := Run(ctx, Config{URL: srv.URL, Timeout: 5 * time.Second, StartupTimeout: 10 * time.Second, Cases: 6})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Server.Era != EraModern || rep.Summary.OK != 1 {
		t.Fatalf("era %q, summary %+v", rep.Server.Era, rep.Summary)
	}
	// The protocol checks break the headers or the envelope on purpose.
	var checkParams []string
	for _, c := range rep.Checks {
		if len(c.Request) == 0 {
			continue // a check of plain HTTP (a GET), or of no request
		}
		var req struct{ Params json.RawMessage }
		_ = json.Unmarshal(c.Request, &req)
		checkParams = append(checkParams, `"params":`+string(req.Params))
	}
	calls := 0
	for _, r := range seen() {
		if r.method == "tools/call" && r.name == "lookup_user" {
			calls++
		}
		if slices.ContainsFunc(checkParams, func(p string) bool { return strings.Contains(r.body, p) }) {
			continue
		}
		if strings.Contains(r.body, `"method":"initialize"`) {
			t.Errorf("initialize sent in the modern era: %s", r.body)
		}
		if r.session != "" {
			t.Errorf("Mcp-Session-Id %q sent in the modern era", r.session)
		}
		if r.version != ModernProtocolVersion || r.method == "" {
			t.Errorf("request %.120s: Mcp-Protocol-Version %q, Mcp-Method %q", r.body, r.version, r.method)
		}
		if r.method == "tools/call" {
			if r.name != "lookup_user" {
				t.Errorf("tools/call with Mcp-Name %q", r.name)
			}
		}
	}
	if calls == 0 {
		t.Error("no tools/call seen")
	}
	// The reproducer of a case: one POST, no session, the routing
	// headers; it works as printed.
	c := validCase(t, rep, "lookup_user")
	r := repro.Case(rep, reproTarget(Config{URL: srv.URL}), "lookup_user", c)
	if strings.Contains(r.Shell, "initialize") || strings.Contains(r.Shell, "Mcp-Session-Id") || !strings.Contains(r.Shell, "'Mcp-Method: tools/call'") || !strings.Contains(r.Shell, "'Mcp-Name: lookup_user'") {
		t.Fatalf("modern HTTP reproducer: %s", r.Shell)
	}
	if out := runShell(t, r.Shell); !strings.Contains(out, `"result"`) || strings.Contains(out, `"isError":true`) {
		t.Errorf("reproducer %s printed %q", r.Shell, out)
	}
	if got := mcpheader.NameValue("tool ü"); got != "=?base64?dG9vbCDDvA==?=" {
		t.Errorf("mcpNameHeader = %q", got)
	}
}

// TestStreamableHTTPLegacyFallback: a Streamable HTTP server that refuses
// server/discover with an HTTP 400 (as a 2025-era server does before
// initialize) is audited in the legacy era.
func TestStreamableHTTPLegacyFallback(t *testing.T) {
	parallel(t)
	inner := httpServer(t, false)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			b, _ := io.ReadAll(r.Body)
			if strings.Contains(string(b), `"server/discover"`) {
				http.Error(w, "Bad Request: Server not initialized", http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		r.Header.Set("Authorization", "Bearer s3cret-bearer")
		r.Header.Set("X-Tenant", "t1")
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, inner.URL, r.Body)
		req.Header = r.Header
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	}))
	t.Cleanup(srv.Close)
	rep, err := runHTTP(t, srv.URL, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Server.Era != EraLegacy || rep.Target.Transport != "streamable-http" || rep.Summary.OK != 1 {
		t.Fatalf("era %q, transport %s, summary %+v", rep.Server.Era, rep.Target.Transport, rep.Summary)
	}
	if !strings.Contains(rep.Server.EraReason, "Bad Request") {
		t.Errorf("eraReason %q does not say server/discover got a 400", rep.Server.EraReason)
	}
}

// TestEraModernNotOverSSE: --era modern never ends up in the legacy
// HTTP+SSE transport's handshake.
func TestEraModernNotOverSSE(t *testing.T) {
	parallel(t)
	srv := httpServer(t, true)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := Run(ctx, Config{URL: srv.URL, Headers: []string{"X-Tenant: t1"}, Bearer: "s3cret-bearer", Era: EraModern, Timeout: 5 * time.Second, StartupTimeout: 10 * time.Second, Cases: 2})
	if err == nil || !strings.Contains(err.Error(), "no stateless era") {
		t.Fatalf("Run(--era modern, SSE-only server) = %v", err)
	}
}
