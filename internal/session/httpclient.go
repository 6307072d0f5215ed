package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcp-fuzz/mcp-fuzz/internal/httpcap"
	"github.com/mcp-fuzz/mcp-fuzz/internal/mcpheader"
	"github.com/mcp-fuzz/mcp-fuzz/internal/rpc"
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

// HeaderTransport sends requests to the target origin only. It adds the
// user's headers and the negotiated protocol version to each, remembers the
// status of the last POST, and refuses a request to any other origin.
type HeaderTransport struct {
	base            http.RoundTripper
	Target          *url.URL // --url
	headers         http.Header
	protocolVersion atomic.Value // string
	// stateless is true once the session negotiated the modern era: no
	// session id is sent back then.
	stateless      atomic.Bool
	lastPostStatus atomic.Int64
	maxResponse    int // the response cap

	// modernPosts and sessionAnswers count the answers to POSTs of the
	// stateless era (server/discover, and every POST sent while stateless),
	// and those of them that set Mcp-Session-Id (see
	// [HeaderTransport.SessionsSeen]).
	modernPosts    atomic.Int64
	sessionAnswers atomic.Int64

	mu      sync.Mutex
	refused string // the first other origin refused, "" if none
	// sessionFirst is the Mcp-Method of the first stateless request whose
	// answer set a session id (the id itself is not kept: it may be a
	// token).
	sessionFirst string
}

// newHeaderTransport returns the transport for the HTTP target rawURL (a
// validated --url) with the user's headers and bearer token.
func newHeaderTransport(rawURL string, headers http.Header, bearer string) *HeaderTransport {
	target, _ := url.Parse(rawURL) // validated: it parses
	h := &HeaderTransport{base: http.DefaultTransport, Target: target, headers: headers.Clone()}
	if h.headers == nil {
		h.headers = http.Header{}
	}
	if bearer != "" {
		h.headers.Set("Authorization", "Bearer "+bearer)
	}
	return h
}

// client returns an HTTP client that sends everything through h and follows
// same-origin redirects only.
func (h *HeaderTransport) client() *http.Client {
	return &http.Client{Transport: h, CheckRedirect: h.checkRedirect}
}

func (h *HeaderTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !SameOrigin(req.URL, h.Target) {
		return nil, h.refuse(req.URL, "named an endpoint on another origin %s")
	}
	req = req.Clone(req.Context())
	for k, vs := range h.headers {
		req.Header[k] = vs
	}
	if pv, _ := h.protocolVersion.Load().(string); pv != "" && req.Header.Get("Mcp-Protocol-Version") == "" {
		req.Header.Set("Mcp-Protocol-Version", pv)
	}
	stateless := h.stateless.Load()
	if stateless {
		// The stateless era has no sessions: a session id a server handed
		// out is not sent back (the reproducer sends none either).
		req.Header.Del("Mcp-Session-Id")
	}
	// A tool name that is no plain header value (control characters,
	// leading space) goes in its base64 form, as the reproducer writes it:
	// sent raw, net/http would refuse the request and the tool's cases
	// would look like dropped connections.
	for _, k := range []string{"Mcp-Name", "mcp-name"} {
		if vs, ok := req.Header[k]; ok && len(vs) == 1 {
			if enc := mcpheader.NameValue(vs[0]); enc != vs[0] {
				req.Header.Del(k)
				req.Header.Set("Mcp-Name", enc)
			}
		}
	}
	// The tools/call's Mcp-Param headers (see ParamTable), before a
	// protocol check's own, which may break one of them.
	applyParamHeaders(req.Context(), req.Header)
	probe, _ := req.Context().Value(ProbeKey{}).(*HTTPProbe)
	if probe != nil {
		for k, vs := range probe.Headers {
			req.Header.Del(k)
			if len(vs) > 0 && vs[0] != "" {
				req.Header[http.CanonicalHeaderKey(k)] = vs
			}
		}
	}
	resp, err := h.base.RoundTrip(req)
	if probe != nil && err == nil && req.Method == http.MethodPost {
		probe.Status.Store(int64(resp.StatusCode))
		probe.ContentType.Store(httpcap.MediaType(resp.Header.Get("Content-Type")))
	}
	if err == nil && req.Method == http.MethodPost {
		h.lastPostStatus.Store(int64(resp.StatusCode))
		// server/discover is a request of the stateless era even before
		// its answer made the transport stateless.
		if method := req.Header.Get("Mcp-Method"); stateless || method == "server/discover" {
			h.noteAnswer(method, resp.Header.Get("Mcp-Session-Id") != "")
		}
	}
	if err == nil {
		httpcap.Body(req, resp, h.maxResponse)
		if probe != nil && req.Method == http.MethodPost && resp.StatusCode >= 400 {
			probe.readError(resp)
		}
	}
	return resp, err
}

