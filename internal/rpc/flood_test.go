package rpc

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// deafConn is a fakeConn whose peer never reads the answers to its own
// requests: writing one blocks until ctx ends or the connection closes.
type deafConn struct{ *fakeConn }

func (d deafConn) Write(ctx context.Context, m jsonrpc.Message) error {
	if _, ok := m.(*jsonrpc.Response); ok {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-d.closing:
			return context.Canceled
		}
	}
	return d.fakeConn.Write(ctx, m)
}

// settle waits for the goroutine count to fall to at most n, and returns it.
func settle(n int) int {
	got := runtime.NumGoroutine()
	for deadline := time.Now().Add(2 * time.Second); got > n && time.Now().Before(deadline); got = runtime.NumGoroutine() {
		time.Sleep(10 * time.Millisecond)
	}
	return got
}

// A server that floods mcp-fuzz with pings and never reads the answers
// costs a bounded number of goroutines; calls still go through, and Close
// does not wait for the answers.
func TestServerRequestFlood(t *testing.T) {
	base := runtime.NumGoroutine()
	conn := deafConn{newFakeConn()}
	c := New(conn, nil)
	const flood = 20000
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		for i := range flood {
			id, _ := jsonrpc.MakeID("p" + strings.Repeat("0", i%3) + string(rune('a'+i%26)))
			select {
			case conn.in <- &jsonrpc.Request{ID: id, Method: "ping"}:
			case <-conn.closing:
				return
			}
		}
	}()
	go func() {
		req := (<-conn.out).(*jsonrpc.Request)
		conn.in <- &jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{}`)}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if raw, err := c.Call(ctx, "tools/list", nil); err != nil || string(raw) != "{}" {
		t.Fatalf("a call during the flood = %s, %v", raw, err)
	}
	<-sent
	if n := runtime.NumGoroutine(); n > base+10 {
		t.Errorf("%d goroutines during a flood of %d requests, %d before", n, flood, base)
	}
	// All but the last few the connection buffers were dispatched: all but
	// a queue's worth, the one being written and the one the reader may
	// still hold when the sender is done were dropped.
	if n := c.ServerRequestsDropped(); n < int64(flood-answerQueue-cap(conn.in)-2) {
		t.Errorf("%d of %d server requests dropped", n, flood)
	}
	start := time.Now()
	c.Close()
	if d := time.Since(start); d > time.Second {
		t.Errorf("Close took %v", d)
	}
	if n := settle(base); n > base {
		t.Errorf("%d goroutines after Close, %d before", n, base)
	}
}

// Answers to server requests hold no more than a few bytes of the request:
// an id too long to be one is not answered, and the method a refusal names
// is cut short.
func TestServerRequestAnswerIsSmall(t *testing.T) {
	conn := newFakeConn()
	c := New(conn, nil)
	defer c.Close()
	long, _ := jsonrpc.MakeID(strings.Repeat("i", 1<<20))
	conn.in <- &jsonrpc.Request{ID: long, Method: "ping"}
	conn.in <- &jsonrpc.Request{ID: id(t, 2), Method: strings.Repeat("m", 1<<20)}
	select {
	case m := <-conn.out:
		r := m.(*jsonrpc.Response)
		if r.ID.Raw() != int64(2) || r.Error == nil || len(r.Error.Error()) > 200 {
			t.Fatalf("answer = id %v, error of %d bytes", r.ID.Raw(), len(r.Error.Error()))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no answer")
	}
	if n := c.ServerRequestsDropped(); n != 1 {
		t.Errorf("dropped = %d, want 1 (the long id)", n)
	}
}
