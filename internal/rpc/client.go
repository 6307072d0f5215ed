package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrClosed is returned by [Client.Call] when the connection ended before the
// answer arrived.
var ErrClosed = errors.New("connection closed")

// Error is a JSON-RPC error answer.
type Error struct {
	Code    int64
	Message string
	Data    json.RawMessage
}

func (e *Error) Error() string { return fmt.Sprintf("json-rpc error %d: %s", e.Code, e.Message) }

// Violation is something the peer sent that breaks JSON-RPC.
type Violation struct {
	Kind    string // one of the Kind constants
	Excerpt string
}

// Kinds of [Violation].
const (
	// KindUnknownResponseID is an answer to an id this client never issued.
	KindUnknownResponseID = "unknown_response_id"
	// KindLateAnswer is an answer to an id this client issued earlier that
	// no call waits for any more: a second answer to an answered call, or an
	// answer to a call given up on beyond the first (see [Client.Call]).
	// It belongs to an earlier call, not to the one in flight.
	KindLateAnswer = "late_answer"
)

// A Pusher is a connection that can hand each message it receives to a
// function instead of keeping it for Read. [New] uses it when the connection
// has it: the answer then goes from the connection's reader goroutine
// straight to the caller, one goroutine hop fewer than through Read.
type Pusher interface {
	// Push makes the connection call deliver with every message it receives,
	// in order, those already received first, and end once when it will
	// deliver no more. deliver and end must not block for long. Read must not
	// be called afterwards.
	Push(deliver func(jsonrpc.Message), end func(error))
}

// Client issues calls over one connection. It is safe for concurrent use.
type Client struct {
	conn   mcp.Connection
	pushed bool // conn is a [Pusher]: no read loop

	mu        sync.Mutex
	lastID    int64 // the last id issued; ids run from 1
	pending   map[int64]chan *jsonrpc.Response
	abandoned recentIDs // calls given up on: their late answers are no violation
	closed    bool
	closeErr  error
	done      chan struct{}
	endOnce   sync.Once

	onViolation     func(Violation)
	onServerMessage func(method string, call bool)

	// answers to server-to-client requests wait in answers for the one
	// goroutine that writes them; when it is full they are dropped.
	answers chan *jsonrpc.Response
	dropped atomic.Int64
	ctx     context.Context // ends with the connection: it cuts a stuck answer short
	stop    context.CancelFunc
}

// New starts reading from conn. onViolation, if not nil, is called from the
// reader goroutine for every protocol violation seen.
func New(conn mcp.Connection, onViolation func(Violation)) *Client {
	return NewObserved(conn, onViolation, nil)
}

// NewObserved is [New] with onServerMessage, if not nil, called from the
// reader goroutine with the method of every request or notification the
// server sends (call is true for a request): it must not block.
func NewObserved(conn mcp.Connection, onViolation func(Violation), onServerMessage func(method string, call bool)) *Client {
	c := &Client{
		onServerMessage: onServerMessage,
		conn:            conn,
		pending:         make(map[int64]chan *jsonrpc.Response),
		abandoned:       recentIDs{set: make(map[int64]bool)},
		done:            make(chan struct{}),
		onViolation:     onViolation,
		answers:         make(chan *jsonrpc.Response, answerQueue),
	}
	c.ctx, c.stop = context.WithCancel(context.Background())
	go c.respond()
	if p, ok := conn.(Pusher); ok {
		c.pushed = true
		p.Push(c.dispatch, c.end)
	} else {
		go c.readLoop()
	}
	return c
}

// Conn returns the connection the client reads and writes.
func (c *Client) Conn() mcp.Connection { return c.conn }

// Done is closed when the connection has ended.
func (c *Client) Done() <-chan struct{} { return c.done }

// Ended reports whether the connection has ended (Done is closed).
func (c *Client) Ended() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// Err reports why the connection ended (nil while it is open).
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closeErr
}

// Close closes the underlying connection.
func (c *Client) Close() error {
	err := c.conn.Close()
	if c.pushed {
		// The connection may still be draining; nothing it delivers now
		// has a caller waiting.
		c.end(errClientClosed)
	}
	<-c.done
	return err
}

var errClientClosed = errors.New("closed by mcp-fuzz")

// end marks the connection ended for the reason err.
func (c *Client) end(err error) {
	c.endOnce.Do(func() {
		c.mu.Lock()
		c.closed = true
		c.closeErr = err
		c.mu.Unlock()
		c.stop()
		close(c.done)
	})
}

