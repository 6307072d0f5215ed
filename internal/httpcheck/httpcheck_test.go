package httpcheck

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/leak"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// TestJudgeAuthServer: one row per rule of the authorization server
// metadata checks.
func TestJudgeAuthServer(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
