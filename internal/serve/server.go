package serve

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-fuzz/mcp-fuzz/internal/secret"
)

// Name is the server's name in its initialize result.
const Name = "mcp-fuzz"

// Instructions is the server's initialize instructions: the workflow and
// the safety rule.
const Instructions = `mcp-fuzz audits MCP servers: it starts one (a stdio command or an HTTP URL), calls its tools with one valid and many deliberately broken inputs, and scores how it behaves (0-100, grade A-F) with findings and reproducers.

Workflow:
1. list_tools: start the target and list its tools, which ones an audit would call and why, and metadata lint findings. No tool of the target is called.
2. audit: fuzz the target. By default only tools the target annotates readOnlyHint: true are called. Set output_path to a .json file to keep the full report.
3. replay: re-run one case id (a finding's caseId) from that saved .json report, e.g. after a fix, and compare the old and new verdicts.
4. render_report: render a saved .json report as markdown, terminal text, SARIF or JUnit.

Safety: audit calls the target's tools with hostile inputs. audit_destructive also calls tools that are not annotated read-only: never use it against a server that can run shell commands, send messages, or touch real data (files, databases, accounts); use it only on a disposable test instance. Headers, bearer tokens and env values you pass are secrets: they are redacted from every result and never echoed back.`

// Options configures the server.
type Options struct {
	// Version is mcp-fuzz's version, recorded in reports.
	Version string
	// LookupEnv reads this process's environment (PATH and the other
	// allowlisted variables given to a stdio target); nil: os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// Environ lists this process's whole environment, for the secrets of
	// mcp-fuzz's own that are redacted from results (see [secret.Own]);
	// nil: os.Environ when LookupEnv is nil too, else none.
	Environ func() []string
}

// NewServer returns the mcp-fuzz MCP server with its tools registered.
func NewServer(o Options) *mcp.Server {
	if o.LookupEnv == nil {
		o.LookupEnv = os.LookupEnv
		if o.Environ == nil {
			o.Environ = os.Environ
		}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: Name, Title: "mcp-fuzz", Version: o.Version},
		&mcp.ServerOptions{
			Instructions: Instructions,
			// What it does: tools, a fixed list. Not the SDK's default
			// logging capability: it sends no log messages (the current
			// revision deprecates the capability).
			Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
		})
	h := &handlers{o: o}
	addListTools(s, h)
	addAudit(s, h)
	addReplay(s, h)
	addRender(s)
	return s
}

// Run serves the mcp-fuzz server over newline-delimited JSON-RPC on in and
// out until in ends or ctx is cancelled. Nothing but JSON-RPC frames is
// written to out.
func Run(ctx context.Context, o Options, in io.Reader, out io.Writer) error {
	err := NewServer(o).Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopCloser{out}})
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("serving MCP on stdio: %w", err)
	}
	return nil
}

// nopCloser keeps the transport from closing the caller's writer.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// handlers holds what the tool handlers share.
type handlers struct{ o Options }

// own returns the secrets of this process's own environment: see
// [secret.Own].
func (h *handlers) own() map[string]string {
	if h.o.Environ == nil {
		return nil
	}
	return secret.Own(h.o.Environ())
}

func ptr[T any](v T) *T { return &v }
