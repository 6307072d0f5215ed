package engine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-fuzz/mcp-fuzz/internal/bigjson"
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

// headerTransport sends requests to the target origin only. It adds the
// user's headers and the negotiated protocol version to each, remembers the
// status of the last POST, and refuses a request to any other origin.
type headerTransport struct {
	base            http.RoundTripper
	target          *url.URL // --url
	headers         http.Header
	protocolVersion atomic.Value // string
	// stateless is true once the session negotiated the modern era: no
	// session id is sent back then.
	stateless      atomic.Bool
	lastPostStatus atomic.Int64
	maxResponse    int // the response cap; see capBody

	// modernPosts and sessionAnswers count the answers to POSTs of the
	// stateless era (server/discover, and every POST sent while stateless),
	// and those of them that set Mcp-Session-Id (see
	// [headerTransport.sessionsSeen]).
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
// validated --url) with the user's --header values and --bearer token.
func newHeaderTransport(rawURL string, headers []string, bearer string) (*headerTransport, error) {
	target, err := url.Parse(rawURL)
	if err != nil {
		return nil, &ConfigError{Format: "{URL} %q: does not parse", Args: []any{hideUserinfo(rawURL)}}
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
			if enc := mcpNameHeader(vs[0]); enc != vs[0] {
				req.Header.Del(k)
				req.Header.Set("Mcp-Name", enc)
			}
		}
	}
	// The tools/call's Mcp-Param headers (see paramTable), before a
	// protocol check's own, which may break one of them.
	applyParamHeaders(req.Context(), req.Header)
	probe, _ := req.Context().Value(httpProbeKey{}).(*httpProbe)
	if probe != nil {
		for k, vs := range probe.headers {
			req.Header.Del(k)
			if len(vs) > 0 && vs[0] != "" {
				req.Header[http.CanonicalHeaderKey(k)] = vs
			}
		}
	}
	resp, err := h.base.RoundTrip(req)
	if probe != nil && err == nil && req.Method == http.MethodPost {
		probe.status.Store(int64(resp.StatusCode))
		probe.contentType.Store(mediaType(resp.Header.Get("Content-Type")))
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
		h.capBody(req, resp)
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
func (p *httpProbe) readError(resp *http.Response) {
	head, _ := io.ReadAll(io.LimitReader(resp.Body, maxProbeErrorBody))
	resp.Body = &limitBody{r: io.MultiReader(bytes.NewReader(head), resp.Body), c: resp.Body}
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
	p.rpcErr.Store(&rpc.Error{Code: *msg.Error.Code, Message: msg.Error.Message, Data: msg.Error.Data})
}

// noteAnswer counts an answer to a POST of the stateless era, to a request
// for method, and whether it set a session id.
func (h *headerTransport) noteAnswer(method string, session bool) {
	h.modernPosts.Add(1)
	if !session {
		return
	}
	if h.sessionAnswers.Add(1) == 1 {
		h.mu.Lock()
		h.sessionFirst = orText(method, "a request without Mcp-Method")
		h.mu.Unlock()
	}
}

// sessionsSeen returns how many answers to POSTs of the stateless era h
// saw, how many of them set Mcp-Session-Id, and the method of the first
// that did.
func (h *headerTransport) sessionsSeen() (posts, sessions int64, first string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.modernPosts.Load(), h.sessionAnswers.Load(), h.sessionFirst
}

// httpProbeKey carries, in the context of a protocol check's request, the
// check's [httpProbe].
type httpProbeKey struct{}

// httpProbe is a protocol check's view of its HTTP request: headers that
// replace mcp-fuzz's own (an empty value removes one; a header that
// contradicts the body), and the status, media type and, for an HTTP
// error, the body's JSON-RPC error of the answer.
type httpProbe struct {
	headers     http.Header
	status      atomic.Int64
	contentType atomic.Value // string
	// rpcErr is the JSON-RPC error in the body of an HTTP error answer.
	rpcErr atomic.Pointer[rpc.Error]
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

// Bounding what an HTTP server sends.
//
// The SDK's streamable client reads a JSON answer whole (io.ReadAll) and an
// SSE event up to 16 MiB, so a hostile server could make mcp-fuzz hold
// gigabytes. The headerTransport therefore wraps the body of each answer to
// a POST (and of the legacy SSE stream): a message up to the response cap
// passes through unchanged; a larger one is read to its end through a
// [bigjson.Scanner] and discarded, and the SDK is handed a small stand-in in
// its place, an error answer with the same id. The stand-in keeps the SDK's
// connection alive (an empty or cut body would fail it), and its text does
// not matter: the truth is an [rpc.Oversize] recorded in the session's
// [capStore], which only this code writes. The session's connection
// ([capConn]) swaps it in as the Go error of the stand-in response, so the
// caller gets the Oversize and a server cannot forge one by sending the
// same text. Each session has its own store, found through the request's
// context (capConn.Write puts it there; the SDK builds every POST with the
// context of the Write), so a stale record cannot leak into a reconnect
// whose ids start again at 1.

// capStore holds the oversize answers of one session, by JSON-RPC id.
type capStore struct {
	max int

	mu       sync.Mutex
	done     map[any]*rpc.Oversize // answers read to their end, by id.Raw()
	inFlight map[any]*rpc.Oversize // answers over the cap still being read
	// cut are answers whose reading was cut off (the call timed out) and
	// whose stand-in was already delivered: kept for [capStore.unfinished]
	// until the next call starts.
	cut map[any]*rpc.Oversize
}

func newCapStore(max int) *capStore {
	return &capStore{max: max, done: map[any]*rpc.Oversize{}, inFlight: map[any]*rpc.Oversize{}, cut: map[any]*rpc.Oversize{}}
}

// newCall forgets the answers cut off during earlier calls.
func (s *capStore) newCall() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.cut)
}

// take removes and returns the oversize answer recorded for id.
func (s *capStore) take(id jsonrpc.ID) *rpc.Oversize {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.done[id.Raw()]
	if o == nil {
		// Cut off before it ended: the stand-in comes when the body read
		// fails, which may come before or after the call notices its
		// timeout, so the record stays where unfinished finds it.
		if o = s.inFlight[id.Raw()]; o != nil {
			s.cut[id.Raw()] = o
		}
	}
	delete(s.done, id.Raw())
	delete(s.inFlight, id.Raw())
	return o
}

// unfinished returns the oversize answer to id still being read, or cut
// off during this call, or nil.
func (s *capStore) unfinished(id jsonrpc.ID) *rpc.Oversize {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.inFlight[id.Raw()]
	if o == nil {
		o = s.cut[id.Raw()]
	}
	if o == nil {
		return nil
	}
	c := *o
	return &c
}

// forget drops what is recorded for id.
func (s *capStore) forget(id jsonrpc.ID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.inFlight, id.Raw())
	delete(s.done, id.Raw())
}