// maxProbeErrorBody is how much of an HTTP error answer to a protocol
// check is read for a JSON-RPC error.
const maxProbeErrorBody = 4 << 10

// readError reads the first [maxProbeErrorBody] bytes of an HTTP error
// answer for the JSON-RPC error a server puts there (the TypeScript SDK's
// -32700 and -32600 with id null, which the client cannot match to its
// request), and leaves the body to its reader as it was.
func (p *HTTPProbe) readError(resp *http.Response) {
	head, _ := io.ReadAll(io.LimitReader(resp.Body, maxProbeErrorBody))
	resp.Body = &readCloser{Reader: io.MultiReader(bytes.NewReader(head), resp.Body), Closer: resp.Body}
	var msg struct {
		Error *struct {
			Code    *int64          `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
	}
	if json.Unmarshal(head, &msg) != nil || msg.Error == nil || msg.Error.Code == nil {
		return
	}
	p.RPCErr.Store(&rpc.Error{Code: *msg.Error.Code, Message: msg.Error.Message, Data: msg.Error.Data})
}

// readCloser is a body read from Reader and closed by Closer.
type readCloser struct {
	io.Reader
	io.Closer
}

// noteAnswer counts an answer to a POST of the stateless era, to a request
// for method, and whether it set a session id.
func (h *HeaderTransport) noteAnswer(method string, session bool) {
	h.modernPosts.Add(1)
	if !session {
		return
	}
	if h.sessionAnswers.Add(1) == 1 {
		h.mu.Lock()
		h.sessionFirst = method
		if method == "" {
			h.sessionFirst = "a request without Mcp-Method"
		}
		h.mu.Unlock()
	}
}

// SessionsSeen returns how many answers to POSTs of the stateless era h
// saw, how many of them set Mcp-Session-Id, and the method of the first
// that did.
func (h *HeaderTransport) SessionsSeen() (posts, sessions int64, first string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.modernPosts.Load(), h.sessionAnswers.Load(), h.sessionFirst
}

// ProbeKey carries, in the context of a protocol check's request, the
// check's [HTTPProbe].
type ProbeKey struct{}

// HTTPProbe is a protocol check's view of its HTTP request: headers that
// replace mcp-fuzz's own (an empty value removes one; a header that
// contradicts the body), and the status, media type and, for an HTTP
// error, the body's JSON-RPC error of the answer.
type HTTPProbe struct {
	Headers     http.Header
	Status      atomic.Int64
	ContentType atomic.Value // string
	// RPCErr is the JSON-RPC error in the body of an HTTP error answer.
	RPCErr atomic.Pointer[rpc.Error]
}

// checkRedirect is the [http.Client.CheckRedirect] of h's client.
func (h *HeaderTransport) checkRedirect(req *http.Request, via []*http.Request) error {
	if !SameOrigin(req.URL, h.Target) {
		return h.refuse(req.URL, "redirected to another origin %s")
	}
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	return nil
}

// refuse records other as refused and returns the error that says so; what
// describes what the server did, with a %s for the other origin.
func (h *HeaderTransport) refuse(other *url.URL, what string) error {
	o := displayOrigin(other)
	h.mu.Lock()
	if h.refused == "" {
		h.refused = o
	}
	h.mu.Unlock()
	return fmt.Errorf("the server "+what+"; mcp-fuzz sends requests, headers and tokens only to the origin of --url (%s): pass a URL on that origin as --url to audit it there",
		o, displayOrigin(h.Target))
}

// RefusedOrigin returns the first origin other than --url's that the server
// tried to send mcp-fuzz to (by a redirect or a legacy SSE endpoint event),
// or "" if none. The request was not sent.
func (cn *Dialer) RefusedOrigin() string {
	if cn.Header == nil {
		return ""
	}
	cn.Header.mu.Lock()
	defer cn.Header.mu.Unlock()
	return cn.Header.refused
}

// SameOrigin reports whether a and b have the same scheme, host and port
// (an omitted port is the scheme's default).
func SameOrigin(a, b *url.URL) bool {
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
