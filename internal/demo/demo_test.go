package demo_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/demo"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serve runs [demo.Serve] over pipes and returns the client ends. The server
// stops, and is checked to have stopped, when the test ends.
func serve(t *testing.T) (clientIn io.ReadCloser, clientOut io.WriteCloser, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- demo.Serve(ctx, serverIn, serverOut) }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("Serve did not return after its context was cancelled")
		}
		clientOut.Close()
		serverOut.Close()
	}
	t.Cleanup(stop)
	return clientIn, clientOut, stop
}

// connect serves the demo and connects an SDK client to it.
func connect(t *testing.T) *mcp.ClientSession {
	t.Helper()
	in, out, _ := serve(t)
	c := mcp.NewClient(&mcp.Implementation{Name: "demo-test", Version: "0"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.IOTransport{Reader: in, Writer: out}, nil)
	if err != nil {
		t.Fatalf("connecting: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args any) (*mcp.CallToolResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestServerInfo(t *testing.T) {
	cs := connect(t)
	res := cs.InitializeResult()
	if res.ServerInfo.Name != "mcp-fuzz-demo" || res.ServerInfo.Version != "1.0.0" || res.Instructions == "" {
		t.Errorf("server info %+v, instructions %q", res.ServerInfo, res.Instructions)
	}
}

func TestListTools(t *testing.T) {
	cs := connect(t)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) < 11 {
		t.Errorf("%d tools, want at least 11", len(res.Tools))
	}
	for _, tool := range res.Tools {
		a := tool.Annotations
		switch {
		case a == nil:
			t.Errorf("%s: no annotations", tool.Name)
		case tool.Name == "delete_everything":
			if a.ReadOnlyHint || a.DestructiveHint == nil || !*a.DestructiveHint {
				t.Errorf("delete_everything: want destructive, not read-only: %+v", a)
			}
		case !a.ReadOnlyHint:
			t.Errorf("%s: not annotated readOnlyHint: true", tool.Name)
		}
		if len(tool.Description) < 12 {
			t.Errorf("%s: description %q too short", tool.Name, tool.Description)
		}
		schema, _ := tool.InputSchema.(map[string]any)
		props, _ := schema["properties"].(map[string]any)
		if schema["type"] != "object" || len(props) == 0 {
			t.Errorf("%s: input schema %v", tool.Name, tool.InputSchema)
		}
		if req, _ := schema["required"].([]any); len(req) == 0 {
			t.Errorf("%s: no required properties", tool.Name)
		}
		for name, p := range props {
			p, _ := p.(map[string]any)
			if p["type"] == nil || p["description"] == nil {
				t.Errorf("%s: property %s lacks a type or description: %v", tool.Name, name, p)
			}
		}
	}
}

// TestValidCalls makes the valid call of every tool except debug_status,
// whose stray stdout line would break the SDK client's connection (see
// TestDebugStatusWritesStrayLine).
func TestValidCalls(t *testing.T) {
	cs := connect(t)
	tests := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"lookup_user", map[string]any{"id": 42, "verbose": true}, "user 42: name=user-42 email=user-42@example.com"},
		{"strict_search", map[string]any{"query": "invoices", "limit": 2}, `2 results for "invoices"`},
		{"echo_note", map[string]any{"text": "buy milk"}, "note saved"},
		{"get_weather", map[string]any{"city": "Lisbon"}, "Weather in Lisbon"},
		{"parse_date", map[string]any{"date": "2024-02-29"}, "2024-02-29 is a Thursday, day 60 of 2024"},
		{"slow_lookup", map[string]any{"key": "session_count"}, "session_count = "},
		{"read_config", map[string]any{"section": "database"}, "[database]"},
		{"list_items", map[string]any{"folder": "inbox", "limit": 5}, ""},
		{"get_stats", map[string]any{"metric": "users"}, `{"count":"many"}`},
		{"delete_everything", map[string]any{"confirm": true}, "nothing deleted"},
	}
	for _, tt := range tests {
		res, err := callTool(t, cs, tt.tool, tt.args)
		if err != nil {
			t.Errorf("%s: %v", tt.tool, err)
			continue
		}
		if got := resultText(res); res.IsError || !strings.Contains(got, tt.want) {
			t.Errorf("%s: got isError=%v %q, want success containing %q", tt.tool, res.IsError, got, tt.want)
		}
	}
}

func TestFlawedResults(t *testing.T) {
	cs := connect(t)
	res, err := callTool(t, cs, "list_items", map[string]any{"folder": "inbox"})
	if err != nil || len(res.Content) != 0 || res.StructuredContent != nil {
		t.Errorf("list_items: want empty success, got %+v, %v", res, err)
	}
	res, err = callTool(t, cs, "get_stats", map[string]any{"metric": "orders"})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := json.Marshal(res.StructuredContent); string(got) != `{"count":"many"}` {
		t.Errorf("get_stats: structuredContent %s", got)
	}
}

