package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-fuzz/mcp-fuzz/internal/demo"
	"github.com/mcp-fuzz/mcp-fuzz/internal/render"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// sessionToken is the session id the hostile fixture hands out: secret-
// like, it must appear nowhere in the report.
const sessionToken = "sess-7f3a9c2e4b1d8f6a0e5c"

// complianceServer serves the demo's lookup_user at /mcp over stateless
// Streamable HTTP (both eras), GET /mcp answered 405, and the extra GET
// routes, by path, which may override GET /mcp. With session, every
// answer sets Mcp-Session-Id. The routes get the server's origin.
func complianceServer(t *testing.T, session bool, routes map[string]func(origin string, w http.ResponseWriter, r *http.Request)) *httptest.Server {
	t.Helper()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "http-compliance", Version: "1.0.0"}, nil)
		demo.AddLookupUser(s)
		return s
	}, &mcp.StreamableHTTPOptions{Stateless: true})
	var origin atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if session {
			w.Header().Set("Mcp-Session-Id", sessionToken)
		}
		if f, ok := routes[r.URL.Path]; ok && r.Method == http.MethodGet {
			f(origin.Load().(string), w, r)
			return
		}
		switch {
		case r.URL.Path != "/mcp":
			http.NotFound(w, r)
		case r.Method == http.MethodGet:
			w.Header().Set("Allow", "POST")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		default:
			h.ServeHTTP(w, r)
		}
	}))
	origin.Store(srv.URL)
	t.Cleanup(srv.Close)
	return srv
}

// writeJSON answers with v as JSON.
func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// endpointStream answers GET as a legacy HTTP+SSE server does: an endpoint
// event, then nothing until the client leaves.
func endpointStream(_ string, w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	_, _ = fmt.Fprint(w, "event: endpoint\r\ndata: /messages?sessionId=abc\r\n\r\n")
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

// runCompliance audits srv's /mcp with a user header.
func runCompliance(t *testing.T, srv *httptest.Server) *report.Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cfg := Config{URL: srv.URL + "/mcp", Headers: []string{"X-Api-Key: k3y-s3cret-value"}, Timeout: 5 * time.Second, StartupTimeout: 10 * time.Second, Cases: 6}
	rep, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Server.Era != EraModern {
		t.Fatalf("era %q (%s)", rep.Server.Era, rep.Server.EraReason)
	}
	for _, c := range rep.Checks {
		if c.Group == "compliance" {
			t.Logf("%s %s %s %s [%s]", c.ID, c.Status, c.Code, c.Detail, c.HTTP)
		}
	}
	return rep
}

// TestHTTPChecksHostile: a server that hands out session ids, advertises
// dynamic client registration without client ID metadata documents or
// RFC 9207 on a same-origin authorization server, and still serves the
// legacy SSE endpoint event fails each check with its code, and each is a
// finding with the catalogue's severity and a curl reproducer that prints
// no secret.
func TestHTTPChecksHostile(t *testing.T) {
	parallel(t)
	srv := complianceServer(t, true, map[string]func(string, http.ResponseWriter, *http.Request){
		"/.well-known/oauth-protected-resource/mcp": func(origin string, w http.ResponseWriter, _ *http.Request) {
			writeJSON(w, map[string]any{"resource": origin + "/mcp", "authorization_servers": []any{origin + "/as", 42}})
		},
		"/.well-known/oauth-authorization-server/as": func(origin string, w http.ResponseWriter, _ *http.Request) {
			writeJSON(w, map[string]any{"issuer": origin + "/as", "registration_endpoint": origin + "/register",
				"authorization_endpoint": origin + "/authorize", "token_endpoint": origin + "/token"})
		},
		"/mcp": endpointStream,
	})
	rep := runCompliance(t, srv)
	for _, tc := range []struct{ id, code, detail string }{
		{"compliance/no-session", report.CodeSessionIssued, "the answer to server/discover set a session id"},
		{"compliance/auth-no-dcr", report.CodeAuthMetadata, "without client_id_metadata_document_supported: true"},
		{"compliance/auth-iss", report.CodeAuthMetadata, "authorization_response_iss_parameter_supported is not true"},
		{"compliance/legacy-sse", report.CodeDeprecatedFeature, "serves the deprecated HTTP+SSE transport (an endpoint event on GET)"},
	} {
		c := checkByID(t, rep, tc.id)
		if c.Status != report.CheckFail || c.Code != tc.code || !strings.Contains(c.Detail, tc.detail) {
			t.Errorf("%s: %s %s %q", tc.id, c.Status, c.Code, c.Detail)
		}
		f := findingByID(t, rep, "protocol/"+tc.id+"#"+tc.code)
		if want, _ := report.LookupCode(tc.code); f.Severity != want.Severity {
			t.Errorf("%s: severity %s, want %s", f.ID, f.Severity, want.Severity)
		}
		if !strings.HasPrefix(f.Reproducer.Shell, "curl -si ") || !strings.Contains(f.Reproducer.Shell, `-H "X-Api-Key: $X_API_KEY"`) || strings.Contains(f.Reproducer.Shell, "k3y-s3cret") {
			t.Errorf("%s: reproducer %s", f.ID, f.Reproducer.Shell)
		}
	}
	if r := findingByID(t, rep, "protocol/compliance/auth-iss#auth_metadata").Reproducer.Shell; !strings.Contains(r, " "+srv.URL+"/.well-known/oauth-authorization-server/as ") || !strings.Contains(r, "'Accept: application/json'") {
		t.Errorf("auth-iss reproducer: %s", r)
	}
	if r := findingByID(t, rep, "protocol/compliance/legacy-sse#deprecated_feature").Reproducer.Shell; !strings.Contains(r, "--max-time 3 "+srv.URL+"/mcp ") || !strings.Contains(r, "'Accept: text/event-stream'") {
		t.Errorf("legacy-sse reproducer: %s", r)
	}
	if r := findingByID(t, rep, "protocol/compliance/no-session#session_issued").Reproducer.Shell; !strings.Contains(r, "server/discover") || !strings.Contains(r, "-d ") {
		t.Errorf("no-session reproducer: %s", r)
	}
	b, _ := json.Marshal(rep)
	if strings.Contains(string(b), sessionToken) || strings.Contains(string(b), "k3y-s3cret") {
		t.Error("the report holds the session id or the user's header value")
	}
}

