package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-fuzz/mcp-fuzz/internal/demo"
	"github.com/mcp-fuzz/mcp-fuzz/internal/leak"
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

// TestJudgeAuthServer: one row per rule of the authorization server
// metadata checks.
func TestJudgeAuthServer(t *testing.T) {
	parallel(t)
	const issuer = "https://mcp.example/as"
	for _, tc := range []struct {
		name, meta string
		noDCR, iss string // status, then the detail's fragment after ":"
	}{
		{"current", `{"issuer":"https://mcp.example/as","client_id_metadata_document_supported":true,"registration_endpoint":"https://mcp.example/r","authorization_response_iss_parameter_supported":true}`,
			"pass:beside dynamic client registration", "pass:names its issuer"},
		{"no registration", `{"issuer":"https://mcp.example/as","authorization_response_iss_parameter_supported":true}`,
			"pass:no registration_endpoint", "pass:names its issuer"},
		{"dcr only", `{"issuer":"https://mcp.example/as","registration_endpoint":"https://mcp.example/r","authorization_response_iss_parameter_supported":true}`,
			"fail:without client_id_metadata_document_supported: true", "pass:names its issuer"},
		{"cimd not a boolean", `{"issuer":"https://mcp.example/as","registration_endpoint":"x","client_id_metadata_document_supported":"true","authorization_response_iss_parameter_supported":true}`,
			"fail:without client_id_metadata_document_supported", "pass:"},
		{"registration not a string", `{"issuer":"https://mcp.example/as","registration_endpoint":true,"authorization_response_iss_parameter_supported":true}`,
			"pass:no registration_endpoint", "pass:"},
		{"no iss parameter", `{"issuer":"https://mcp.example/as"}`,
			"pass:", "fail:authorization_response_iss_parameter_supported is not true (RFC 9207)"},
		{"iss parameter false", `{"issuer":"https://mcp.example/as","authorization_response_iss_parameter_supported":false}`,
			"pass:", "fail:is not true"},
		{"other issuer", `{"issuer":"https://mcp.example/as/","authorization_response_iss_parameter_supported":true}`,
			"pass:", "fail:its issuer, https://mcp.example/as/, is not https://mcp.example/as, the issuer it was fetched for (RFC 8414 §3.3)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var meta map[string]json.RawMessage
			if err := json.Unmarshal([]byte(tc.meta), &meta); err != nil {
				t.Fatal(err)
			}
			a, b := judgeAuthServer(issuer, meta, func(s string) string { return s })
			for _, p := range []struct {
				got  checkVerdict
				want string
			}{{a, tc.noDCR}, {b, tc.iss}} {
				status, detail, _ := strings.Cut(p.want, ":")
				wantCode := ""
				if status == report.CheckFail {
					wantCode = report.CodeAuthMetadata
				}
				if p.got.status != status || p.got.code != wantCode || !strings.Contains(p.got.detail, detail) {
					t.Errorf("got %+v, want %s", p.got, p.want)
				}
			}
		})
	}
}

// TestJudgeNoSession: a session id fails the check without showing it;
// none passes; no stateless answer at all is a skip.
func TestJudgeNoSession(t *testing.T) {
	parallel(t)
	for _, tc := range []struct {
		posts, sessions int64
		first           string
		status, detail  string
	}{
		{10, 0, "", report.CheckPass, "none of the audit's 10 answers set Mcp-Session-Id"},
		{10, 3, "tools/call", report.CheckFail, "the answer to tools/call set a session id (Mcp-Session-Id; its value is not shown), and 3 of the audit's 10 answers did"},
		{1, 1, "", report.CheckFail, "the answer to a request set a session id"},
		{0, 0, "", report.CheckSkip, "no stateless request was answered over HTTP"},
	} {
		var c report.Check
		judgeNoSession(tc.posts, tc.sessions, tc.first, &c)
		if c.Status != tc.status || !strings.Contains(c.Detail, tc.detail) || (c.Status == report.CheckFail) != (c.Code == report.CodeSessionIssued) {
			t.Errorf("judgeNoSession(%d, %d, %q) = %s %s %q", tc.posts, tc.sessions, tc.first, c.Status, c.Code, c.Detail)
		}
	}
}

// TestScanEndpoint: only a line that is exactly an endpoint event counts,
// CRLF or not, and a line longer than the cap ends the scan.
func TestScanEndpoint(t *testing.T) {
	parallel(t)
	for _, tc := range []struct {
		stream string
		found  bool
	}{
		{"event: endpoint\ndata: /messages\n\n", true},
		{"event:endpoint  \r\ndata: /m\r\n\r\n", true},
		{": comment\nevent: message\ndata: {}\n\nevent: endpoint\n", true},
		{"event: message\ndata: event: endpoint\n\n", false},
		{"event: endpoints\n", false},
		{"data: " + strings.Repeat("x", maxCheckBody) + "\nevent: endpoint\n", false},
	} {
		if found, _ := scanEndpoint(strings.NewReader(tc.stream)); found != tc.found {
			t.Errorf("scanEndpoint(%.40q) = %v", tc.stream, found)
		}
	}
}

// TestWellKnown: the well-known path goes before the URL's path, without
// its trailing slash, and a path of "/" gives each URL once.
func TestWellKnown(t *testing.T) {
	parallel(t)
	for _, tc := range []struct {
		path string
		want string
	}{
		{"/mcp/", "/.well-known/oauth-protected-resource/mcp /.well-known/oauth-protected-resource"},
		{"/", "/.well-known/oauth-protected-resource"},
		{"", "/.well-known/oauth-protected-resource"},
	} {
		if got := strings.Join(wellKnown(tc.path, "/.well-known/oauth-protected-resource{path}", "/.well-known/oauth-protected-resource"), " "); got != tc.want {
			t.Errorf("wellKnown(%q) = %s", tc.path, got)
		}
	}
}

// TestHTTPCheckWhy: a GET cut off by the metadata checks' budget says so,
// and only such a GET: the legacy-SSE check, which the budget does not
// cover, says that its own GET got no answer in time, however the
// metadata checks ended.
func TestHTTPCheckWhy(t *testing.T) {
	parallel(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer srv.Close()
	target, _ := url.Parse(srv.URL + "/mcp")
	hc := &httpChecker{client: srv.Client(), target: target, leak: leak.NewDetector(nil), timeout: 100 * time.Millisecond}

	spent, cancel := context.WithTimeoutCause(context.Background(), 50*time.Millisecond, errAuthBudget)
	defer cancel()
	for _, c := range hc.authChecks(spent) {
		if c.Status != report.CheckSkip || !strings.Contains(c.Detail, "time budget of 15s was spent") {
			t.Errorf("%s: %s %q", c.ID, c.Status, c.Detail)
		}
	}
	if c := hc.legacySSE(context.Background()); c.Status != report.CheckSkip || c.Detail != "GET /mcp: no answer within 100ms" {
		t.Errorf("legacy-sse: %s %q", c.Status, c.Detail)
	}
}
