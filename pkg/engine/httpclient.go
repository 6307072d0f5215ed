package engine

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
)

// mcp-fuzz talks to one origin only: the scheme, host and port of --url. A
// redirect to another origin is not followed and a request to another origin
// (a legacy SSE endpoint event naming another host) is not sent, so the
// user's --header and --bearer values, and the fuzz traffic itself, never
// reach a host the user did not name. Same-origin redirects are followed,
// with the headers.

// maxRedirects is how many same-origin redirects one request may follow
// (http.Client's own default).
const maxRedirects = 10

// headerTransport sends requests to the target origin only. It adds the
// user's headers and the negotiated protocol version to each, remembers the
// status of the last POST, and refuses a request to any other origin.
type headerTransport struct {
	base            http.RoundTripper
	target          *url.URL // --url
	headers         http.Header
	protocolVersion atomic.Value // string
	lastPostStatus  atomic.Int64

	mu      sync.Mutex
	refused string // the first other origin refused, "" if none
}

// newHeaderTransport returns the transport for the HTTP target rawURL (a
// validated --url) with the user's --header values and --bearer token.
func newHeaderTransport(rawURL string, headers []string, bearer string) (*headerTransport, error) {
	target, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("%w: --url: %v", ErrConfig, err)
	}
	h := &headerTransport{base: http.DefaultTransport, target: target, headers: http.Header{}}
	for _, s := range headers {
		n, v, _ := parseHeader(s)
		h.headers.Add(n, v)
	}
	if bearer != "" {
		h.headers.Set("Authorization", "Bearer "+bearer)
	}
	return h, nil
}

// client returns an HTTP client that sends everything through h and follows
// same-origin redirects only.
func (h *headerTransport) client() *http.Client {
	return &http.Client{Transport: h, CheckRedirect: h.checkRedirect}
}

func (h *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !sameOrigin(req.URL, h.target) {
		return nil, h.refuse(req.URL, "named an endpoint on another origin %s")
	}
	req = req.Clone(req.Context())
	for k, vs := range h.headers {
		req.Header[k] = vs
	}
	if pv, _ := h.protocolVersion.Load().(string); pv != "" && req.Header.Get("Mcp-Protocol-Version") == "" {
		req.Header.Set("Mcp-Protocol-Version", pv)
	}
	resp, err := h.base.RoundTrip(req)
	if err == nil && req.Method == http.MethodPost {
		h.lastPostStatus.Store(int64(resp.StatusCode))
	}
	return resp, err
}

// checkRedirect is the [http.Client.CheckRedirect] of h's client.
func (h *headerTransport) checkRedirect(req *http.Request, via []*http.Request) error {
	if !sameOrigin(req.URL, h.target) {
		return h.refuse(req.URL, "redirected to another origin %s")
	}
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	return nil
}

// refuse records other as refused and returns the error that says so; what
// describes what the server did, with a %s for the other origin.
func (h *headerTransport) refuse(other *url.URL, what string) error {
	o := displayOrigin(other)
	h.mu.Lock()
	if h.refused == "" {
		h.refused = o
	}
	h.mu.Unlock()
	return fmt.Errorf("the server "+what+"; mcp-fuzz sends requests, headers and tokens only to the origin of --url (%s): pass a URL on that origin as --url to audit it there",
		o, displayOrigin(h.target))
}

// refusedOrigin returns the first origin other than --url's that the server
// tried to send mcp-fuzz to (by a redirect or a legacy SSE endpoint event),
// or "" if none. The request was not sent.
func (cn *connector) refusedOrigin() string {
	if cn.header == nil {
		return ""
	}
	cn.header.mu.Lock()
	defer cn.header.mu.Unlock()
	return cn.header.refused
}

// sameOrigin reports whether a and b have the same scheme, host and port
// (an omitted port is the scheme's default).
func sameOrigin(a, b *url.URL) bool {
	return origin(a) == origin(b)
}

// origin returns u's scheme://host:port in canonical form, for comparison.
func origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// maxOriginLen bounds an origin shown in a message: the server chose it.
const maxOriginLen = 200

// displayOrigin returns u's scheme://host as written, bounded, for messages.
func displayOrigin(u *url.URL) string {
	o := u.Scheme + "://" + u.Host
	if len(o) > maxOriginLen {
		o = strings.ToValidUTF8(o[:maxOriginLen], "") + "…"
	}
	return o
}