// Call sends method with params (marshalled as given; a json.RawMessage is sent
// verbatim) and waits for the answer. It returns the raw result, an [*Error]
// for an error answer, an [*Oversize] for an answer over the response cap,
// [ErrClosed] when the connection ended first, or the context's error when
// ctx is done first. In that last case it tells the server, with
// notifications/cancelled, and a late answer is dropped silently.
func (c *Client) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	raw, err := marshalParams(params)
	if err != nil {
		return nil, err
	}
	ch := make(chan *jsonrpc.Response, 1)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, fmt.Errorf("%w: %v", ErrClosed, c.closeErr)
	}
	// The id is issued and pending at once, so that deliver tells a late
	// answer (an id issued, not pending) from an unknown one.
	c.lastID++
	id := c.lastID
	c.pending[id] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
	}()
	rid, err := jsonrpc.MakeID(float64(id))
	if err != nil {
		return nil, err
	}
	req := &jsonrpc.Request{ID: rid, Method: method, Params: raw}
	if err := c.conn.Write(ctx, req); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// Over HTTP the answer may come back as the error of the write: a
		// 4xx whose body is a JSON-RPC error. The server answered; the
		// connection is alive.
		var we *jsonrpc.Error
		if errors.As(err, &we) && !isRejectedByTransport(we) {
			return nil, &Error{Code: we.Code, Message: we.Message, Data: we.Data}
		}
		return nil, fmt.Errorf("%w: sending %s: %v", ErrClosed, method, err)
	}
	if sent, ok := ctx.Value(sentKey{}).(func()); ok {
		sent()
	}
	select {
	case resp := <-ch:
		return decodeResponse(resp)
	case <-c.done:
		// A response may have raced with the close.
		select {
		case resp := <-ch:
			return decodeResponse(resp)
		default:
		}
		return nil, fmt.Errorf("%w: %v", ErrClosed, c.Err())
	case <-ctx.Done():
		select {
		case resp := <-ch: // it came just in time
			return decodeResponse(resp)
		default:
		}
		c.abandon(id, method, ctx.Err())
		return nil, ctx.Err()
	}
}

// sentKey is the context key of [WithSent]'s function.
type sentKey struct{}

// WithSent returns a context with which [Client.Call] calls sent once the
// request is written, before it waits for the answer: a caller that
// cancels the context there gives up on a request that is surely in
// flight (the server is told with notifications/cancelled).
func WithSent(ctx context.Context, sent func()) context.Context {
	return context.WithValue(ctx, sentKey{}, sent)
}

// cancelWait bounds the notifications/cancelled that follows a call given up
// on: it is a courtesy, and the caller is waiting.
const cancelWait = 100 * time.Millisecond

// abandon gives up on call id: a late answer to it will be dropped, and the
// server is told, within cancelWait.
func (c *Client) abandon(id int64, method string, why error) {
	c.mu.Lock()
	delete(c.pending, id)
	c.abandoned.add(id)
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), cancelWait)
	defer cancel()
	_ = c.Notify(ctx, "notifications/cancelled", map[string]any{
		"requestId": id,
		"reason":    fmt.Sprintf("mcp-fuzz stopped waiting for %s: %v", method, why),
	})
}

// Notify sends a notification.
func (c *Client) Notify(ctx context.Context, method string, params any) error {
	raw, err := marshalParams(params)
	if err != nil {
		return err
	}
	if err := c.conn.Write(ctx, &jsonrpc.Request{Method: method, Params: raw}); err != nil {
		return fmt.Errorf("%w: sending %s: %v", ErrClosed, method, err)
	}
	return nil
}

func marshalParams(params any) (json.RawMessage, error) {
	switch p := params.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return p, nil
	}
	b, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("encoding params: %w", err)
	}
	return b, nil
}

func decodeResponse(resp *jsonrpc.Response) (json.RawMessage, error) {
	if resp.Error != nil {
		// Only the connection makes an Oversize; the decoder makes
		// *jsonrpc.Error values only, so the server cannot forge one.
		var o *Oversize
		if errors.As(resp.Error, &o) {
			return nil, o
		}
		var we *jsonrpc.Error
		if errors.As(resp.Error, &we) {
			return nil, &Error{Code: we.Code, Message: we.Message, Data: we.Data}
		}
		return nil, &Error{Code: jsonrpc.CodeInternalError, Message: resp.Error.Error()}
	}
	return resp.Result, nil
}

func (c *Client) readLoop() {
	for {
		msg, err := c.conn.Read(context.Background())
		if err != nil {
			c.end(err)
			return
		}
		c.dispatch(msg)
	}
}

