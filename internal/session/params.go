package session

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"sync"

	"github.com/mcp-fuzz/mcp-fuzz/internal/mcpheader"
	"github.com/mcp-fuzz/mcp-fuzz/internal/mcptool"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// Parameter headers (Streamable HTTP, 2026-07-28). A property of a tool's
// inputSchema may carry "x-mcp-header": "Region"; a client then sends
// Mcp-Param-Region with every tools/call whose arguments hold a value
// there, and a server refuses a call whose header is missing or differs
// from the body with HeaderMismatch (-32020). mcp-fuzz computes the headers
// of each modern tools/call over Streamable HTTP from the tool's schema and
// the call's own (fuzzed) arguments, so that a conforming server's header
// check passes its well-formed calls and its bad-input cases reach the
// tool's validation (see [mcpheader.Headers] for values without a header
// form). A tool whose annotations are invalid is not called over
// Streamable HTTP, as the revision requires of clients; over stdio the
// annotations mean nothing and the tool is called.

// paramHeaderKey carries, in the context of a tools/call, the Mcp-Param
// headers the [HeaderTransport] adds to its POST.
type paramHeaderKey struct{}

// ParamTable holds the bindings of the run's valid tools, by name; one per
// [Dialer], shared by its sessions.
type ParamTable struct {
	mu     sync.RWMutex
	byTool map[string][]mcpheader.Binding
}

// Set records the bindings of the tools whose definitions are valid.
func (p *ParamTable) Set(tools []mcptool.Tool) {
	m := map[string][]mcpheader.Binding{}
	for _, t := range tools {
		if len(t.Params) > 0 && len(t.ParamProblems) == 0 {
			m[t.Name] = t.Params
		}
	}
	p.mu.Lock()
	p.byTool = m
	p.mu.Unlock()
}

// Snapshot is a copy of the table, for reproducers.
func (p *ParamTable) Snapshot() map[string][]mcpheader.Binding {
	if p == nil {
		return nil
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	return maps.Clone(p.byTool)
}

func (p *ParamTable) Lookup(name string) []mcpheader.Binding {
	if p == nil {
		return nil
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.byTool[name]
}

// empty reports whether no valid tool binds a parameter to a header.
func (p *ParamTable) empty() bool {
	if p == nil {
		return true
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	return len(p.byTool) == 0
}

// withParamHeaders is ctx carrying the Mcp-Param headers of the tools/call
// whose params are params (with or without the _meta envelope).
// It costs a map length under a read lock when no tool has x-mcp-header
// annotations: it runs for every tools/call.
func (p *ParamTable) withParamHeaders(ctx context.Context, params any) context.Context {
	if p.empty() {
		return ctx
	}
	raw, ok := params.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = json.Marshal(params); err != nil {
			return ctx
		}
	}
	var call struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal(raw, &call) != nil {
		return ctx
	}
	if h := mcpheader.Headers(p.Lookup(call.Name), call.Arguments); len(h) > 0 {
		return context.WithValue(ctx, paramHeaderKey{}, h)
	}
	return ctx
}

// MirrorsParams reports whether the run's calls carry Mcp-Param headers:
// the modern era over Streamable HTTP. (The 2025 revisions have no
// parameter headers, and stdio has no headers at all.)
func (cn *Dialer) MirrorsParams() bool {
	return cn.Transport == "streamable-http" && cn.opts.Era == EraModern
}

// ParamSkipReason says why t is not called when its x-mcp-header
// annotations are invalid and the run speaks Streamable HTTP in the modern
// era; "" otherwise.
func (cn *Dialer) ParamSkipReason(t mcptool.Tool) string {
	if len(t.ParamProblems) == 0 || !cn.MirrorsParams() {
		return ""
	}
	p := t.ParamProblems[0]
	return fmt.Sprintf("not called: invalid tool definition (the 2026-07-28 Streamable HTTP transport requires clients to exclude it): inputSchema%s: %s", p.Pointer, p.Message)
}

// ParamLint reports each invalid x-mcp-header annotation of tools: an
// error when the run speaks Streamable HTTP in the modern era (the tool is
// not called), a warning otherwise (clients of other transports may
// ignore the annotations, so the tool is called, but it is no valid
// definition for Streamable HTTP clients).
func ParamLint(tools []mcptool.Tool, strict bool) []report.Lint {
	sev, effect := report.SeverityWarning, "over Streamable HTTP (2026-07-28) clients must exclude the tool from tools/list"
	if strict {
		sev, effect = report.SeverityError, "clients must exclude the tool from tools/list, so mcp-fuzz did not call it"
	}
	var out []report.Lint
	for _, t := range tools {
		for _, p := range t.ParamProblems {
			out = append(out, report.Lint{
				Code:     "invalid_mcp_header",
				Severity: sev,
				Tool:     t.Name,
				Pointer:  "/inputSchema" + p.Pointer,
				Message:  p.Message + "; " + effect,
				Hint:     "put x-mcp-header only on integer, string or boolean properties reached through \"properties\" from the root, with a unique (case-insensitive) HTTP token as its value",
			})
		}
	}
	return out
}

// applyParamHeaders sets the Mcp-Param headers ctx carries on hdr.
func applyParamHeaders(ctx context.Context, hdr http.Header) {
	h, _ := ctx.Value(paramHeaderKey{}).(http.Header)
	for k, vs := range h {
		if strings.HasPrefix(k, mcpheader.Prefix) && mcpheader.ValidName(strings.TrimPrefix(k, mcpheader.Prefix)) {
			hdr[k] = vs
		}
	}
}
