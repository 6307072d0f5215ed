// Package httpcheck runs the HTTP compliance checks of a Streamable HTTP
// target in the stateless era: session ids, the authorization metadata
// and the legacy SSE endpoint (docs/BEHAVIOUR.md#checks-beyond-single-calls).
package httpcheck

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/httpcap"
	"github.com/mcp-fuzz/mcp-fuzz/internal/leak"
	"github.com/mcp-fuzz/mcp-fuzz/internal/protocheck"
	"github.com/mcp-fuzz/mcp-fuzz/internal/repro"
	"github.com/mcp-fuzz/mcp-fuzz/internal/session"
	"github.com/mcp-fuzz/mcp-fuzz/internal/textcut"
	"github.com/mcp-fuzz/mcp-fuzz/internal/words"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// The HTTP compliance checks (modern era, Streamable HTTP only): what the
// stateless revision asks of a server over HTTP that no JSON-RPC answer
// shows. Sessions are judged from what the audit's own POSTs saw; the
// others send plain GETs, which are not MCP requests: a GET that fails or
// takes too long makes its check a skip, never a crash or hang. Every
// request goes through the dialer's client, so nothing leaves the
// origin of --url, and whatever the server sends is read up to
// [maxCheckBody] and redacted before it reaches a detail.

const (
	// maxCheckBody caps what a check reads of the answer to one GET.
	maxCheckBody = 64 << 10
	// maxIssuers bounds the authorization servers whose metadata is
	// fetched: the server chooses how many it lists.
	maxIssuers = 4
	// maxNameText bounds a server-chosen name (an issuer) in a detail.
	maxNameText = 120
)

// acceptJSON is the media type of the metadata GETs (the legacy-SSE one
// asks for [protocheck.AcceptSSE]).
const acceptJSON = "application/json"

// httpChecker sends the GETs of the HTTP checks.
type httpChecker struct {
	client  *http.Client // the dialer's: same origin only
	target  *url.URL     // --url
	leak    *leak.Detector
	timeout time.Duration // one GET's
}

// authBudget bounds the GETs of the authorization metadata checks: a
// server that answers each GET just under the timeout costs that, not a
// timeout per well-known path.
const authBudget = 15 * time.Second

// errAuthBudget is the cause of the metadata checks' context once
// [authBudget] is spent (and of every context made from it).
var errAuthBudget = fmt.Errorf("the metadata checks' time budget of %s was spent", authBudget)

// Run runs the HTTP compliance checks of the audit of cn, a Streamable
// HTTP target, and returns them in order. version is the negotiated
// protocol version; timeout bounds one GET.
func Run(ctx context.Context, cn *session.Dialer, version string, timeout time.Duration) []report.Check {
	hc := &httpChecker{client: cn.HTTP, target: cn.Header.Target, leak: cn.Leak, timeout: timeout}
	out := []report.Check{noSessionCheck(cn.Header, version)}
	if ctx.Err() != nil {
		return out
	}
	actx, cancel := context.WithTimeoutCause(ctx, authBudget, errAuthBudget)
	out = append(out, hc.authChecks(actx)...)
	cancel()
	if ctx.Err() != nil {
		return out
	}
	return append(out, hc.legacySSE(ctx))
}

// noSessionCheck judges the session ids the answers to the audit's
// stateless POSTs carried (see [session.HeaderTransport]); its
// reproducer sends the first request that got one again, when it needs
// no arguments (else server/discover).
func noSessionCheck(h *session.HeaderTransport, version string) report.Check {
	c := report.Check{ID: "compliance/no-session", Group: "compliance",
		Title:    "no answer to a stateless request sets a session id",
		Expected: "no Mcp-Session-Id header on any answer"}
	posts, sessions, first := h.SessionsSeen()
	judgeNoSession(posts, sessions, first, &c)
	if c.Status == report.CheckFail {
		method := "server/discover"
		if slices.Contains([]string{"tools/list", "prompts/list", "resources/list", "resources/templates/list"}, first) {
			method = first
		}
		c.Request = protocheck.RequestLine(method, json.RawMessage(`{"_meta":`+string(repro.Envelope(version))+`}`))
	}
	return c
}

