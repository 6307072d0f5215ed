package render

import (
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

func TestMergedMarkdown(t *testing.T) {
	a, b := gradedReport(), ungradedReport()
	out := MergedMarkdown([]*report.Report{a, b})
	if !strings.HasPrefix(out, "## mcp-fuzz: 2 targets\n") {
		t.Fatalf("header: %.80q", out)
	}
	rows := 0
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "| ") && !strings.HasPrefix(line, "| Target") && strings.Count(line, " | ") == 7 {
			rows++
		}
	}
	if rows < 2 {
		t.Errorf("want a table row per target, got %d:\n%s", rows, out[:min(len(out), 800)])
	}
	if n := strings.Count(out, "\n### mcp-fuzz: "); n != 2 {
		t.Errorf("want 2 report sections one level down, got %d", n)
	}
	if strings.Contains(out, "<!--") {
		t.Error("a server could forge a comment marker")
	}
}
