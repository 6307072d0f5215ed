package engine

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/leak"
	"github.com/mcp-fuzz/mcp-fuzz/internal/oracle"
	"github.com/mcp-fuzz/mcp-fuzz/internal/repro"
	"github.com/mcp-fuzz/mcp-fuzz/internal/rpc"
	"github.com/mcp-fuzz/mcp-fuzz/internal/stateless"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// scriptedConn is an mcp.Connection whose peer answers each request with
// answer(method, params).
type scriptedConn struct {
	in      chan jsonrpc.Message
	once    sync.Once
	closing chan struct{}
	answer  func(method string, params json.RawMessage) (json.RawMessage, *jsonrpc.Error)
	mu      sync.Mutex
	methods []string
}

func newScriptedConn(answer func(string, json.RawMessage) (json.RawMessage, *jsonrpc.Error)) *scriptedConn {
	return &scriptedConn{in: make(chan jsonrpc.Message, 16), closing: make(chan struct{}), answer: answer}
}

func (c *scriptedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-c.in:
		return m, nil
	case <-c.closing:
		return nil, io.EOF
	}
}

func (c *scriptedConn) Write(ctx context.Context, m jsonrpc.Message) error {
	req, ok := m.(*jsonrpc.Request)
	if !ok || !req.ID.IsValid() {
		return nil
	}
	c.mu.Lock()
	c.methods = append(c.methods, req.Method)
	c.mu.Unlock()
	res, rerr := c.answer(req.Method, req.Params)
	resp := &jsonrpc.Response{ID: req.ID, Result: res}
	if rerr != nil {
		resp = &jsonrpc.Response{ID: req.ID, Error: rerr}
	}
	c.in <- resp
	return nil
}

func (c *scriptedConn) Close() error      { c.once.Do(func() { close(c.closing) }); return nil }
func (c *scriptedConn) SessionID() string { return "" }

func metaVersion(params json.RawMessage) string {
	var p struct {
		Meta map[string]any `json:"_meta"`
	}
	_ = json.Unmarshal(params, &p)
	v, _ := p.Meta[stateless.MetaProtocolVersion].(string)
	return v
}

func startScripted(t *testing.T, cfg Config, answer func(string, json.RawMessage) (json.RawMessage, *jsonrpc.Error)) (*session, *scriptedConn, error) {
	t.Helper()
	conn := newScriptedConn(answer)
	s := &session{leak: leak.NewDetector(nil), phase: phaseBeforeInit}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.start(ctx, conn, cfg)
	t.Cleanup(func() { _ = s.client.Close() })
	return s, conn, err
}

// TestDiscoverRetriesOnUnsupportedVersion: -32022 with data.supported
// naming a stateless version mcp-fuzz speaks gets one retry with it.
func TestDiscoverRetriesOnUnsupportedVersion(t *testing.T) {
	parallel(t)
	answer := func(method string, params json.RawMessage) (json.RawMessage, *jsonrpc.Error) {
		if v := metaVersion(params); v != ModernProtocolVersion {
			return nil, &jsonrpc.Error{Code: oracle.CodeUnsupportedProtocolVersion, Message: "unsupported", Data: json.RawMessage(`{"supported":["2026-07-28","2025-11-25"],"requested":"` + v + `"}`)}
		}
		return json.RawMessage(`{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}`), nil
	}
	conn := newScriptedConn(answer)
	s := &session{leak: leak.NewDetector(nil), phase: phaseBeforeInit}
	s.client = rpc.New(conn, nil)
	defer s.client.Close()
	d, err := s.discover(context.Background(), "2099-01-01")
	if err != nil || s.init.ProtocolVersion != ModernProtocolVersion || len(d.supported) != 1 {
		t.Fatalf("discover = %+v, %v; version %q", d, err, s.init.ProtocolVersion)
	}
	if len(conn.methods) != 2 {
		t.Errorf("requests %v: want one retry", conn.methods)
	}
}

