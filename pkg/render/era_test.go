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
