package repro

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/mcpheader"
	"github.com/mcp-fuzz/mcp-fuzz/internal/protocheck"
	"github.com/mcp-fuzz/mcp-fuzz/internal/render/escape"
	"github.com/mcp-fuzz/mcp-fuzz/internal/stateless"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// Check sends a check's request as mcp-fuzz did: over stdio after an
// enveloped tools/list (the check's session had made modern requests
// before), over HTTP as one POST with the check's headers, or, for a check
// of plain HTTP, as its GET.
func Check(rep *report.Report, t Target, c report.Check) report.Reproducer {
	if c.HTTP != "" && t.URL != "" {
		return reproduceHTTP(t, c)
	}
	if len(c.Request) == 0 {
		return report.Reproducer{}
	}
	line := string(escape.JSON(c.Request))
	r := report.Reproducer{JSONRPC: line}
	switch {
	case len(t.Command) > 0 && rep.Server.Era != report.EraModern:
		// The 2025 era: the handshake first.
		cd, prefix := shellContext(t)
		r.Shell = fmt.Sprintf("%s{ printf '%%s\\n' %s %s %s; sleep 2; } | %s%s | cut -c1-300",
			cd, ShellQuote(initialize), ShellQuote(initialized), ShellQuote(line), prefix, ShellJoin(t.Command))
	case len(t.Command) > 0:
		list := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":` + string(Envelope(rep.Server.ProtocolVersion)) + `}}`
		cd, prefix := shellContext(t)
		r.Shell = fmt.Sprintf("%s{ printf '%%s\\n' %s %s; sleep 2; } | %s%s | cut -c1-300",
			cd, ShellQuote(list), ShellQuote(line), prefix, ShellJoin(t.Command))
	case t.URL != "" && rep.Server.Era != report.EraModern:
		// The 2025 era over HTTP: a session first, as a case's reproducer
		// opens one.
		r.Shell = sessionCurl(t, rep.Server.ProtocolVersion, line)
	case t.URL != "":
		var req struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		_ = json.Unmarshal(c.Request, &req)
		own := http.Header{}
		for _, h := range c.Headers {
			k, v, _ := strings.Cut(h, ": ")
			own.Set(k, v)
		}
		headers := CheckHeaders(req.Method, req.Params, own, rep.Server.ProtocolVersion, t.Params)
		var hs strings.Builder
		for _, k := range slices.Sorted(maps.Keys(headers)) {
			if v := headers.Get(k); v != "" {
				hs.WriteString(" -H " + ShellQuote(k+": "+v))
			}
		}
		r.Shell = fmt.Sprintf("curl -si %s%s%s -d %s", ShellQuote(t.URL), " "+curlHeaders(t), hs.String(), ShellQuote(line))
	}
	return r
}

// reproduceHTTP is the curl line of a check that sent a plain HTTP request
// (c.HTTP): to the origin of the URL, with the check's headers and the
// user's as "$ENV" references, bounded in time (a stream may never end).
func reproduceHTTP(t Target, c report.Check) report.Reproducer {
	_, path, _ := strings.Cut(c.HTTP, " ")
	target := t.URL
	if u, err := url.Parse(target); err == nil && path != u.EscapedPath() && path != "/"+u.EscapedPath() {
		// A well-known path: the URL's query does not go with it.
		target = Origin(u) + path
	}
	var hs strings.Builder
	for _, h := range c.Headers {
		hs.WriteString(" -H " + ShellQuote(h))
	}
	maxTime := protocheck.Timeout
	if slices.Contains(c.Headers, "Accept: "+protocheck.AcceptSSE) {
		maxTime = protocheck.SSEWindow
	}
	return report.Reproducer{Shell: fmt.Sprintf("curl -si --max-time %d %s%s%s", int(maxTime.Seconds()), ShellQuote(target), hs.String(), userCurlHeaders(t))}
}

// Origin is u's scheme://host, without credentials.
func Origin(u *url.URL) string {
	return u.Scheme + "://" + u.Host
}