// TestDiscoverFallbacks: every refusal of server/discover falls back to
// initialize in the auto era, and is the error in the modern one.
func TestDiscoverFallbacks(t *testing.T) {
	parallel(t)
	initOK := json.RawMessage(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"x","version":"1"}}`)
	for name, discover := range map[string]func() (json.RawMessage, *jsonrpc.Error){
		"-32601": func() (json.RawMessage, *jsonrpc.Error) { return nil, &jsonrpc.Error{Code: -32601, Message: "no"} },
		"-32600": func() (json.RawMessage, *jsonrpc.Error) {
			return nil, &jsonrpc.Error{Code: -32600, Message: "not initialized"}
		},
		"-32022 no data": func() (json.RawMessage, *jsonrpc.Error) { return nil, &jsonrpc.Error{Code: -32022, Message: "no"} },
		"-32022 old only": func() (json.RawMessage, *jsonrpc.Error) {
			return nil, &jsonrpc.Error{Code: -32022, Message: "no", Data: json.RawMessage(`{"supported":["2025-11-25"]}`)}
		},
		"legacy versions": func() (json.RawMessage, *jsonrpc.Error) {
			return json.RawMessage(`{"supportedVersions":["2025-11-25"]}`), nil
		},
		"malformed": func() (json.RawMessage, *jsonrpc.Error) { return json.RawMessage(`{"supportedVersions":7}`), nil },
		"null":      func() (json.RawMessage, *jsonrpc.Error) { return json.RawMessage(`null`), nil },
	} {
		t.Run(name, func(t *testing.T) {
			answer := func(method string, _ json.RawMessage) (json.RawMessage, *jsonrpc.Error) {
				if method == "server/discover" {
					return discover()
				}
				return initOK, nil
			}
			s, conn, err := startScripted(t, Config{Era: EraAuto}, answer)
			if err != nil || s.era != EraLegacy || s.init.ProtocolVersion != "2025-11-25" {
				t.Fatalf("auto: era %q, %v", s.era, err)
			}
			if s.eraReason == "" {
				t.Error("auto: no eraReason")
			}
			if strings.Join(conn.methods, ",") != "server/discover,initialize" {
				t.Errorf("requests %v", conn.methods)
			}
			_, _, err = startScripted(t, Config{Era: EraModern}, answer)
			if err == nil || !strings.Contains(err.Error(), "does not speak") {
				t.Errorf("modern: %v", err)
			}
			s, conn, err = startScripted(t, Config{Era: EraLegacy}, answer)
			if err != nil || s.era != EraLegacy || strings.Join(conn.methods, ",") != "initialize" {
				t.Errorf("legacy: %v, requests %v", err, conn.methods)
			}
		})
	}
}

// TestModernEnvelopeOnEveryRequest: in the modern era every request
// carries the envelope, and liveness is server/discover, never ping.
func TestModernEnvelopeOnEveryRequest(t *testing.T) {
	parallel(t)
	var mu sync.Mutex
	var missing []string
	answer := func(method string, params json.RawMessage) (json.RawMessage, *jsonrpc.Error) {
		if metaVersion(params) != ModernProtocolVersion {
			mu.Lock()
			missing = append(missing, method)
			mu.Unlock()
		}
		if method == "server/discover" {
			return json.RawMessage(`{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}`), nil
		}
		return json.RawMessage(`{"tools":[],"resultType":"complete"}`), nil
	}
	s, conn, err := startScripted(t, Config{}, answer)
	if err != nil || s.era != EraModern {
		t.Fatalf("era %q, %v", s.era, err)
	}
	ctx := context.Background()
	if _, _, _, err := listAll(ctx, s, "tools/list", "tools"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.call(ctx, "tools/call", repro.CallParams("t", json.RawMessage(`{"a":1}`))); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.liveness(ctx); err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Errorf("requests without the envelope: %v", missing)
	}
	for _, m := range conn.methods {
		if m == "ping" || m == "initialize" {
			t.Errorf("modern era sent %s", m)
		}
	}
	if errors.Is(err, rpc.ErrClosed) {
		t.Fatal(err)
	}
}
