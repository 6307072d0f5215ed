package render

import (
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// TestEraInHeaders: the era the audit spoke shows in the Markdown and
// terminal headers; a report without one (older mcp-fuzz) shows none.
func TestEraInHeaders(t *testing.T) {
	rep := &report.Report{Server: report.Server{Name: "s", ProtocolVersion: "2026-07-28", Era: "modern"}, Target: report.Target{Transport: "stdio"}}
	rep.Normalize()
	if md := Markdown(rep); !strings.Contains(md, "transport stdio, modern era (2026-07-28)") {
		t.Errorf("markdown header lacks the era:\n%s", md)
	}
	if term := Terminal(rep, false); !strings.Contains(term, "(protocol 2026-07-28, modern era, stdio)") {
		t.Errorf("terminal header lacks the era:\n%s", term)
	}
	rep.Server.Era = ""
	if md := Markdown(rep); strings.Contains(md, " era ") {
		t.Errorf("markdown names an era the report does not record")
	}
}

// TestEraReasonInTerminal: why the legacy era was spoken shows under the
// terminal header, escaped like everything the server caused.
func TestEraReasonInTerminal(t *testing.T) {
	rep := &report.Report{Server: report.Server{Name: "s", ProtocolVersion: "2025-11-25", Era: "legacy",
		EraReason: "the server's answer to server/discover was 5242996 bytes, over --max-response 4194304\x1b[31m"}, Target: report.Target{Transport: "stdio"}}
	rep.Normalize()
	term := Terminal(rep, false)
	if !strings.Contains(term, "era     legacy: the server's answer to server/discover was 5242996 bytes, over --max-response 4194304") {
		t.Errorf("terminal lacks the era's reason:\n%s", term)
	}
	if strings.Contains(term, "\x1b") {
		t.Errorf("the reason's escape sequence reached the terminal:\n%q", term)
	}
	rep.Server.EraReason = ""
	if term := Terminal(rep, false); strings.Contains(term, "era     ") {
		t.Errorf("terminal shows a reason the report does not record:\n%s", term)
	}
}