// dispatch handles one message from the server.
func (c *Client) dispatch(msg jsonrpc.Message) {
	switch m := msg.(type) {
	case *jsonrpc.Response:
		c.deliver(m)
	case *jsonrpc.Request:
		if c.onServerMessage != nil {
			c.onServerMessage(m.Method, m.IsCall())
		}
		c.answerServer(m)
	}
}

func (c *Client) deliver(resp *jsonrpc.Response) {
	id, ok := intID(resp.ID)
	c.mu.Lock()
	ch, found := c.pending[id]
	if found {
		delete(c.pending, id)
	}
	cancelled := ok && !found && c.abandoned.take(id)
	issued := ok && 1 <= id && id <= c.lastID
	c.mu.Unlock()
	switch {
	case found:
		ch <- resp
	case cancelled:
		// The spec allows an answer after notifications/cancelled.
	case issued:
		c.violate(Violation{Kind: KindLateAnswer, Excerpt: fmt.Sprintf("response to id %d, which was already answered or given up on", id)})
	default:
		c.violate(Violation{Kind: KindUnknownResponseID, Excerpt: fmt.Sprintf("response to id %s, which no pending request has", Excerpt(fmt.Appendf(nil, "%#v", resp.ID.Raw()), 64))})
	}
}

// answerQueue is how many answers to server-to-client requests may wait to
// be written. A server that sends requests faster than it reads the answers
// (or never reads them) gets no more: the rest are dropped, so that a flood
// of requests costs a fixed amount of memory and one goroutine.
const answerQueue = 64

// maxAnsweredID bounds the id of a server-to-client request that is
// answered, in bytes: an answer holds it until it is written.
const maxAnsweredID = 256

// answerServer replies to server-to-client requests: ping succeeds, everything
// else (sampling, elicitation, roots) is refused, since mcp-fuzz declares no
// client capabilities. Notifications are ignored. It never blocks: the
// answer is queued for [Client.respond], or dropped and counted (see
// [Client.ServerRequestsDropped]).
func (c *Client) answerServer(req *jsonrpc.Request) {
	if !req.IsCall() {
		return
	}
	if s, ok := req.ID.Raw().(string); ok && len(s) > maxAnsweredID {
		c.dropped.Add(1)
		return
	}
	var resp *jsonrpc.Response
	if req.Method == "ping" {
		resp = &jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{}`)}
	} else {
		resp = &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "mcp-fuzz does not support " + Excerpt([]byte(req.Method), 64)}}
	}
	select {
	case c.answers <- resp:
	default:
		c.dropped.Add(1)
	}
}

// respond writes the queued answers to server-to-client requests, each
// within writeTimeout, until the connection ends.
func (c *Client) respond() {
	for {
		select {
		case resp := <-c.answers:
			ctx, cancel := context.WithTimeout(c.ctx, writeTimeout)
			_ = c.conn.Write(ctx, resp)
			cancel()
		case <-c.done:
			return
		}
	}
}

// ServerRequestsDropped returns how many server-to-client requests were
// left unanswered: sent while answerQueue answers were already waiting to
// be written (the server was not reading them), or with an id too long.
func (c *Client) ServerRequestsDropped() int64 { return c.dropped.Load() }

func (c *Client) violate(v Violation) {
	if c.onViolation != nil {
		c.onViolation(v)
	}
}

func intID(id jsonrpc.ID) (int64, bool) {
	switch v := id.Raw().(type) {
	case int64:
		return v, true
	case float64:
		return int64(v), v == float64(int64(v))
	}
	return 0, false
}

// abandonedLimit is how many abandoned calls are remembered.
const abandonedLimit = 1024

// recentIDs is a set of the last abandonedLimit ids added.
type recentIDs struct {
	ring [abandonedLimit]int64
	next int
	set  map[int64]bool
}

func (r *recentIDs) add(id int64) {
	delete(r.set, r.ring[r.next])
	r.ring[r.next] = id
	r.next = (r.next + 1) % abandonedLimit
	r.set[id] = true
}

// take removes id and reports whether it was there.
func (r *recentIDs) take(id int64) bool {
	if !r.set[id] {
		return false
	}
	delete(r.set, id)
	return true
}

// writeTimeout bounds the answer to a server-to-client request.
const writeTimeout = 5 * time.Second

// isRejectedByTransport recognises the go-sdk's own marker for a request its
// HTTP transport refused (jsonrpc2.ErrRejected, not exported): it wraps the
// server's JSON-RPC error when there is one, and stands alone when there is
// not (a refused redirect, a transient status).
func isRejectedByTransport(e *jsonrpc.Error) bool {
	return e.Code == -32005 && e.Message == "rejected by transport"
}