// CheckHeaders are the HTTP headers of a check's request of method with
// params: the routing headers a conforming client sends for it
// (Mcp-Method, Mcp-Name, and the version its _meta names, else the
// negotiated one, and the Mcp-Param headers of a tools/call of a tool in
// bindings), then the check's own, which break one of them.
func CheckHeaders(method string, params json.RawMessage, own http.Header, negotiated string, bindings map[string][]mcpheader.Binding) http.Header {
	var p struct {
		Name      string                     `json:"name"`
		Arguments json.RawMessage            `json:"arguments"`
		Meta      map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(params, &p)
	version := negotiated
	var v string
	if json.Unmarshal(p.Meta[stateless.MetaProtocolVersion], &v) == nil && v != "" {
		version = v
	}
	h := http.Header{"Mcp-Method": {method}}
	if t := mcpheader.Token(version); t != "" {
		h.Set("Mcp-Protocol-Version", t)
	}
	if method == "tools/call" && p.Name != "" {
		h.Set("Mcp-Name", mcpheader.NameValue(p.Name))
		for k, vs := range mcpheader.Headers(bindings[p.Name], p.Arguments) {
			h[k] = vs
		}
	}
	for k, vs := range own {
		h[http.CanonicalHeaderKey(k)] = vs
	}
	return h
}

// reproduceConcurrent is the reproducer of a concurrency check: for a
// tool's, its valid case's shell one-liner run as many times at once as
// the check did; for a check of one session, its request line alone (the
// failure needs requests in flight together, which a shell line does not
// time reliably).
func reproduceConcurrent(rep *report.Report, t Target, c report.Check) report.Reproducer {
	line := report.Reproducer{JSONRPC: string(escape.JSON(c.Request))}
	i := slices.IndexFunc(rep.Tools, func(tl report.Tool) bool { return tl.Name == c.Tool })
	if c.Tool == "" || i < 0 {
		return line
	}
	j := slices.IndexFunc(rep.Tools[i].Cases, func(rc report.Case) bool { return rc.Kind == report.KindValid })
	if j < 0 {
		return line
	}
	vc := rep.Tools[i].Cases[j]
	vc.Timing = nil // one call per process
	r := Case(rep, t, c.Tool, vc)
	if r.Shell != "" && r.JSONRPC != "" {
		r.Shell = fmt.Sprintf("for i in $(seq %d); do ( %s ) & done; wait", max(rep.Config.Concurrency, 2), r.Shell)
	}
	return r
}

// Startup is a shell one-liner that starts the server, sends initialize
// and shows the first lines it writes: a line before the answer, or one
// that is not JSON-RPC, is the defect. Over HTTP, the initialize request
// with its response headers.
func Startup(rep *report.Report, t Target) report.Reproducer {
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	switch {
	case len(t.Command) > 0 && rep.Server.Era == report.EraModern:
		env := string(Envelope(rep.Server.ProtocolVersion))
		disc := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":` + env + `}}`
		list := `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":` + env + `}}`
		cd, prefix := shellContext(t)
		return report.Reproducer{Shell: fmt.Sprintf("%s{ printf '%%s\\n' %s %s; sleep 2; } | %s%s | head -n 20 | cut -c1-300",
			cd, ShellQuote(disc), ShellQuote(list), prefix, ShellJoin(t.Command))}
	case len(t.Command) > 0:
		cd, prefix := shellContext(t)
		return report.Reproducer{Shell: fmt.Sprintf("%s{ printf '%%s\\n' %s %s %s; sleep 2; } | %s%s | head -n 20 | cut -c1-300",
			cd, ShellQuote(initialize), ShellQuote(initialized), ShellQuote(list), prefix, ShellJoin(t.Command))}
	case t.URL != "" && rep.Server.Era == report.EraModern:
		h := curlHeaders(t)
		disc := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":` + string(Envelope(rep.Server.ProtocolVersion)) + `}}`
		return report.Reproducer{Shell: fmt.Sprintf("curl -si %s %s -H %s -H 'Mcp-Method: server/discover' -d %s | head -n 40",
			ShellQuote(t.URL), h, ShellQuote("Mcp-Protocol-Version: "+mcpheader.Token(rep.Server.ProtocolVersion)), ShellQuote(disc))}
	case t.URL != "":
		h := curlHeaders(t)
		return report.Reproducer{Shell: fmt.Sprintf("curl -si %s %s -d %s | head -n 40", ShellQuote(t.URL), h, ShellQuote(initialize))}
	}
	return report.Reproducer{}
}
