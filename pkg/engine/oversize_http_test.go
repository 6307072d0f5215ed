package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/httpcap"
	"github.com/mcp-fuzz/mcp-fuzz/internal/rpc"
	"github.com/mcp-fuzz/mcp-fuzz/internal/session"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

const oversizeSecret = "s3cr3t-bearer-value-for-oversize"

// hugeServer is a streamable HTTP server whose tools/call answers are huge:
// mib MiB of text, the id last as the TypeScript SDK writes it. Over SSE a
// huge notification comes first. The text starts with the bearer token, so
// the Oversize head carries a secret. With a stalled channel, the JSON answer
// never ends: the channel is closed when its text is written, and the
// server waits for the client to go away.
func hugeServer(t *testing.T, sse bool, mib int, stalled chan struct{}) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "no", http.StatusMethodNotAllowed)
			return
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &req)
		switch req.Method {
		case "initialize":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"huge","version":"1"}}}`, req.ID)
			return
		case "tools/call":
		default:
			if req.ID == nil {
				w.WriteHeader(http.StatusAccepted)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, req.ID)
			return
		}
		chunk := bytes.Repeat([]byte("x"), 64<<10)
		text := func() {
			io.WriteString(w, oversizeSecret)
			for range mib * 16 {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}
		if !sse {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"result":{"content":[{"type":"text","text":"`)
			text()
			if stalled != nil {
				close(stalled)
				<-r.Context().Done()
				return
			}
			fmt.Fprintf(w, `"}],"isError":true},"jsonrpc":"2.0","id":%s}`, req.ID)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"data\":\"")
		text()
		io.WriteString(w, "\"}}\n\n")
		io.WriteString(w, "id: 7\nevent: message\ndata: {\"result\":{\"content\":[{\"type\":\"text\",\n")
		io.WriteString(w, "data: \"text\":\"")
		text()
		fmt.Fprintf(w, "\"}],\"isError\":true},\"jsonrpc\":\"2.0\",\"id\":%s}\n\n", req.ID)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func hugeSession(t *testing.T, url string) *session.Session {
	t.Helper()
	s, _ := httpDial(t, Config{URL: url, Bearer: oversizeSecret})
	return s
}

// httpSession connects one session to the HTTP target of cfg (defaulted).
func httpSession(t *testing.T, cfg Config) *session.Session {
	t.Helper()
	s, _ := httpDial(t, cfg)
	return s
}

// httpDial is [httpSession], also returning its dialer.
func httpDial(t *testing.T, cfg Config) (*session.Session, *session.Dialer) {
	t.Helper()
	cn, err := newDialer(cfg.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := cn.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, cn
}

func TestOversizeHTTPAnswer(t *testing.T) {
	for _, tc := range []struct {
		name string
		sse  bool
		mib  int
	}{
		{"json", false, 64},
		{"sse", true, 128},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, cn := httpDial(t, Config{URL: hugeServer(t, tc.sse, tc.mib, nil).URL + "/mcp", Bearer: oversizeSecret})
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, secrets, err := s.Call(ctx, "tools/call", map[string]any{"name": "x"})
			runtime.ReadMemStats(&after)
			var o *rpc.Oversize
			if !errors.As(err, &o) {
				t.Fatalf("call = %v, want an Oversize", err)
			}
			if !o.Ended || o.IsErrorAnswer || o.IsError == nil || !*o.IsError || o.Bytes < int64(tc.mib)<<20 {
				t.Errorf("Oversize = %+v", o)
			}
			if strings.Contains(o.Head, oversizeSecret) || len(secrets) == 0 || !strings.Contains(o.Head, `"text":"`) {
				t.Errorf("head %q (secrets %v): want the secret redacted and named", o.Head, secrets)
			}
			// Client and server share the process: both count.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
				t.Errorf("a %d MiB answer allocated %d MiB", tc.mib, alloc>>20)
			}
			if raw, _, err := s.Call(ctx, "ping", nil); err != nil || string(raw) != "{}" {
				t.Errorf("the call after = %s, %v: the session should live on", raw, err)
			}
			if count, kept := cn.Stray.Snapshot(); count != 0 {
				t.Errorf("violations: %v", kept)
			}
		})
	}
}

// A wire error that mimics the stand-in is no Oversize.
func TestOversizeHTTPNotForgeable(t *testing.T) {
	parallel(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &req)
		if req.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if req.Method == "initialize" {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{}}}`, req.ID)
			return
		}
		w.Write(httpcap.StandIn(mustID(t, req.ID)))
	}))
	t.Cleanup(srv.Close)
	s := hugeSession(t, srv.URL)
	_, _, err := s.Call(context.Background(), "tools/call", nil)
	var o *rpc.Oversize
	var rerr *rpc.Error
	if errors.As(err, &o) || !errors.As(err, &rerr) {
		t.Fatalf("err = %v, want a plain JSON-RPC error", err)
	}
}

func mustID(t *testing.T, raw json.RawMessage) (id jsonrpc.ID) {
	t.Helper()
	id, ok := rpc.ParseID(string(raw))
	if !ok {
		t.Fatalf("bad id %s", raw)
	}
	return id
}

// An oversize answer still coming at the deadline is an unfinished Oversize,
// not a plain timeout.
func TestOversizeHTTPUnfinished(t *testing.T) {
	parallel(t)
	stalled := make(chan struct{})
	s := hugeSession(t, hugeServer(t, false, 8, stalled).URL)
	// The call times out once the server has written everything but the
	// end (a fixed timeout raced the transfer on a loaded machine).
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	go func() {
		select {
		case <-stalled:
			// Cancel once the client has read past the cap (on a loaded
			// machine that can take longer than the server's writing).
			cc, _ := s.Client.Conn().(*httpcap.Conn)
			for i := 0; i < 200 && cc != nil && !cc.Store().PastCap(); i++ {
				time.Sleep(50 * time.Millisecond)
			}
			cancel()
		case <-ctx.Done():
		}
	}()
	_, _, err := s.Call(ctx, "tools/call", nil)
	var o *rpc.Oversize
	if !errors.As(err, &o) || o.Ended || o.Bytes <= DefaultMaxResponse {
		t.Fatalf("err = %v (%+v), want an unfinished Oversize over the response cap", err, o)
	}
}
