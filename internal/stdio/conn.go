package stdio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// conn is the [mcp.Connection] of a [Process]: newline-delimited JSON-RPC over the
// server's stdin and stdout.
type conn struct {
	p *Process

	// wlock, held by the write in progress, serialises writes so that
	// lines never interleave. It is a channel so that a write waiting for
	// it can give up when its context ends: the write before it may be
	// stuck on a server that does not read.
	wlock  chan struct{}
	broken error // set when a write was cut short: the stream is corrupt; guarded by wlock
}

// Read returns the next JSON-RPC message from the server's stdout. Lines that are
// not messages never reach Read; they go to Config.OnViolation. Read returns
// [ErrClosed] once stdout has ended and every message before the end was read, or
// once the connection was closed.
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-c.p.closed:
		return nil, ErrClosed
	default:
	}
	select {
	case msg, ok := <-c.p.msgs:
		if !ok {
			return nil, ErrClosed
		}
		return msg, nil
	case <-c.p.closed:
		return nil, ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write sends msg to the server as one line. It is safe for concurrent use. If ctx
// ends while the server is not reading its stdin, or while an earlier Write is
// stuck that way, Write gives up; if part of the line had already been written,
// every later Write fails, since the stream is no longer valid JSON-RPC.
func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := encode(msg)
	if err != nil {
		return fmt.Errorf("encoding message: %w", err)
	}
	data = append(data, '\n')

	select {
	case c.wlock <- struct{}{}:
		defer func() { <-c.wlock }()
	case <-c.p.closed:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-c.p.closed:
		return ErrClosed
	default:
	}
	if c.broken != nil {
		return c.broken
	}
	if err := ctx.Err(); err != nil {
		return err
	}

	f := c.p.stdin
	c.p.beginWrite(len(data))
	dl, _ := ctx.Deadline() // zero when there is none: no deadline
	_ = f.SetWriteDeadline(dl)
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(fired)
		_ = f.SetWriteDeadline(time.Unix(1, 0)) // in the past: unblocks the write
	})
	n, err := f.Write(data)
	if !stop() {
		<-fired // so that it cannot affect the next write
	}
	c.p.endWrite(len(data), n)
	if err == nil {
		return nil
	}
	if n > 0 {
		c.broken = fmt.Errorf("%w: a write to server stdin was cut short after %d of %d bytes: %v", ErrClosed, n, len(data), err)
	}
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded) && ctx.Err() != nil:
		if n > 0 {
			return c.broken
		}
		return ctx.Err()
	case errors.Is(err, os.ErrClosed), errors.Is(err, syscall.EPIPE):
		return fmt.Errorf("%w: writing to server stdin: %v", ErrClosed, err)
	}
	return fmt.Errorf("writing to server stdin: %w", err)
}

// Push implements [rpc.Pusher]: the stdout reader hands each message to
// deliver itself, so an answer reaches its caller with one goroutine hop
// fewer than through Read.
func (c *conn) Push(deliver func(jsonrpc.Message), end func(error)) { c.p.push(deliver, end) }

// Close stops the process; see [Process.Stop].
func (c *conn) Close() error { return c.p.Stop() }

// SessionID returns "": stdio connections have no session id.
func (c *conn) SessionID() string { return "" }

// encode is [jsonrpc.EncodeMessage], without re-encoding the params of a
// request: encoding/json compacts a json.RawMessage byte by byte, which for
// the 64 KiB arguments of an oversize case costs more than the round trip.
// Params are valid JSON (the rpc client marshals them, or passes a
// json.RawMessage that mcp-fuzz built or decoded); params holding a line
// break, which would split the frame, take the slow path and are compacted.
func encode(msg jsonrpc.Message) ([]byte, error) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || len(req.Params) == 0 || bytes.IndexByte(req.Params, '\n') >= 0 || bytes.IndexByte(req.Params, '\r') >= 0 {
		return jsonrpc.EncodeMessage(msg)
	}
	method, err := json.Marshal(req.Method)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(req.Params)+len(method)+64)
	b = append(b, `{"jsonrpc":"2.0",`...)
	if req.ID.IsValid() {
		id, err := json.Marshal(req.ID.Raw())
		if err != nil {
			return nil, err
		}
		b = append(b, `"id":`...)
		b = append(b, id...)
		b = append(b, ',')
	}
	b = append(b, `"method":`...)
	b = append(b, method...)
	b = append(b, `,"params":`...)
	b = append(b, req.Params...)
	return append(b, '}'), nil
}
