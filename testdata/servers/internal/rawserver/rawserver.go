package rawserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
)

// ProtocolVersion is the version answered when the client asks for one this
// package does not know.
const ProtocolVersion = "2025-06-18"

// knownVersions are echoed back when the client asks for them.
var knownVersions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}

// A Request is one JSON-RPC request or notification.
type Request struct {
	ID     json.RawMessage // nil for a notification
	Method string
	Params json.RawMessage
}

// A Handler answers a request with a result (marshaled as is) or an error.
// An *[Error] becomes that JSON-RPC error; any other error becomes -32603.
// A handler that has already written its own answer returns [ErrAnswered].
type Handler func(s *Server, req *Request) (any, error)

// ErrAnswered tells the server that the handler wrote the response itself.
var ErrAnswered = errors.New("rawserver: handler answered the request itself")

// Error is a JSON-RPC error object.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message) }

// Server is a raw JSON-RPC server. Set its fields before calling Serve.
type Server struct {
	Name, Version, Instructions string
	// Capabilities is the initialize result's capabilities; nil means
	// {"tools": {}}.
	Capabilities map[string]any
	// Methods maps method names to handlers.
	Methods map[string]Handler
	// OnMessage, when set, is called with the method of every request and
	// notification read, before it is handled: a fixture counts what
	// reached it.
	OnMessage func(method string)

	mu sync.Mutex
	w  io.Writer
}

// Main serves s on stdin and stdout and exits non-zero if that fails.
func Main(s *Server) {
	if err := s.Serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", s.Name, err)
		os.Exit(1)
	}
}

// Serve reads requests from r, one per line, until end of file, writing
// responses to w.
func (s *Server) Serve(r io.Reader, w io.Writer) error {
	s.mu.Lock()
	s.w = w
	s.mu.Unlock()
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadBytes('\n')
		if line = bytes.TrimSpace(line); len(line) > 0 {
			if werr := s.handleLine(line); werr != nil {
				return fmt.Errorf("writing response: %w", werr)
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading request: %w", err)
		}
	}
}

func (s *Server) handleLine(line []byte) error {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if !json.Valid(line) {
		return s.Respond(json.RawMessage("null"), nil, &Error{Code: -32700, Message: "parse error"})
	}
	if json.Unmarshal(line, &msg) != nil {
		return s.Respond(json.RawMessage("null"), nil, &Error{Code: -32600, Message: "invalid request: not a JSON-RPC request object"})
	}
	if msg.Method == nil {
		return nil // a response to something we never asked, or junk: ignore
	}
	if s.OnMessage != nil {
		s.OnMessage(*msg.Method)
	}
	req := &Request{ID: msg.ID, Method: *msg.Method, Params: msg.Params}
	if bytes.Equal(req.ID, []byte("null")) {
		req.ID = nil
	}
	if req.ID == nil {
		return nil // notifications need no answer
	}
	var (
		result any
		err    error
	)
	switch h, ok := s.Methods[req.Method]; {
	case ok:
		result, err = h(s, req)
	case req.Method == "initialize":
		result = s.initialize(req.Params)
	case req.Method == "ping":
		result = struct{}{}
	default:
		err = &Error{Code: -32601, Message: fmt.Sprintf("method not found: %q", req.Method)}
	}
	if errors.Is(err, ErrAnswered) {
		return nil
	}
	return s.Respond(req.ID, result, err)
}

// Initialize is the server's default answer to initialize with params, for
// a handler that wraps it.
func (s *Server) Initialize(params json.RawMessage) any { return s.initialize(params) }

func (s *Server) initialize(params json.RawMessage) any {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(params, &p)
	version := ProtocolVersion
	if slices.Contains(knownVersions, p.ProtocolVersion) {
		version = p.ProtocolVersion
	}
	caps := s.Capabilities
	if caps == nil {
		caps = map[string]any{"tools": map[string]any{}}
	}
	res := map[string]any{
		"protocolVersion": version,
		"capabilities":    caps,
		"serverInfo":      map[string]any{"name": s.Name, "version": s.Version},
	}
	if s.Instructions != "" {
		res["instructions"] = s.Instructions
	}
	return res
}

