package httpcap

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-fuzz/mcp-fuzz/internal/rpc"
)

// answer is the body of resp after [Body] wrapped it, for a call with id 7
// recorded in store.
func answer(t *testing.T, store *Store, contentType string, status int, body string, max int) string {
	t.Helper()
	id, _ := jsonrpc.MakeID(float64(7))
	ctx := context.WithValue(context.Background(), storeKey{}, &call{store: store, id: id})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://example.invalid/mcp", nil)
	resp := &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {contentType}}, Body: io.NopCloser(strings.NewReader(body))}
	Body(req, resp, max)
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the body: %v", err)
	}
	return string(got)
}

func bigResult(n int) string {
	return `{"jsonrpc":"2.0","id":7,"result":{"text":"` + strings.Repeat("x", n) + `"}}`
}

func TestBodyUnderCap(t *testing.T) {
	store := NewStore(1024)
	body := bigResult(100)
	if got := answer(t, store, "application/json", 200, body, 1024); got != body {
		t.Errorf("body %q, want it unchanged", got)
	}
	id, _ := jsonrpc.MakeID(float64(7))
	if o := store.take(id); o != nil {
		t.Errorf("recorded %+v for an answer under the cap", o)
	}
}

func TestBodyOverCap(t *testing.T) {
	store := NewStore(1024)
	body := bigResult(5000)
	id, _ := jsonrpc.MakeID(float64(7))
	if got := answer(t, store, "application/json; charset=utf-8", 200, body, 1024); got != string(StandIn(id)) {
		t.Errorf("body %.100q, want the stand-in", got)
	}
	o := store.take(id)
	if o == nil || !o.Ended || o.Bytes != int64(len(body)) || o.Malformed != "" {
		t.Fatalf("recorded %+v, want the whole sound answer of %d bytes", o, len(body))
	}
}

// An oversize answer to another id is recorded as the call's, malformed.
func TestBodyOverCapOtherID(t *testing.T) {
	store := NewStore(64)
	answer(t, store, "application/json", 200, strings.Replace(bigResult(500), `"id":7`, `"id":8`, 1), 64)
	id, _ := jsonrpc.MakeID(float64(7))
	if o := store.take(id); o == nil || !strings.Contains(o.Malformed, "answer to id 8") {
		t.Errorf("recorded %+v, want a malformed answer to id 8", o)
	}
}

// An error status's body is cut at the cap: the SDK reads it whole.
func TestBodyErrorStatus(t *testing.T) {
	if got := answer(t, NewStore(10), "text/plain", 500, strings.Repeat("e", 100), 10); len(got) != 10 {
		t.Errorf("read %d bytes of an error body, want 10", len(got))
	}
}

// An SSE event over the cap becomes a stand-in event; a small one passes.
func TestBodySSE(t *testing.T) {
	store := NewStore(256)
	small := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n\n"
	big := "id: 3\nevent: message\ndata: " + bigResult(2000) + "\n\n"
	got := answer(t, store, "text/event-stream", 200, small+big, 256)
	id, _ := jsonrpc.MakeID(float64(7))
	want := small + "id: 3\nevent: message\ndata: " + string(StandIn(id)) + "\n\n"
	if got != want {
		t.Errorf("stream\n%q\nwant\n%q", got, want)
	}
	if o := store.take(id); o == nil || !o.Ended {
		t.Errorf("recorded %+v, want the ended oversize answer", o)
	}
}

// A stand-in read back through a Conn is the recorded Oversize; the same
// text with nothing recorded (a server sending it) is a plain error.
func TestConnReadOversize(t *testing.T) {
	store := NewStore(64)
	id, _ := jsonrpc.MakeID(float64(7))
	answer(t, store, "application/json", 200, bigResult(500), 64)
	for _, tc := range []struct {
		store    *Store
		oversize bool
	}{{store, true}, {NewStore(64), false}} {
		msg, err := jsonrpc.DecodeMessage(StandIn(id))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := NewConn(&oneMessage{msg: msg}, tc.store).Read(context.Background())
		resp, ok := got.(*jsonrpc.Response)
		if !ok {
			t.Fatalf("read %#v", got)
		}
		var o *rpc.Oversize
		if errors.As(resp.Error, &o) != tc.oversize {
			t.Errorf("recorded %v: read error %v", tc.oversize, resp.Error)
		}
	}
}

// oneMessage is a connection that reads msg.
type oneMessage struct {
	mcp.Connection
	msg jsonrpc.Message
}

func (c *oneMessage) Read(context.Context) (jsonrpc.Message, error) { return c.msg, nil }
