package engine

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/mcpheader"
	"github.com/mcp-fuzz/mcp-fuzz/internal/mcptool"
	"github.com/mcp-fuzz/mcp-fuzz/internal/session"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// TestParamHeadersStdio: over stdio an invalid x-mcp-header is a warning
// and the tool is called all the same.
func TestParamHeadersStdio(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "invalid-mcp-header", nil)
	if len(rep.Tools) != 1 || !rep.Tools[0].Tested {
		t.Fatalf("tools %+v", rep.Tools)
	}
	found := false
	for _, l := range rep.Lint {
		if l.Code == "invalid_mcp_header" {
			found = l.Severity == report.SeverityWarning && l.Tool == "price_of" && l.Pointer == "/inputSchema/properties/price/x-mcp-header"
			if !found {
				t.Errorf("lint %+v", l)
			}
		}
	}
	if !found {
		t.Errorf("no invalid_mcp_header lint in %+v", rep.Lint)
	}
}

// TestParamSkipReason: only a modern run over Streamable HTTP skips a tool
// with an invalid annotation.
func TestParamSkipReason(t *testing.T) {
	parallel(t)
	tl, err := mcptool.Parse(json.RawMessage(`{"name":"t","inputSchema":{"type":"object","properties":{"p":{"type":"number","x-mcp-header":"P"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		transport, era string
		skip           bool
	}{
		{"streamable-http", EraModern, true},
		{"streamable-http", EraLegacy, false},
		{"sse", EraLegacy, false},
		{"stdio", EraModern, false},
	} {
		cn := session.NewDialer(session.Options{Command: []string{"server"}, Era: tc.era})
		cn.Transport = tc.transport
		got := cn.ParamSkipReason(tl)
		if (got != "") != tc.skip || tc.skip && !strings.Contains(got, `inputSchema/properties/p/x-mcp-header: x-mcp-header "P" is on a property with type "number"`) {
			t.Errorf("%s %s: %q", tc.transport, tc.era, got)
		}
	}
	if l := session.ParamLint([]tool{tl}, true); len(l) != 1 || l[0].Severity != report.SeverityError {
		t.Errorf("strict lint %+v", l)
	}
}

// TestParamReproducerQuoting: the Mcp-Param headers of a reproducer are
// shell words that reach curl unchanged, and a name that is no HTTP token
// never reaches the line.
func TestParamReproducerQuoting(t *testing.T) {
	parallel(t)
	rep := &report.Report{Server: report.Server{Era: EraModern, ProtocolVersion: ModernProtocolVersion}}
	cfg := Config{URL: "http://127.0.0.1:9/mcp", params: map[string][]mcpheader.Binding{"t": {
		{Path: []string{"a"}, Name: "It's`$x`|~"},
		{Path: []string{"b"}, Name: "Evil\r\nX-Injected: 1"},
		{Path: []string{"c"}, Name: "C"},
	}}}
	c := report.Case{ID: "t/valid", Arguments: json.RawMessage(`{"a":"it's $(id) \"q\"","b":"v","c":"zürich"}`)}
	line := reproduce(rep, cfg, "t", c).Shell
	if strings.Contains(line, "Injected") || strings.ContainsAny(line, "\r\n") {
		t.Fatalf("hostile name in %s", line)
	}
	// curl replaced by a function that prints its arguments, one a line.
	out := runShell(t, `curl() { for a; do printf '%s\n' "$a"; done; }; `+line)
	for _, want := range []string{"Mcp-Param-It's`$x`|~: it's $(id) \"q\"", "Mcp-Param-C: =?base64?esO8cmljaA==?="} {
		if !strings.Contains(out, "\n"+want+"\n") {
			t.Errorf("curl did not get %q:\n%s", want, out)
		}
	}
}
