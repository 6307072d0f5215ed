package engine

import (
	"encoding/json"
	"strings"
	"testing"

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
