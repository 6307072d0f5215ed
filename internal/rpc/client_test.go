package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// fakeConn is an mcp.Connection whose peer is the test.
type fakeConn struct {
	in      chan jsonrpc.Message // to the client
	out     chan jsonrpc.Message // from the client
	once    sync.Once
	closing chan struct{}
}

func newFakeConn() *fakeConn {
	return &fakeConn{in: make(chan jsonrpc.Message, 16), out: make(chan jsonrpc.Message, 16), closing: make(chan struct{})}
}

func (f *fakeConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-f.in:
		return m, nil
	case <-f.closing:
		return nil, io.EOF
	}
}

func (f *fakeConn) Write(ctx context.Context, m jsonrpc.Message) error {
	select {
	case f.out <- m:
		return nil
	case <-f.closing:
		return io.EOF
	}
}

func (f *fakeConn) Close() error      { f.once.Do(func() { close(f.closing) }); return nil }
func (f *fakeConn) SessionID() string { return "" }

func id(t *testing.T, n float64) jsonrpc.ID {
	t.Helper()
	i, err := jsonrpc.MakeID(n)
	if err != nil {
		t.Fatal(err)
	}
	return i
}

func TestCallResultAndError(t *testing.T) {
	conn := newFakeConn()
	c := New(conn, nil)
	defer c.Close()
	go func() {
		req := (<-conn.out).(*jsonrpc.Request)
		conn.in <- &jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{"ok":true}`)}
		req = (<-conn.out).(*jsonrpc.Request)
		conn.in <- &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: -32602, Message: "bad limit"}}
	}()
	raw, err := c.Call(context.Background(), "tools/call", json.RawMessage(`{"name":"x","arguments":[]}`))
	if err != nil || string(raw) != `{"ok":true}` {
		t.Fatalf("Call = %s, %v", raw, err)
	}
	_, err = c.Call(context.Background(), "tools/call", map[string]any{"name": "x"})
	var rerr *Error
	if !errors.As(err, &rerr) || rerr.Code != -32602 || rerr.Message != "bad limit" {
		t.Fatalf("Call error = %v, want json-rpc -32602", err)
	}
}

func TestParamsSentVerbatim(t *testing.T) {
	conn := newFakeConn()
	c := New(conn, nil)
	defer c.Close()
	go func() { _, _ = c.Call(context.Background(), "tools/call", json.RawMessage(`{"arguments":null}`)) }()
	req := (<-conn.out).(*jsonrpc.Request)
	if string(req.Params) != `{"arguments":null}` {
		t.Fatalf("params = %s", req.Params)
	}
}

func TestUnknownResponseIDIsViolation(t *testing.T) {
	conn := newFakeConn()
	got := make(chan Violation, 1)
	c := New(conn, func(v Violation) { got <- v })
	defer c.Close()
	conn.in <- &jsonrpc.Response{ID: id(t, 99), Result: json.RawMessage(`{}`)}
	select {
	case v := <-got:
		if v.Kind != "unknown_response_id" {
			t.Fatalf("violation kind = %q", v.Kind)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no violation reported for a response to an unknown id")
	}
}

func TestServerRequestsAreAnswered(t *testing.T) {
	conn := newFakeConn()
	c := New(conn, nil)
	defer c.Close()
	conn.in <- &jsonrpc.Request{ID: id(t, 7), Method: "ping"}
	conn.in <- &jsonrpc.Request{ID: id(t, 8), Method: "sampling/createMessage"}
	conn.in <- &jsonrpc.Request{Method: "notifications/message"} // ignored
	seen := map[int64]*jsonrpc.Response{}
	for len(seen) < 2 {
		select {
		case m := <-conn.out:
			r := m.(*jsonrpc.Response)
			n, _ := intID(r.ID)
			seen[n] = r
		case <-time.After(5 * time.Second):
			t.Fatal("server request not answered")
		}
	}
	if seen[7].Error != nil || string(seen[7].Result) != `{}` {
		t.Errorf("ping answer = %+v", seen[7])
	}
	var we *jsonrpc.Error
	if !errors.As(seen[8].Error, &we) || we.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("sampling answer = %+v, want method not found", seen[8])
	}
}

func TestCloseEndsPendingCall(t *testing.T) {
	conn := newFakeConn()
	c := New(conn, nil)
	errc := make(chan error, 1)
	go func() { _, err := c.Call(context.Background(), "tools/call", nil); errc <- err }()
	<-conn.out
	conn.Close()
	select {
	case err := <-errc:
		if !errors.Is(err, ErrClosed) {
			t.Fatalf("err = %v, want ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("pending call not released by close")
	}
	if _, err := c.Call(context.Background(), "x", nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("call after close: %v", err)
	}
}

func TestCallTimeout(t *testing.T) {
	conn := newFakeConn()
	c := New(conn, nil)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	go func() { <-conn.out }()
	if _, err := c.Call(ctx, "tools/call", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
}
