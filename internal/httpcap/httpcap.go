// Package httpcap bounds what an HTTP MCP server sends.
//
// The SDK's streamable client reads a JSON answer whole (io.ReadAll) and an
// SSE event up to 16 MiB, so a hostile server could make mcp-fuzz hold
// gigabytes. The HTTP transport therefore wraps the body of each answer to
// a POST (and of the legacy SSE stream) with [Body]: a message up to the
// response cap passes through unchanged; a larger one is read to its end
// through a [bigjson.Scanner] and discarded, and the SDK is handed a small
// stand-in in its place, an error answer with the same id. The stand-in
// keeps the SDK's connection alive (an empty or cut body would fail it),
// and its text does not matter: the truth is an [rpc.Oversize] recorded in
// the session's [Store], which only this code writes. The session's
// connection ([Conn]) swaps it in as the Go error of the stand-in
// response, so the caller gets the Oversize and a server cannot forge one
// by sending the same text. Each session has its own store, found through
// the request's context (Conn.Write puts it there; the SDK builds every
// POST with the context of the Write), so a stale record cannot leak into
// a reconnect whose ids start again at 1.
package httpcap

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/mcp-fuzz/mcp-fuzz/internal/bigjson"
	"github.com/mcp-fuzz/mcp-fuzz/internal/rpc"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Store holds the oversize answers of one session, by JSON-RPC id.
type Store struct {
	max int

	mu       sync.Mutex
	done     map[any]*rpc.Oversize // answers read to their end, by id.Raw()
	inFlight map[any]*rpc.Oversize // answers over the cap still being read
	// cut are answers whose reading was cut off (the call timed out) and
	// whose stand-in was already delivered: kept for [Store.unfinished]
	// until the next call starts.
	cut map[any]*rpc.Oversize
}

func NewStore(max int) *Store {
	return &Store{max: max, done: map[any]*rpc.Oversize{}, inFlight: map[any]*rpc.Oversize{}, cut: map[any]*rpc.Oversize{}}
}

// newCall forgets the answers cut off during earlier calls.
func (s *Store) newCall() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.cut)
}

// take removes and returns the oversize answer recorded for id.
func (s *Store) take(id jsonrpc.ID) *rpc.Oversize {
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

// Unfinished returns the oversize answer to id still being read, or cut
// off during this call, or nil.
func (s *Store) Unfinished(id jsonrpc.ID) *rpc.Oversize {
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
func (s *Store) forget(id jsonrpc.ID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.inFlight, id.Raw())
	delete(s.done, id.Raw())
}

// PastCap reports whether the store is reading an answer over its cap.
func (s *Store) PastCap() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range s.inFlight {
		if o.Bytes > int64(s.max) {
			return true
		}
	}
	return false
}

// progress records the state of an oversize answer to id.
func (s *Store) progress(id jsonrpc.ID, o *rpc.Oversize) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o.Ended {
		delete(s.inFlight, id.Raw())
		s.done[id.Raw()] = o
		return
	}
	s.inFlight[id.Raw()] = o
}

// storeKey is the context key of a *call.
type storeKey struct{}

// WithStore returns ctx carrying store: the answers to the requests made
// with it (the legacy SSE stream's GET) are bounded and recorded there.
// The requests of a [Conn] carry their store themselves.
func WithStore(ctx context.Context, store *Store) context.Context {
	return context.WithValue(ctx, storeKey{}, &call{store: store})
}

// call ties an HTTP request to its session's store and to the call it
// carries.
type call struct {
	store *Store
	id    jsonrpc.ID // the call's id; invalid for the legacy SSE stream
}

// Conn is a session's connection: it tells the HTTP layer which store the
// requests belong to, and turns the stand-ins of oversize answers back into
// [rpc.Oversize] errors.
type Conn struct {
	mcp.Connection
	store *Store
}

// NewConn is conn, a session's connection whose answers are recorded in
// store.
func NewConn(conn mcp.Connection, store *Store) *Conn {
	return &Conn{Connection: conn, store: store}
}

// Store is the store of c's answers.
func (c *Conn) Store() *Store { return c.store }