// TestHTTPChecksClean: a server with no session id, no OAuth metadata and
// a 405 on GET passes or skips each check and has no finding of them.
func TestHTTPChecksClean(t *testing.T) {
	parallel(t)
	rep := runCompliance(t, complianceServer(t, false, nil))
	for _, tc := range []struct{ id, status, detail string }{
		{"compliance/no-session", report.CheckPass, "set Mcp-Session-Id"},
		{"compliance/auth-no-dcr", report.CheckSkip, "the server publishes no OAuth protected-resource metadata"},
		{"compliance/auth-iss", report.CheckSkip, "the server publishes no OAuth protected-resource metadata"},
		{"compliance/legacy-sse", report.CheckPass, "HTTP 405"},
	} {
		c := checkByID(t, rep, tc.id)
		if c.Status != tc.status || c.Code != "" || !strings.Contains(c.Detail, tc.detail) {
			t.Errorf("%s: %s %s %q", tc.id, c.Status, c.Code, c.Detail)
		}
	}
	for _, f := range rep.Findings {
		for _, id := range []string{"no-session", "auth-no-dcr", "auth-iss", "legacy-sse"} {
			if strings.HasPrefix(f.ID, "protocol/compliance/"+id+"#") {
				t.Errorf("finding %s", f.ID)
			}
		}
	}
}

// TestHTTPChecksOtherOrigin: an authorization server on another origin is
// never contacted, not even its metadata; both checks skip saying why, and
// the issuer, server text, is escaped in the Markdown report.
func TestHTTPChecksOtherOrigin(t *testing.T) {
	parallel(t)
	var contacted atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		contacted.Add(1)
		writeJSON(w, map[string]any{"issuer": "http://" + r.Host, "registration_endpoint": "http://" + r.Host + "/register"})
	}))
	t.Cleanup(other.Close)
	hostileIssuer := other.URL + "/<!-- x --> @everyone <script>|k3y-s3cret-value"
	srv := complianceServer(t, false, map[string]func(string, http.ResponseWriter, *http.Request){
		"/.well-known/oauth-protected-resource": func(_ string, w http.ResponseWriter, _ *http.Request) {
			writeJSON(w, map[string]any{"authorization_servers": []string{hostileIssuer, other.URL}})
		},
	})
	rep := runCompliance(t, srv)
	if n := contacted.Load(); n != 0 {
		t.Errorf("the other origin got %d requests", n)
	}
	for _, id := range []string{"compliance/auth-no-dcr", "compliance/auth-iss"} {
		c := checkByID(t, rep, id)
		if c.Status != report.CheckSkip || !strings.Contains(c.Detail, "the authorization server is on another origin ("+other.URL) ||
			!strings.HasSuffix(c.Detail, "); mcp-fuzz sends nothing to other origins") || strings.Contains(c.Detail, "k3y-s3cret") {
			t.Errorf("%s: %s %q", id, c.Status, c.Detail)
		}
	}
	md := render.Markdown(rep)
	if strings.Contains(md, "<!--") || strings.Contains(md, "<script>") || strings.Contains(md, "k3y-s3cret") || !strings.Contains(md, "another origin") {
		t.Errorf("markdown lets the issuer through:\n%s", md)
	}
}

// TestHTTPChecksBounded: a GET that streams forever and protected-resource
// metadata of 10 MiB do not hold the run: the checks finish, saying what
// they saw.
func TestHTTPChecksBounded(t *testing.T) {
	parallel(t)
	huge := `{"authorization_servers":["` + strings.Repeat("a", 10<<20) + `"]}`
	srv := complianceServer(t, false, map[string]func(string, http.ResponseWriter, *http.Request){
		"/.well-known/oauth-protected-resource/mcp": func(_ string, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(huge))
		},
		"/mcp": func(_ string, w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			for {
				if _, err := fmt.Fprint(w, "event: message\ndata: {}\n\n"); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-time.After(5 * time.Millisecond):
				}
			}
		},
	})
	rep := runCompliance(t, srv)
	for _, id := range []string{"compliance/auth-no-dcr", "compliance/auth-iss"} {
		if c := checkByID(t, rep, id); c.Status != report.CheckSkip || c.Detail != "GET /.well-known/oauth-protected-resource/mcp: the answer is over 64 KiB" {
			t.Errorf("%s: %s %q", id, c.Status, c.Detail)
		}
	}
	if c := checkByID(t, rep, "compliance/legacy-sse"); c.Status != report.CheckPass || !strings.Contains(c.Detail, "event stream without an endpoint event") {
		t.Errorf("legacy-sse: %s %q", c.Status, c.Detail)
	}
}
