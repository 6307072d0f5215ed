package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Name and Version identify the demo server in its initialize result.
const (
	Name    = "mcp-fuzz-demo"
	Version = "1.0.0"
)

// Instructions is the demo server's initialize instructions.
const Instructions = "A deliberately flawed MCP server bundled with mcp-fuzz. " +
	"lookup_user is the only well-behaved tool; every other tool misbehaves in one named way " +
	"(rejects with -32602, accepts anything, exits, panics, hangs, writes to stdout, leaks a " +
	"traceback, returns nothing, breaks its output schema). delete_everything is marked " +
	"destructive and deletes nothing."

// NewServer returns the demo server with every demo tool registered.
//
// Serve it with [Run] (or [Serve]): debug_status needs the writer that Run
// installs to put its stray line on the wire, and slow_lookup only returns when
// Run's context ends. Served any other way, debug_status answers cleanly and
// slow_lookup blocks for good on bad input. get_weather calls os.Exit on bad
// input wherever it runs, so never send it bad input in-process.
func NewServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: Name, Title: "mcp-fuzz demo server", Version: Version},
		&mcp.ServerOptions{Instructions: Instructions})
	for _, add := range []func(*mcp.Server){
		AddLookupUser,
		AddStrictSearch,
		AddEchoNote,
		AddGetWeather,
		AddParseDate,
		AddSlowLookup,
		AddDebugStatus,
		AddReadConfig,
		AddListItems,
		AddGetStats,
		AddDeleteEverything,
	} {
		add(s)
	}
	return s
}

// Serve runs the demo server with every tool over newline-delimited JSON-RPC,
// reading requests from in and writing frames to out. It returns nil when in
// reaches end of file and ctx.Err() when ctx is cancelled. Serve does not
// close in or out.
func Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	return Run(ctx, NewServer(), in, out)
}

// Run serves s over newline-delimited JSON-RPC on in and out, like [Serve].
// It wraps out in a mutex so that the frames of the transport and the stray
// line of debug_status are each written whole. A hung slow_lookup keeps Run
// from returning at the end of in, as a hung server would; it is released
// when ctx ends.
func Run(ctx context.Context, s *mcp.Server, in io.Reader, out io.Writer) error {
	w := &lockedWriter{w: out}
	ctx = context.WithValue(ctx, stdoutKey{}, io.Writer(w))
	ctx = context.WithValue(ctx, lifetimeKey{}, ctx.Done())
	err := s.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: w})
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("serving MCP on a stream: %w", err)
	}
	return err
}

// lockedWriter serialises writes, so that each Write reaches the underlying
// writer whole. The SDK's stdio transport writes every frame, newline
// included, with one Write.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Close does nothing: the caller of [Run] owns the writer.
func (l *lockedWriter) Close() error { return nil }

type (
	stdoutKey   struct{}
	lifetimeKey struct{}
)

// stdoutFrom returns the writer installed by [Run], or nil.
func stdoutFrom(ctx context.Context) io.Writer {
	w, _ := ctx.Value(stdoutKey{}).(io.Writer)
	return w
}

// lifetimeFrom returns a channel closed when [Run]'s context ends, or nil
// (which blocks forever) when the server is not run by Run.
func lifetimeFrom(ctx context.Context) <-chan struct{} {
	done, _ := ctx.Value(lifetimeKey{}).(<-chan struct{})
	return done
}

// text returns a successful result holding one text block.
func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// toolError returns a tool-level error result (isError: true), which the
// model sees and can correct.
func toolError(format string, args ...any) *mcp.CallToolResult {
	res := text(fmt.Sprintf(format, args...))
	res.IsError = true
	return res
}

// recoverPanics turns a panic in h into a JSON-RPC internal error (-32603)
// carrying the panic value. The SDK does not recover panics in tool handlers:
// without this, the panic kills the process.
func recoverPanics(h mcp.ToolHandler) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		defer func() {
			if r := recover(); r != nil {
				res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("internal error: %v", r)}
			}
		}()
		return h(ctx, req)
	}
}

// readOnly is the annotation set of every demo tool except delete_everything.
func readOnly(title string) *mcp.ToolAnnotations {
	no := false
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no}
}

// schema returns a JSON Schema literal for a tool. It panics on malformed
// JSON, which only a typo in this package can cause.
func schema(s string) json.RawMessage {
	if !json.Valid([]byte(s)) {
		panic("demo: invalid schema literal: " + s)
	}
	return json.RawMessage(s)
}