// Write sends msg with c's store on its context, and a call's id to the
// [Watch] of ctx, if any.
func (c *Conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	cc := &call{store: c.store}
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		c.store.newCall()
		cc.id = req.ID
		if w, ok := ctx.Value(watchKey{}).(*Watch); ok {
			w.id = req.ID
		}
	}
	return c.Connection.Write(context.WithValue(ctx, storeKey{}, cc), msg)
}

// Read reads the next message, an oversize answer's stand-in turned into
// its [rpc.Oversize].
func (c *Conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		if o := c.store.take(resp.ID); o != nil {
			resp.Result, resp.Error = nil, o
		}
	}
	return msg, err
}

// watchKey is the context key of a *Watch.
type watchKey struct{}

// Watch learns the id of the call made with its context, so that a call
// that timed out can ask whether its answer was an oversize one still coming.
type Watch struct{ id jsonrpc.ID }

// WithWatch returns ctx carrying a new Watch: the id of the call made with
// it, once sent, is the watch's.
func WithWatch(ctx context.Context) (context.Context, *Watch) {
	w := &Watch{}
	return context.WithValue(ctx, watchKey{}, w), w
}

// ID is the id of the call watched; invalid until it is sent.
func (w *Watch) ID() jsonrpc.ID { return w.id }

// StandIn is the body that replaces an oversize answer to id.
func StandIn(id jsonrpc.ID) []byte {
	b, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "mcp-fuzz: answer over the response cap"}})
	return b
}

// Body wraps the body of resp, an answer to req, according to its type:
// each message is held only up to max bytes ([rpc.DefaultMaxResponse] when
// max is 0 or less), and recorded in the store of req's context (see
// [WithStore] and [Conn]) when it is over.
func Body(req *http.Request, resp *http.Response, max int) {
	if max <= 0 {
		max = rpc.DefaultMaxResponse
	}
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		// The SDK reads an error body whole, to find a JSON-RPC error in it.
		resp.Body = &limitBody{r: io.LimitReader(resp.Body, int64(max)), c: resp.Body}
		return
	}
	cc, _ := req.Context().Value(storeKey{}).(*call)
	if cc == nil {
		return
	}
	switch MediaType(resp.Header.Get("Content-Type")) {
	case "application/json":
		if cc.id.IsValid() {
			resp.Body = &jsonCap{body: resp.Body, max: max, call: cc}
		}
	case "text/event-stream":
		resp.Body = &sseCap{src: bufio.NewReaderSize(resp.Body, 64<<10), body: resp.Body, max: max, call: cc}
	}
}

// MediaType is the media type of a Content-Type header value, lower case.
func MediaType(ct string) string {
	mt, _, _ := strings.Cut(ct, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

// limitBody is a body cut at a limit.
type limitBody struct {
	r io.Reader
	c io.Closer
}

func (l *limitBody) Read(p []byte) (int, error) { return l.r.Read(p) }

func (l *limitBody) Close() error { return l.c.Close() }

// jsonCap is an application/json answer to one call, held only up to max
// bytes.
type jsonCap struct {
	body io.ReadCloser
	max  int
	call *call
	out  io.Reader // what the SDK reads, once decided
}

func (j *jsonCap) Read(p []byte) (int, error) {
	if j.out == nil {
		buf, err := io.ReadAll(io.LimitReader(j.body, int64(j.max)+1))
		if err != nil {
			return 0, err
		}
		switch {
		case len(buf) <= j.max && !json.Valid(buf):
			// Not JSON at all (an HTML error page served as JSON): the
			// call gets it as a malformed answer, a protocol violation,
			// rather than the SDK's decoding error ending the session.
			var sc bigjson.Scanner
			sc.Write(buf)
			head := buf[:min(len(buf), rpc.HeadLen)]
			j.call.store.progress(j.call.id, oversizeFor(sc.Summary(), true, head, j.call.id))
			j.out = bytes.NewReader(StandIn(j.call.id))
		case len(buf) <= j.max:
			j.out = bytes.NewReader(buf)
		default:
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
			return StandIn(id)
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
	call *call

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
	s.out = append(s.out, StandIn(id)...)
	s.out = append(s.out, "\n\n"...)
	s.id = nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
