package rpc

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// An answer to a call that was already answered is a late answer, not an
// answer to an unknown id, and does not reach the next call; an id mcp-fuzz
// never issued is unknown.
func TestLateAndUnknownAnswers(t *testing.T) {
	conn := newFakeConn()
	violations := make(chan Violation, 16)
	c := New(conn, func(v Violation) { violations <- v })
	defer c.Close()
	go func() {
		for range 2 {
			req := (<-conn.out).(*jsonrpc.Request)
			n, _ := intID(req.ID)
			conn.in <- &jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{"n":` + string(rune('0'+n)) + `}`)}
			conn.in <- &jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{"again":true}`)}
		}
	}()
	for want := range []string{`{"n":1}`, `{"n":2}`} {
		raw, err := c.Call(context.Background(), "tools/call", nil)
		if err != nil || string(raw) != []string{`{"n":1}`, `{"n":2}`}[want] {
			t.Fatalf("call %d = %s, %v", want+1, raw, err)
		}
	}
	expect := func(what, kind string) {
		t.Helper()
		select {
		case v := <-violations:
			if v.Kind != kind {
				t.Errorf("%s: violation %+v, want %s", what, v, kind)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: no violation", what)
		}
	}
	expect("second answer to id 1", KindLateAnswer)
	expect("second answer to id 2", KindLateAnswer)
	str, _ := jsonrpc.MakeID("1")
	for _, tc := range []struct {
		what string
		id   jsonrpc.ID
	}{
		{"id 3, not issued yet", id(t, 3)},
		{"id 0", id(t, 0)},
		{"id -1", id(t, -1)},
		{`id "1"`, str},
	} {
		conn.in <- &jsonrpc.Response{ID: tc.id, Result: json.RawMessage(`{}`)}
		expect(tc.what, KindUnknownResponseID)
	}
}