// judgeNoSession decides the no-session check from the number of answers
// to stateless POSTs, how many set a session id, and the method of the
// first that did. The id is never shown: it may be a bearer-like token.
func judgeNoSession(posts, sessions int64, first string, c *report.Check) {
	switch {
	case sessions > 0:
		c.Status, c.Code = report.CheckFail, report.CodeSessionIssued
		c.Detail = fmt.Sprintf("the answer to %s set a session id (Mcp-Session-Id; its value is not shown), and %d of the audit's %d answers did",
			cmp.Or(first, "a request"), sessions, posts)
	case posts == 0:
		c.Status, c.Detail = report.CheckSkip, "no stateless request was answered over HTTP"
	default:
		c.Status, c.Detail = report.CheckPass, fmt.Sprintf("none of the audit's %s set Mcp-Session-Id", words.Plural(int(posts), "answer", "answers"))
	}
}

// fetched is the answer to one GET, its body cut at [maxCheckBody].
type fetched struct {
	status    int
	mediaType string
	body      []byte
}

// errOverCap marks an answer longer than [maxCheckBody].
var errOverCap = fmt.Errorf("the answer is over %d KiB", maxCheckBody>>10)

// get sends GET path (on the origin of --url) accepting accept, and reads
// the answer up to maxCheckBody within the checker's timeout.
func (hc *httpChecker) get(ctx context.Context, path, accept string) (fetched, error) {
	ctx, cancel := context.WithTimeout(ctx, hc.timeout)
	defer cancel()
	resp, err := hc.send(ctx, path, accept)
	if err != nil {
		return fetched{}, err
	}
	defer resp.Body.Close()
	f := fetched{status: resp.StatusCode, mediaType: httpcap.MediaType(resp.Header.Get("Content-Type"))}
	f.body, err = io.ReadAll(io.LimitReader(resp.Body, maxCheckBody+1))
	switch {
	case len(f.body) > maxCheckBody:
		return f, errOverCap
	case err != nil:
		return f, fmt.Errorf("reading the answer: %w", err)
	}
	return f, nil
}

