package stdio

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// conn is the [mcp.Connection] of a [Process]: newline-delimited JSON-RPC over the
// server's stdin and stdout.
type conn struct {
	p *Process

	wmu    sync.Mutex // serialises writes so that lines never interleave
	broken error      // set when a write was cut short: the stream is corrupt
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
// ends while the server is not reading its stdin, Write gives up; if part of the
// line had already been written, every later Write fails, since the stream is no
// longer valid JSON-RPC.
func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding message: %w", err)
	}
	data = append(data, '\n')

	c.wmu.Lock()
	defer c.wmu.Unlock()
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
