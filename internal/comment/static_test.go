package comment

import (
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/score"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// TestStaticSection: a static audit's section carries the label next to
// its grade, shows no call counts (none was measured), and keeps both
// through the comment's hidden data.
func TestStaticSection(t *testing.T) {
	t.Parallel()
	rep := &report.Report{
		Static: true, Config: report.Settings{NoCalls: true},
		Target: report.Target{Transport: "stdio", Command: "srv"},
		Tools:  []report.Tool{{Name: "a", SkipReason: "not called: --no-calls (static audit)", Cases: []report.Case{}}},
		Lint:   []report.Lint{{Code: "x", Severity: report.SeverityWarning, Tool: "a"}},
	}
	score.Apply(rep)
	s := newSection("job srv", "", rep, 1<<20)
	if !s.Static || s.Untested != report.StaticLabel || s.Score == nil || *s.Score != 96 || s.Grade != "A" {
		t.Fatalf("section %+v: want static, labelled, A 96", s)
	}
	body := Render([]SectionData{s})
	if !strings.Contains(body, "| 96 | A ("+report.StaticLabel+") | — | — | — |") {
		t.Errorf("row lacks the label or shows call counts:\n%s", body)
	}
	back, ok := Parse(body)
	if !ok || len(back) != 1 || !back[0].Static || back[0].Untested != report.StaticLabel {
		t.Errorf("parsed back %+v, want the static section", back)
	}
}
