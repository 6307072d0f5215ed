package render

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

func TestMarkdown(t *testing.T) {
	for _, r := range reports {
		t.Run(r.name, func(t *testing.T) {
			out := Markdown(r.rep())
			checkMarkdownSafe(t, out)
			golden(t, []byte(out))
		})
	}
}

// checkMarkdownSafe checks the properties the escapers promise on a whole
// document.
func checkMarkdownSafe(t *testing.T, out string) {
	t.Helper()
	if strings.Contains(out, "<!--") || strings.Contains(out, "-->") {
		t.Error("output contains a comment marker")
	}
	if strings.Contains(out, "\x1b") {
		t.Error("output contains ESC")
	}
	// GitHub does not turn @mentions in code blocks into pings.
	if prose := outsideCode(out); strings.Contains(prose, "@everyone") || strings.Contains(prose, "@admin") {
		t.Error("output contains a live @mention")
	}
	if strings.Contains(out, "<script>") {
		t.Error("output contains raw HTML")
	}
	if !utf8.ValidString(out) {
		t.Error("invalid UTF-8")
	}
}

// outsideCode returns the lines of md that are not inside fenced code blocks.
func outsideCode(md string) string {
	var b strings.Builder
	fence := ""
	for _, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case fence == "" && strings.HasPrefix(trimmed, "```"):
			fence = strings.TrimRight(trimmed[:len(trimmed)-len(strings.TrimLeft(trimmed, "`"))], " ")
		case fence != "" && trimmed == fence:
			fence = ""
		case fence == "":
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

func unescapedPipes(line string) int {
	n := 0
	for i := 0; i < len(line); i++ {
		if line[i] == '\\' {
			i++
			continue
		}
		if line[i] == '|' {
			n++
		}
	}
	return n
}

// TestMarkdownTables checks that every row of a table has as many cells as
// its header, whatever the server text.
func TestMarkdownTables(t *testing.T) {
	out := Markdown(gradedReport())
	header := -1
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "|") {
			header = -1
			continue
		}
		n := unescapedPipes(line)
		if header < 0 {
			header = n
			continue
		}
		if n != header {
			t.Errorf("row has %d pipes, header %d: %q", n, header, line)
		}
	}
}

func TestMarkdownLimit(t *testing.T) {
	rep := gradedReport()
	// Many findings with long reproducers.
	base := rep.Findings
	for i := 0; i < 2000; i++ {
		for _, f := range base {
			f.ID += string(rune('a' + i%26))
			f.Reproducer.JSONRPC = strings.Repeat("x", 3000)
			rep.Findings = append(rep.Findings, f)
		}
	}
	full := Markdown(rep)
	if len(full) > MaxMarkdownBytes {
		t.Fatalf("Markdown is %d bytes, over %d", len(full), MaxMarkdownBytes)
	}
	if strings.Contains(full, "<details><summary>All") {
		t.Error("case table kept although findings were cut")
	}
	if !strings.Contains(full, "findings are not shown") {
		t.Error("no note about cut findings")
	}
	if !strings.Contains(full, "(first 2000 of 3000 characters") {
		t.Error("no note about a truncated reproducer")
	}
	for _, limit := range []int{0, 10, 500, 5000, 20000} {
		if got := MarkdownLimit(gradedReport(), limit); len(got) > limit {
			t.Errorf("MarkdownLimit(%d) gave %d bytes", limit, len(got))
		}
	}
	small := MarkdownLimit(gradedReport(), 20000)
	if !strings.Contains(small, "## mcp-fuzz:") {
		t.Error("header missing from a 20 kB report")
	}
}

func TestBadgeURL(t *testing.T) {
	rep := &report.Report{Graded: true, Score: ptr(93), Grade: ptr("A")}
	if got, want := BadgeURL(rep), "https://img.shields.io/badge/mcp--fuzz-A%2093-brightgreen"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	// Untested tools are said next to the grade.
	if got, want := BadgeURL(ungradedReport()), "https://img.shields.io/badge/mcp--fuzz-not%20graded%20%281%2F1%20untested%29-lightgrey"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestGradeSaysWhenCapped: a grade a cap lowered names the letter the score
// alone would earn, in the terminal and in Markdown.
func TestGradeSaysWhenCapped(t *testing.T) {
	rep := gradedReport()
	rep.Score, rep.Grade = ptr(80), ptr("D")
	if md := Markdown(rep); !strings.Contains(md, "grade **D** (capped from B), score 80/100") {
		t.Errorf("markdown grade line: %s", firstLine(md))
	}
	if text := Terminal(rep, false); !strings.Contains(text, "Grade D (capped from B)   score 80/100") {
		t.Errorf("terminal lacks the capped grade:\n%s", text)
	}
	rep.Grade = ptr("B")
	if md := Markdown(rep); strings.Contains(md, "capped from") {
		t.Errorf("uncapped grade says capped: %s", firstLine(md))
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