// progress records the state of an oversize answer to id.
func (s *capStore) progress(id jsonrpc.ID, o *rpc.Oversize) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o.Ended {
		delete(s.inFlight, id.Raw())
		s.done[id.Raw()] = o
		return
	}
	s.inFlight[id.Raw()] = o
}

// capKey is the context key of a *capCall.
type capKey struct{}

// capCall ties an HTTP request to its session's store and to the call it
// carries.
type capCall struct {
	store *capStore
	id    jsonrpc.ID // the call's id; invalid for the legacy SSE stream
}

// capConn is a session's connection: it tells the HTTP layer which store the
// requests belong to, and turns the stand-ins of oversize answers back into
// [rpc.Oversize] errors.
type capConn struct {
	mcp.Connection
	store *capStore
}

func (c *capConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	cc := &capCall{store: c.store}
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		c.store.newCall()
		cc.id = req.ID
		if w, ok := ctx.Value(capWatchKey{}).(*capWatch); ok {
			w.id = req.ID
		}
	}
	return c.Connection.Write(context.WithValue(ctx, capKey{}, cc), msg)
}

func (c *capConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		if o := c.store.take(resp.ID); o != nil {
			resp.Result, resp.Error = nil, o
		}
	}
	return msg, err
}

// capWatchKey is the context key of a *capWatch.
type capWatchKey struct{}

// capWatch learns the id of the call made with its context, so that a call
// that timed out can ask whether its answer was an oversize one still coming.
type capWatch struct{ id jsonrpc.ID }

// standIn is the body that replaces an oversize answer to id.
func standIn(id jsonrpc.ID) []byte {
	b, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "mcp-fuzz: answer over the response cap"}})
	return b
}