// TestBadInput checks the answers to bad input that an in-process client
// can see: not get_weather (it exits the process), slow_lookup (it hangs) or
// debug_status (its stray line breaks the client's connection).
func TestBadInput(t *testing.T) {
	cs := connect(t)
	tests := []struct {
		tool     string
		args     any
		isError  string // want isError with this text
		code     int64  // or want this JSON-RPC error
		accepted bool   // or want success
	}{
		{tool: "lookup_user", args: map[string]any{}, isError: `"id" is required`},
		{tool: "lookup_user", args: map[string]any{"id": "7"}, isError: `"id" must be an integer`},
		{tool: "lookup_user", args: map[string]any{"id": 1e308}, isError: "must be from 1 to 1000000"},
		{tool: "lookup_user", args: map[string]any{"id": 1, "admin": true}, isError: `unknown argument "admin"`},
		{tool: "lookup_user", args: []any{1}, isError: "must be a JSON object, got array"},
		{tool: "strict_search", args: map[string]any{"query": ""}, code: jsonrpc.CodeInvalidParams},
		{tool: "strict_search", args: map[string]any{"query": "x", "limit": 51}, code: jsonrpc.CodeInvalidParams},
		{tool: "echo_note", args: map[string]any{"text": strings.Repeat("x", 51), "extra": 1}, accepted: true},
		{tool: "echo_note", args: "not an object", accepted: true},
		{tool: "parse_date", args: map[string]any{}, code: jsonrpc.CodeInternalError},
		{tool: "parse_date", args: map[string]any{"date": "29/02/2024"}, code: jsonrpc.CodeInternalError},
		{tool: "read_config", args: map[string]any{"section": "secrets"}, isError: `File "/srv/app/config.py", line 42, in load`},
		{tool: "list_items", args: map[string]any{"folder": ""}, isError: `"folder" must be 1 to 64 characters`},
		{tool: "get_stats", args: map[string]any{"metric": 1}, isError: `"metric" must be a string`},
		{tool: "delete_everything", args: map[string]any{"confirm": "yes"}, isError: `"confirm" must be true or false`},
	}
	for _, tt := range tests {
		res, err := callTool(t, cs, tt.tool, tt.args)
		var rpcErr *jsonrpc.Error
		switch {
		case tt.code != 0:
			if !errors.As(err, &rpcErr) || rpcErr.Code != tt.code {
				t.Errorf("%s %v: want JSON-RPC error %d, got %+v, %v", tt.tool, tt.args, tt.code, res, err)
			}
		case err != nil:
			t.Errorf("%s %v: %v", tt.tool, tt.args, err)
		case tt.accepted:
			if res.IsError {
				t.Errorf("%s %v: want success, got %q", tt.tool, tt.args, resultText(res))
			}
		case !res.IsError || !strings.Contains(resultText(res), tt.isError):
			t.Errorf("%s %v: want isError containing %q, got isError=%v %q", tt.tool, tt.args, tt.isError, res.IsError, resultText(res))
		}
	}
}

// rawSession drives [demo.Serve] with raw JSON-RPC lines.
type rawSession struct {
	t     *testing.T
	out   io.Writer
	lines *bufio.Scanner
}

func newRawSession(t *testing.T) (*rawSession, func()) {
	in, out, stop := serve(t)
	s := &rawSession{t: t, out: out, lines: bufio.NewScanner(in)}
	s.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	if line := s.next(); !strings.HasPrefix(line, `{"jsonrpc":"2.0","id":0,"result":`) {
		t.Fatalf("initialize: %s", line)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s, stop
}

func (s *rawSession) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.out, line+"\n"); err != nil {
		s.t.Fatal(err)
	}
}

func (s *rawSession) next() string {
	s.t.Helper()
	if !s.lines.Scan() {
		s.t.Fatalf("no more lines: %v", s.lines.Err())
	}
	return s.lines.Text()
}

func TestDebugStatusWritesStrayLine(t *testing.T) {
	s, _ := newRawSession(t)
	s.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"debug_status","arguments":{"component":"cache"}}}`)
	if got := s.next(); got != "DEBUG: status called" {
		t.Errorf("first line %q, want the debug line", got)
	}
	if got := s.next(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":1,"result":`) || !strings.Contains(got, "cache: ok") {
		t.Errorf("second line %q, want the answer", got)
	}
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"debug_status","arguments":{"component":"disk"}}}`)
	if got := s.next(); got != "DEBUG: status called" {
		t.Errorf("first line %q, want the debug line", got)
	}
	if got := s.next(); !strings.Contains(got, `"isError":true`) || !strings.Contains(got, `\"component\" must be one of`) {
		t.Errorf("second line %q, want an isError answer", got)
	}
}

func TestSlowLookupHangsUntilServeEnds(t *testing.T) {
	s, stop := newRawSession(t)
	s.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow_lookup","arguments":{"key":"NOT VALID"}}}`)
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow_lookup","arguments":{"key":"valid_key"}}}`)
	if got := s.next(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":2,"result":`) {
		t.Fatalf("want the answer to 2 first, got %q", got)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	got := make(chan string, 1)
	go func() {
		if s.lines.Scan() {
			got <- s.lines.Text()
		}
		close(got)
	}()
	select {
	case line, ok := <-got:
		if ok {
			t.Fatalf("slow_lookup answered bad input: %s", line)
		}
	case <-time.After(300 * time.Millisecond):
	}
	stop() // releases the hung handler; fails the test if Serve does not return
}
