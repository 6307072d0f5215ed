package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A call given up on is cancelled, and its late answer is no violation; a
// second answer to the same id is a late answer.
func TestCancelledCallLateAnswer(t *testing.T) {
	conn := newFakeConn()
	violations := make(chan Violation, 4)
	c := New(conn, func(v Violation) { violations <- v })
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	errc := make(chan error, 1)
	go func() { _, err := c.Call(ctx, "tools/call", nil); errc <- err }()
	req := (<-conn.out).(*jsonrpc.Request)
	if err := <-errc; !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
	select {
	case m := <-conn.out:
		n := m.(*jsonrpc.Request)
		var p struct {
			RequestID int64  `json:"requestId"`
			Reason    string `json:"reason"`
		}
		if n.Method != "notifications/cancelled" || n.IsCall() || json.Unmarshal(n.Params, &p) != nil || p.RequestID != req.ID.Raw().(int64) || p.Reason == "" {
			t.Fatalf("after the timeout the client sent %s %s, want notifications/cancelled for %v", n.Method, n.Params, req.ID.Raw())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no notifications/cancelled")
	}

	conn.in <- &jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{}`)}
	select {
	case v := <-violations:
		t.Fatalf("a late answer to a cancelled call was reported: %+v", v)
	case <-time.After(100 * time.Millisecond):
	}
	conn.in <- &jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{}`)}
	select {
	case v := <-violations:
		if v.Kind != KindLateAnswer {
			t.Fatalf("violation = %+v, want a late answer", v)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a second answer to a cancelled call was not reported")
	}
}

// The cancellation does not hold the caller when the server reads nothing.
func TestCancelDoesNotBlock(t *testing.T) {
	conn := &stuckConn{fakeConn: newFakeConn()}
	c := New(conn, nil)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := c.Call(ctx, "tools/call", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 20*time.Millisecond+cancelWait+200*time.Millisecond {
		t.Fatalf("Call took %v", d)
	}
}

// stuckConn accepts the first write, then blocks every write until its ctx ends.
type stuckConn struct {
	*fakeConn
	n int
}

func (s *stuckConn) Write(ctx context.Context, m jsonrpc.Message) error {
	if s.n++; s.n == 1 {
		return nil
	}
	<-ctx.Done()
	return ctx.Err()
}

func TestOversizeAnswer(t *testing.T) {
	conn := newFakeConn()
	c := New(conn, nil)
	defer c.Close()
	yes := true
	want := &Oversize{Bytes: 5 << 20, Ended: true, IsError: &yes, Head: `{"result":`}
	go func() {
		req := (<-conn.out).(*jsonrpc.Request)
		conn.in <- &jsonrpc.Response{ID: req.ID, Error: want}
		req = (<-conn.out).(*jsonrpc.Request)
		// What a server can send: a wire error, whatever its text.
		conn.in <- &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: -32603, Message: want.Error()}}
	}()
	_, err := c.Call(context.Background(), "tools/call", nil)
	var o *Oversize
	if !errors.As(err, &o) || o != want {
		t.Fatalf("err = %v, want the Oversize", err)
	}
	_, err = c.Call(context.Background(), "tools/call", nil)
	if errors.As(err, &o) {
		t.Fatalf("a wire error became an Oversize: %v", err)
	}
}

// pushConn is a fakeConn that pushes.
type pushConn struct {
	*fakeConn
	deliver func(jsonrpc.Message)
	end     func(error)
}

func (p *pushConn) Push(deliver func(jsonrpc.Message), end func(error)) {
	p.deliver, p.end = deliver, end
}

func (p *pushConn) Read(context.Context) (jsonrpc.Message, error) {
	panic("Read called on a Pusher")
}

func TestPusher(t *testing.T) {
	conn := &pushConn{fakeConn: newFakeConn()}
	c := New(conn, nil)
	go func() {
		req := (<-conn.out).(*jsonrpc.Request)
		conn.deliver(&jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`1`)})
		<-conn.out
		conn.end(errors.New("eof"))
	}()
	if raw, err := c.Call(context.Background(), "x", nil); err != nil || string(raw) != "1" {
		t.Fatalf("Call = %s, %v", raw, err)
	}
	if _, err := c.Call(context.Background(), "x", nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("err = %v, want ErrClosed", err)
	}
	c.Close()
}

// WithSent's function runs once the request is written: cancelling there
// gives up on a request in flight, which the server is told about.
func TestWithSentCancelsInFlight(t *testing.T) {
	conn := newFakeConn()
	c := New(conn, nil)
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() { _, err := c.Call(WithSent(ctx, cancel), "tools/call", nil); errc <- err }()
	req := (<-conn.out).(*jsonrpc.Request)
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want canceled", err)
	}
	select {
	case m := <-conn.out:
		if n := m.(*jsonrpc.Request); n.Method != "notifications/cancelled" {
			t.Fatalf("after %v the client sent %s, want notifications/cancelled", req.ID.Raw(), n.Method)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no notifications/cancelled")
	}
}