// capBody wraps the body of resp, an answer to req, according to its type.
func (h *headerTransport) capBody(req *http.Request, resp *http.Response) {
	max := h.maxResponse
	if max <= 0 {
		max = rpc.DefaultMaxResponse
	}
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		// The SDK reads an error body whole, to find a JSON-RPC error in it.
		resp.Body = &limitBody{r: io.LimitReader(resp.Body, int64(max)), c: resp.Body}
		return
	}
	cc, _ := req.Context().Value(capKey{}).(*capCall)
	if cc == nil {
		return
	}
	switch mediaType(resp.Header.Get("Content-Type")) {
	case "application/json":
		if cc.id.IsValid() {
			resp.Body = &jsonCap{body: resp.Body, max: max, call: cc}
		}
	case "text/event-stream":
		resp.Body = &sseCap{src: bufio.NewReaderSize(resp.Body, 64<<10), body: resp.Body, max: max, call: cc}
	}
}

func mediaType(ct string) string {
	mt, _, _ := strings.Cut(ct, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

// limitBody is a body cut at a limit.
type limitBody struct {
	r io.Reader
	c io.Closer
}

func (l *limitBody) Read(p []byte) (int, error) { return l.r.Read(p) }
func (l *limitBody) Close() error               { return l.c.Close() }

// jsonCap is an application/json answer to one call, held only up to max
// bytes.
type jsonCap struct {
	body io.ReadCloser
	max  int
	call *capCall
	out  io.Reader // what the SDK reads, once decided
}

func (j *jsonCap) Read(p []byte) (int, error) {
	if j.out == nil {
		buf, err := io.ReadAll(io.LimitReader(j.body, int64(j.max)+1))
		if err != nil {
			return 0, err
		}
		if len(buf) <= j.max {
			j.out = bytes.NewReader(buf)
		} else {
			j.out = bytes.NewReader(j.scan(buf))
		}
	}
	return j.out.Read(p)
}

// scan reads the rest of an oversize answer that began with buf, records it,
// and returns its stand-in. The record is the call's whatever the body
// holds, so one that is not JSON, or answers another id, is recorded as
// malformed: its size must not make it pass for a sound answer.
func (j *jsonCap) scan(buf []byte) []byte {
	var sc bigjson.Scanner
	sc.Write(buf)
	head := append([]byte(nil), buf[:min(len(buf), rpc.HeadLen)]...)
	store, id := j.call.store, j.call.id
	store.progress(id, oversizeFor(sc.Summary(), false, head, id))
	chunk := make([]byte, 32<<10)
	for {
		n, err := j.body.Read(chunk)
		sc.Write(chunk[:n])
		if n > 0 {
			store.progress(id, oversizeFor(sc.Summary(), false, head, id))
		}
		if err != nil {
			// Cut off (the call's context ended): the caller is gone, and a
			// stand-in keeps the SDK's connection alive; its late answer is
			// dropped.
			store.progress(id, oversizeFor(sc.Summary(), errors.Is(err, io.EOF), head, id))
			return standIn(id)
		}
	}
}

// oversizeFor describes an oversize answer recorded as the answer to the
// call with id want: besides what [rpc.NewOversize] finds, it is malformed
// when its own id is another (or, once it ended, when it has none).
func oversizeFor(sum bigjson.Summary, ended bool, head []byte, want jsonrpc.ID) *rpc.Oversize {
	o := rpc.NewOversize(sum, ended, head)
	if o.Malformed != "" {
		return o
	}
	switch got, ok := rpc.ParseID(sum.ID); {
	case sum.ID == "":
		if ended {
			o.Malformed = `no "id" that names this request`
		}
	case !ok || got.Raw() != want.Raw():
		o.Malformed = fmt.Sprintf("answer to id %s, not to this request", rpc.Excerpt([]byte(sum.ID), 64))
	}
	return o
}

func (j *jsonCap) Close() error { return j.body.Close() }

// sseCap is a text/event-stream answer in which each event is held only up
// to max bytes. A larger event that is an answer becomes a stand-in event;
// any other (a notification, a request, garbage) is dropped.
type sseCap struct {
	src  *bufio.Reader
	body io.Closer
	max  int
	call *capCall

	out []byte // ready for the SDK
	err error  // once out is drained

	event   []byte // the current event, as long as it is under max
	data    []byte // its data, joined as the SDK joins it
	nData   int    // data lines in the current event
	over    bool   // the current event went over max: it is being scanned
	sc      bigjson.Scanner
	head    []byte
	id      []byte // the event's "id:" line, kept when short
	field   []byte // the field name of the line being read
	midLine bool   // a line has begun and not ended
}

func (s *sseCap) Close() error { return s.body.Close() }

func (s *sseCap) Read(p []byte) (int, error) {
	for len(s.out) == 0 && s.err == nil {
		s.step()
	}
	if len(s.out) > 0 {
		n := copy(p, s.out)
		s.out = s.out[n:]
		return n, nil
	}
	return 0, s.err
}

// step reads one fragment of a line.
func (s *sseCap) step() {
	frag, err := s.src.ReadSlice('\n')
	lineStart := !s.midLine
	if lineStart {
		name, _, _ := bytes.Cut(frag, []byte(":"))
		s.field = append(s.field[:0], name...)
		s.nData += boolInt(string(s.field) == "data")
	}
	s.midLine = err != nil
	isData := string(s.field) == "data"
	endOfLine := err == nil
	if !s.over {
		s.event = append(s.event, frag...)
		if isData {
			part := frag
			if lineStart {
				_, part, _ = bytes.Cut(frag, []byte(":"))
				if s.nData > 1 {
					s.data = append(s.data, '\n')
				}
			}
			s.data = append(s.data, part...)
		}
		if len(s.event) > s.max {
			s.goOver()
		}
	} else if isData {
		part := frag
		if lineStart {
			_, part, _ = bytes.Cut(frag, []byte(":"))
			if s.nData > 1 {
				s.sc.Write([]byte("\n"))
			}
		}
		s.feed(part)
	}
	if endOfLine {
		if lineStart && len(bytes.TrimRight(frag, "\r\n")) == 0 { // a blank line ends the event
			s.endEvent()
		}
	}
	switch {
	case err == bufio.ErrBufferFull:
	case errors.Is(err, io.EOF):
		s.endEvent() // as the SDK does at the end of the stream
		s.err = err
	case err != nil:
		if s.over && s.call.id.IsValid() {
			s.call.store.progress(s.call.id, s.unfinished())
		}
		s.err = err
	}
}

// feed passes data of an oversize event to the scanner.
func (s *sseCap) feed(b []byte) {
	s.sc.Write(b)
	if s.call.id.IsValid() && s.sc.Summary().Bytes%(1<<20) < int64(len(b)) { // about every MiB
		s.call.store.progress(s.call.id, s.unfinished())
	}
}

// unfinished describes the oversize event being read, as far as it went,
// for the call the stream answers. A request or notification is no
// violation in the stream: only its size is told.
func (s *sseCap) unfinished() *rpc.Oversize {
	sum := s.sc.Summary()
	o := oversizeFor(sum, false, s.head, s.call.id)
	if sum.HasMethod {
		o.Malformed = ""
	}
	return o
}

// goOver switches the current event to scanning.
func (s *sseCap) goOver() {
	s.over = true
	s.sc = bigjson.Scanner{}
	s.sc.Write(s.data)
	d := bytes.TrimLeft(s.data, " \t")
	s.head = append([]byte(nil), d[:min(len(d), rpc.HeadLen)]...)
	for line := range bytes.Lines(s.event) {
		if bytes.HasPrefix(line, []byte("id:")) && len(line) < 256 {
			s.id = append([]byte(nil), line...)
		}
	}
	s.event, s.data = s.event[:0], s.data[:0]
}

// endEvent passes on the event that just ended, or its stand-in.
func (s *sseCap) endEvent() {
	s.nData = 0
	if !s.over {
		s.out, s.event, s.data = append(s.out, s.event...), s.event[:0], s.data[:0]
		return
	}
	s.over = false
	sum := s.sc.Summary()
	id := s.call.id
	if sum.ID != "" {
		if found, ok := rpc.ParseID(sum.ID); ok {
			id = found
		}
	}
	if s.call.id.IsValid() {
		s.call.store.forget(s.call.id) // what feed recorded, if this is no answer to it
	}
	// An event that is not JSON may have been the answer: the call gets it,
	// malformed, rather than waiting in vain.
	if !sum.HasResult && !sum.HasError && !sum.Invalid || !id.IsValid() {
		s.id = nil
		return // not an answer: dropped
	}
	s.call.store.progress(id, oversizeFor(sum, true, s.head, id))
	s.out = append(s.out, s.id...)
	s.out = append(s.out, "event: message\ndata: "...)
	s.out = append(s.out, standIn(id)...)
	s.out = append(s.out, "\n\n"...)
	s.id = nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