// send sends GET path with accept and the user's headers (the transport
// adds them), and no Mcp-Protocol-Version: these are not MCP requests.
func (hc *httpChecker) send(ctx context.Context, path, accept string) (*http.Response, error) {
	probe := &session.HTTPProbe{Headers: http.Header{"Mcp-Protocol-Version": {""}}}
	req, err := http.NewRequestWithContext(context.WithValue(ctx, session.ProbeKey{}, probe), http.MethodGet, repro.Origin(hc.target)+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", accept)
	return hc.client.Do(req)
}

// why says, redacted and bounded, why GET path, sent with ctx, failed.
func (hc *httpChecker) why(ctx context.Context, path string, err error) string {
	what := err.Error()
	var ue *url.Error
	switch {
	case errors.Is(context.Cause(ctx), errAuthBudget):
		what = "not sent: " + errAuthBudget.Error()
	case errors.Is(err, context.DeadlineExceeded):
		what = fmt.Sprintf("no answer within %s", hc.timeout)
	case errors.Is(err, context.Canceled):
		what = "the run was interrupted"
	case errors.Is(err, errOverCap):
	case errors.As(err, &ue):
		what = ue.Err.Error() // without the URL, said once below
	}
	return fmt.Sprintf("GET %s: %s", hc.name(path), textcut.Excerpt(hc.leak.Redact(what), 200))
}

// name is server-chosen text fit for a detail: redacted and bounded (the
// renderers escape it).
func (hc *httpChecker) name(s string) string {
	return textcut.Excerpt(hc.leak.Redact(s), maxNameText)
}

// wellKnown are the paths to try, in order, for the well-known suffixes
// under an URL path p (RFC 8615, inserted before the path as RFC 8414 and
// RFC 9728 say), duplicates dropped.
func wellKnown(p string, paths ...string) []string {
	p = strings.TrimRight(p, "/")
	var out []string
	for _, w := range paths {
		w = strings.ReplaceAll(w, "{path}", p)
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// authChecks are the checks of the authorization server metadata:
// auth-no-dcr and auth-iss.
func (hc *httpChecker) authChecks(ctx context.Context) []report.Check {
	noDCR := report.Check{ID: "compliance/auth-no-dcr", Group: "compliance",
		Title:    "the authorization server offers client ID metadata documents, not dynamic client registration alone",
		Expected: "client_id_metadata_document_supported: true wherever registration_endpoint is advertised"}
	iss := report.Check{ID: "compliance/auth-iss", Group: "compliance",
		Title:    "the authorization server names itself in authorization responses (RFC 9207) and in its metadata (RFC 8414)",
		Expected: "authorization_response_iss_parameter_supported: true, and issuer equal to the issuer the metadata was fetched for"}
	accept := []string{"Accept: " + acceptJSON}
	noDCR.Headers, iss.Headers = accept, accept
	both := func(status, detail, path string) []report.Check {
		for _, c := range []*report.Check{&noDCR, &iss} {
			c.Status, c.Detail = status, detail
			if path != "" {
				c.HTTP = "GET " + path
			}
		}
		return []report.Check{noDCR, iss}
	}

	issuers, path, skip := hc.protectedResource(ctx)
	if skip != "" {
		return both(report.CheckSkip, skip, path)
	}
	var other string
	var judged int
	for _, issuer := range issuers {
		u, err := url.Parse(issuer)
		switch {
		case err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "":
			if other == "" {
				other = "an issuer that is not an http(s) URL: " + hc.name(issuer)
			}
			continue
		case !session.SameOrigin(u, hc.target):
			if other == "" {
				other = "the authorization server is on another origin (" + hc.name(issuer) + "); mcp-fuzz sends nothing to other origins"
			}
			continue
		}
		meta, metaPath, skip := hc.authServer(ctx, u)
		if skip != "" {
			return both(report.CheckSkip, skip, metaPath)
		}
		if meta == nil {
			continue
		}
		judged++
		a, b := judgeAuthServer(issuer, meta, hc.name)
		// The first failure of each check is kept; a pass is replaced by
		// the next issuer's verdict.
		for _, p := range []struct {
			c *report.Check
			v checkVerdict
		}{{&noDCR, a}, {&iss, b}} {
			if p.c.Status != report.CheckFail {
				p.c.Status, p.c.Code, p.c.Detail, p.c.HTTP = p.v.status, p.v.code, p.v.detail, "GET "+metaPath
			}
		}
	}
	switch {
	case judged > 0:
		return []report.Check{noDCR, iss}
	case other != "":
		return both(report.CheckSkip, other, "")
	}
	return both(report.CheckSkip, "no authorization server metadata was found for the issuers the protected-resource metadata names", path)
}

// protectedResource fetches the OAuth protected-resource metadata (RFC
// 9728) of --url and returns the authorization servers it names (at most
// [maxIssuers]) and the path it came from; skip says why there are none.
func (hc *httpChecker) protectedResource(ctx context.Context) (issuers []string, path, skip string) {
	skip = "the server publishes no OAuth protected-resource metadata"
	for _, p := range wellKnown(hc.target.EscapedPath(), "/.well-known/oauth-protected-resource{path}", "/.well-known/oauth-protected-resource") {
		f, err := hc.get(ctx, p, acceptJSON)
		if err != nil {
			return nil, p, hc.why(ctx, p, err)
		}
		var prm struct {
			AuthorizationServers []json.RawMessage `json:"authorization_servers"`
		}
		if f.status/100 != 2 || json.Unmarshal(f.body, &prm) != nil {
			continue
		}
		for _, raw := range prm.AuthorizationServers {
			var s string
			if json.Unmarshal(raw, &s) == nil && s != "" && len(issuers) < maxIssuers {
				issuers = append(issuers, s)
			}
		}
		if len(issuers) > 0 {
			return issuers, p, ""
		}
		path, skip = p, "the protected-resource metadata at "+hc.name(p)+" names no authorization server"
	}
	return nil, path, skip
}

// authServer fetches the metadata of the authorization server issuer (on
// the origin of --url): the first JSON object with a string issuer at its
// well-known paths, nil when none answers with one. skip says why a GET
// failed.
func (hc *httpChecker) authServer(ctx context.Context, issuer *url.URL) (meta map[string]json.RawMessage, path, skip string) {
	for _, p := range wellKnown(issuer.EscapedPath(), "/.well-known/oauth-authorization-server{path}", "/.well-known/oauth-authorization-server", "/.well-known/openid-configuration{path}") {
		f, err := hc.get(ctx, p, acceptJSON)
		if err != nil {
			return nil, p, hc.why(ctx, p, err)
		}
		var m map[string]json.RawMessage
		var name string
		if f.status/100 != 2 || json.Unmarshal(f.body, &m) != nil || json.Unmarshal(m["issuer"], &name) != nil {
			continue
		}
		return m, p, ""
	}
	return nil, "", ""
}

// checkVerdict is a check's status, code and detail.
type checkVerdict struct {
	status, code, detail string
}

// judgeAuthServer judges the metadata meta of the authorization server
// issuer for auth-no-dcr and auth-iss; name makes server text (the issuer
// too) fit for a detail.
func judgeAuthServer(issuer string, meta map[string]json.RawMessage, name func(string) string) (noDCR, iss checkVerdict) {
	shown := name(issuer)
	isTrue := func(k string) bool {
		var b bool
		return json.Unmarshal(meta[k], &b) == nil && b
	}
	var registration string
	dcr := json.Unmarshal(meta["registration_endpoint"], &registration) == nil
	switch {
	case dcr && !isTrue("client_id_metadata_document_supported"):
		noDCR = checkVerdict{report.CheckFail, report.CodeAuthMetadata,
			"the metadata of " + shown + " advertises dynamic client registration (registration_endpoint) without client_id_metadata_document_supported: true"}
	case dcr:
		noDCR = checkVerdict{status: report.CheckPass, detail: "the metadata of " + shown + " advertises client ID metadata documents beside dynamic client registration"}
	default:
		noDCR = checkVerdict{status: report.CheckPass, detail: "the metadata of " + shown + " advertises no registration_endpoint"}
	}
	var problems []string
	var got string
	_ = json.Unmarshal(meta["issuer"], &got)
	if got != issuer {
		problems = append(problems, "its issuer, "+name(got)+", is not "+shown+", the issuer it was fetched for (RFC 8414 §3.3)")
	}
	if !isTrue("authorization_response_iss_parameter_supported") {
		problems = append(problems, "authorization_response_iss_parameter_supported is not true (RFC 9207)")
	}
	if len(problems) > 0 {
		iss = checkVerdict{report.CheckFail, report.CodeAuthMetadata, "the metadata of " + shown + ": " + strings.Join(problems, "; ")}
	} else {
		iss = checkVerdict{status: report.CheckPass, detail: "the metadata of " + shown + " names its issuer and sets authorization_response_iss_parameter_supported: true"}
	}
	return noDCR, iss
}

// endpointEvent is the line by which the legacy HTTP+SSE transport (2024-11-05)
// tells the client where to POST.
var endpointEvent = regexp.MustCompile(`^event:\s*endpoint\s*$`)

// legacySSE GETs --url as a client of the deprecated HTTP+SSE transport
// does, and listens for an endpoint event for at most protocheck.SSEWindow and
// maxCheckBody bytes; the stream may never end, so the body is closed as
// soon as that is decided.
func (hc *httpChecker) legacySSE(ctx context.Context) report.Check {
	c := report.Check{ID: "compliance/legacy-sse", Group: "compliance",
		Title:    "the server does not serve the deprecated HTTP+SSE transport",
		Expected: "no endpoint event on GET (HTTP 405, or a stream without one)",
		HTTP:     "GET " + cmp.Or(hc.target.EscapedPath(), "/"), Headers: []string{"Accept: " + protocheck.AcceptSSE}}
	path := strings.TrimPrefix(c.HTTP, "GET ")
	if hc.target.RawQuery != "" {
		path += "?" + hc.target.RawQuery
	}
	ctx, cancel := context.WithTimeout(ctx, hc.timeout)
	defer cancel()
	resp, err := hc.send(ctx, path, protocheck.AcceptSSE)
	if err != nil {
		c.Status, c.Detail = report.CheckSkip, hc.why(ctx, strings.TrimPrefix(c.HTTP, "GET "), err)
		return c
	}
	defer resp.Body.Close()
	mt := httpcap.MediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode/100 != 2 || mt != protocheck.AcceptSSE {
		c.Status = report.CheckPass
		c.Detail = fmt.Sprintf("HTTP %d (%s) to GET: no event stream", resp.StatusCode, hc.name(cmp.Or(mt, "no content type")))
		return c
	}
	stop := time.AfterFunc(protocheck.SSEWindow, cancel)
	defer stop.Stop()
	found, n := scanEndpoint(io.LimitReader(resp.Body, maxCheckBody))
	if found {
		c.Status, c.Code = report.CheckFail, report.CodeDeprecatedFeature
		c.Detail = "serves the deprecated HTTP+SSE transport (an endpoint event on GET)"
		return c
	}
	c.Status = report.CheckPass
	c.Detail = fmt.Sprintf("HTTP %d event stream without an endpoint event in its first %d bytes (read for at most %s)", resp.StatusCode, n, protocheck.SSEWindow)
	return c
}

// scanEndpoint reads r line by line until an endpoint event line, the end
// or an error (the window closed), and returns whether it found one and
// how many bytes it read.
func scanEndpoint(r io.Reader) (found bool, n int) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxCheckBody)
	for sc.Scan() {
		n += len(sc.Bytes()) + 1
		if endpointEvent.Match(sc.Bytes()) {
			return true, n
		}
	}
	return false, n
}
