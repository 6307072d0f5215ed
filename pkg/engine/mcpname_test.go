package engine

import (
	"errors"
	"net/http"
	"net/url"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/repro"
)

// captureTransport records the last request's headers and fails the call.
type captureTransport struct{ got http.Header }

var errCaptured = errors.New("captured")

func (c *captureTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	c.got = req.Header.Clone()
	return nil, errCaptured
}

// TestMcpNameHeaderIsAlwaysSendable: a tool name with control characters
// goes in its base64 form, as the reproducer writes it; a plain one as it is.
func TestMcpNameHeaderIsAlwaysSendable(t *testing.T) {
	parallel(t)
	target, _ := url.Parse("http://127.0.0.1:1/mcp")
	capture := &captureTransport{}
	h := &headerTransport{base: capture, target: target, headers: http.Header{}}
	for name, want := range map[string]string{
		"lookup":                "lookup",
		"crlf\r\nX-Injected: 1": repro.MCPNameHeader("crlf\r\nX-Injected: 1"),
		" leading":              repro.MCPNameHeader(" leading"),
		"=?base64?bG9va3Vw?=":   "=?base64?bG9va3Vw?=",
	} {
		req, _ := http.NewRequest(http.MethodPost, target.String(), nil)
		req.Header["Mcp-Name"] = []string{name}
		if _, err := h.RoundTrip(req); !errors.Is(err, errCaptured) {
			t.Fatalf("%q: %v", name, err)
		}
		if got := capture.got.Get("Mcp-Name"); got != want {
			t.Errorf("Mcp-Name for %q = %q, want %q", name, got, want)
		}
		if name != want && want[:9] != "=?base64?" {
			t.Errorf("%q: not the base64 form: %q", name, want)
		}
	}
}

// TestModernRequestsCarryNoSessionID: in the stateless era a session id
// the server handed out is not sent back; in the legacy era it is.
func TestModernRequestsCarryNoSessionID(t *testing.T) {
	parallel(t)
	target, _ := url.Parse("http://127.0.0.1:1/mcp")
	capture := &captureTransport{}
	h := &headerTransport{base: capture, target: target, headers: http.Header{}}
	// A legacy server whose version is odd ("abc" sorts after any date)
	// keeps its session id: the era decides, not the version string.
	for _, tc := range []struct {
		version   string
		stateless bool
		kept      bool
	}{{ModernProtocolVersion, true, false}, {"2025-11-25", false, true}, {"abc", false, true}} {
		h.protocolVersion.Store(tc.version)
		h.stateless.Store(tc.stateless)
		req, _ := http.NewRequest(http.MethodPost, target.String(), nil)
		req.Header.Set("Mcp-Session-Id", "EVILSID")
		_, _ = h.RoundTrip(req)
		if got := capture.got.Get("Mcp-Session-Id") != ""; got != tc.kept {
			t.Errorf("version %s: session id sent %v, want %v", tc.version, got, tc.kept)
		}
	}
}