// Respond writes the response to request id: err if it is not nil, else
// result.
func (s *Server) Respond(id json.RawMessage, result any, err error) error {
	frame := map[string]any{"jsonrpc": "2.0", "id": id}
	if err != nil {
		var rpcErr *Error
		if !errors.As(err, &rpcErr) {
			rpcErr = &Error{Code: -32603, Message: err.Error()}
		}
		frame["error"] = rpcErr
	} else {
		frame["result"] = result
	}
	return s.Send(frame)
}

// RespondRaw writes a response to request id whose result is the JSON text
// result, without re-encoding it (encoding/json refuses to encode values
// nested more than 10,000 deep, and malformed-tools sends one).
func (s *Server) RespondRaw(id json.RawMessage, result []byte) error {
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","id":`)
	b.Write(id)
	b.WriteString(`,"result":`)
	b.Write(result)
	b.WriteString("}\n")
	return s.write(b.Bytes())
}

// Send writes v as one JSON frame, newline included, with one Write. It is
// for handlers that need to write frames of their own.
func (s *Server) Send(v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding frame: %w", err)
	}
	return s.write(append(data, '\n'))
}

// SendLine writes line (which should end in a newline) as is, with one
// Write: for frames that are deliberately not valid JSON-RPC.
func (s *Server) SendLine(line []byte) error { return s.write(line) }

func (s *Server) write(frame []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err := s.w.Write(frame)
	return err
}

// CallParams are the params of tools/call.
type CallParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Task      json.RawMessage `json:"task,omitempty"`
}

// DecodeCall decodes tools/call params, answering -32602 when they are not
// an object.
func DecodeCall(req *Request) (*CallParams, error) {
	var p CallParams
	if err := json.Unmarshal(req.Params, &p); err != nil {
		return nil, &Error{Code: -32602, Message: "invalid tools/call params: " + err.Error()}
	}
	return &p, nil
}

// Text returns a successful CallToolResult holding one text block.
func Text(text string) map[string]any {
	return map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}}
}

// ErrorText returns a CallToolResult with isError set, holding one text
// block: a tool's own refusal.
func ErrorText(text string) map[string]any {
	r := Text(text)
	r["isError"] = true
	return r
}

// ReadOnly returns the annotations object of a read-only tool.
func ReadOnly() map[string]any {
	return map[string]any{"readOnlyHint": true}
}

// Tool returns a read-only tool definition with the given input schema
// (any JSON value, deliberately: some fixtures send broken ones).
func Tool(name, description string, inputSchema any) map[string]any {
	return map[string]any{
		"name":        name,
		"description": description,
		"inputSchema": inputSchema,
		"annotations": ReadOnly(),
	}
}

// OneString is a sane input schema: one required string property q.
func OneString() map[string]any {
	return map[string]any{
		"type":       "object",
		"properties": map[string]any{"q": map[string]any{"type": "string", "description": "Any text."}},
		"required":   []string{"q"},
	}
}

// UnknownTool is the error for a tools/call of a tool that does not exist.
func UnknownTool(name string) error {
	return &Error{Code: -32602, Message: fmt.Sprintf("unknown tool %q", name)}
}

// HasEnvelope reports whether req carries the stateless _meta envelope of
// the 2026-07-28 era naming version: how a fixture of both eras tells
// which one a request speaks.
func HasEnvelope(req *Request, version string) bool {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(req.Params, &p)
	var v string
	return json.Unmarshal(p.Meta["io.modelcontextprotocol/protocolVersion"], &v) == nil && v == version
}

// Discover is the server/discover handler of a fixture of both eras whose
// stateless version is version: its DiscoverResult (tools only) for an
// enveloped request, -32022 naming version for any other.
func Discover(version string) Handler {
	return func(s *Server, req *Request) (any, error) {
		if !HasEnvelope(req, version) {
			return nil, &Error{Code: -32022, Message: "unsupported protocol version", Data: map[string]any{"supported": []string{version}}}
		}
		return map[string]any{
			"supportedVersions": []string{version},
			"capabilities":      map[string]any{"tools": map[string]any{}},
			"_meta":             map[string]any{"io.modelcontextprotocol/serverInfo": map[string]any{"name": s.Name, "version": s.Version}},
		}, nil
	}
}

// ToolsList answers tools/list with tools, in one page.
func ToolsList(tools []any) Handler {
	return func(*Server, *Request) (any, error) {
		return map[string]any{"tools": tools}, nil
	}
}
