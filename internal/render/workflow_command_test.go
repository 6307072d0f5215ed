package render

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// workflowCommand reports whether the GitHub Actions runner reads line as
// a workflow command: "::" after leading white space (it trims the line
// before looking), or the older "##[" form anywhere in the line.
func workflowCommand(line string) bool {
	rest := strings.TrimLeftFunc(line, func(r rune) bool { return unicode.IsSpace(r) || unicode.In(r, unicode.Zs) })
	return strings.HasPrefix(rest, "::") || strings.Contains(line, "##[")
}

// hostileWrapReport is the demo's report with server text that wraps: for
// every offset of the wrap, some text has "::error::" at the start of a
// continuation line; and "##[error]" in names and notes.
func hostileWrapReport(t *testing.T) *report.Report {
	rep := demoReport(t)
	pad := func(n int) string { return strings.Repeat("w ", n) }
	var reason strings.Builder
	for i := range 60 {
		reason.WriteString(pad(i) + "::error::pwned ")
	}
	rep.Server.EraReason = reason.String()
	rep.EndedEarly = reason.String()
	rep.Discovery.Notes = []string{"##[error]pwned-note", "\u2003::warning::emspace"}
	rep.Server.Name = "##[add-mask]x"
	for i := range rep.Tools {
		if !rep.Tools[i].Tested {
			rep.Tools[i].SkipReason = reason.String()
		}
	}
	return rep
}

// TestSummaryNoWorkflowCommand: no line of the summary, at any width, is
// a workflow command, though wrapping puts server text at the start of
// continuation lines (after an indent, which the runner trims).
func TestSummaryNoWorkflowCommand(t *testing.T) {
	rep := hostileWrapReport(t)
	for _, width := range []int{0, 80, 91, 100, 117, 120} {
		out := TerminalSummary(rep, TerminalOptions{Width: width})
		if !strings.Contains(out, "pwned") {
			t.Fatalf("width %d: the server's text is not shown:\n%s", width, out)
		}
		for i, line := range strings.Split(out, "\n") {
			if workflowCommand(line) {
				t.Errorf("width %d, line %d is a workflow command: %q", width, i+1, line)
			}
		}
	}
}

// TestTerminalNoWorkflowCommand: --verbose starts a line with each tool's
// name; none may be a workflow command. A JSON-RPC reproducer keeps the
// tool's name: "##[" is spelled "##\u005b", which decodes the same.
func TestTerminalNoWorkflowCommand(t *testing.T) {
	rep := demoReport(t)
	for i := range rep.Tools {
		rep.Tools[i].Name = []string{"::error::pwned", " ::warning::pwned", "##[error]pwned"}[i%3] + rep.Tools[i].Name
	}
	name := "##[error]tool"
	call, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": map[string]any{"name": name, "arguments": map[string]any{}}})
	rep.Findings = append(rep.Findings, report.Finding{ID: "x", Severity: report.SeverityCritical, Code: "crash", Tool: name, CaseID: name + "/valid",
		Message: "the server crashed", Reproducer: report.Reproducer{JSONRPC: string(call)}})
	out := Terminal(rep, false)
	reproduced := false
	for i, line := range strings.Split(out, "\n") {
		if workflowCommand(line) {
			t.Errorf("line %d is a workflow command: %q", i+1, line)
		}
		var v struct {
			Params struct{ Name string }
		}
		if l := strings.TrimSpace(line); strings.HasPrefix(l, `{`) && json.Unmarshal([]byte(l), &v) == nil && v.Params.Name == name {
			reproduced = true
		}
	}
	if !reproduced {
		t.Errorf("no printed JSON-RPC reproducer calls %q:\n%s", name, out)
	}
}

// TestSummaryBoundedWrap: a server's 100,000-character text (double-width
// characters, one word) is cut before it is wrapped, into a bounded number
// of lines (BenchmarkSummaryHostileWrap measures the time). Before the fix wrapText cut an overlong word by re-measuring
// the rest of it for every line (33 s for this text) and printed all 2,858
// lines of it.
func TestSummaryBoundedWrap(t *testing.T) {
	for _, text := range []string{
		strings.Repeat("界", 100_000),
		strings.Repeat("x", 100_000),
		strings.Repeat("ab ", 50_000),
		"a" + strings.Repeat("\u0301", 100_000) + " b",
	} {
		rep := demoReport(t)
		rep.Server.EraReason = text
		rep.EndedEarly = text
		out := TerminalSummary(rep, TerminalOptions{Width: 80})
		if n := strings.Count(out, "\n"); n > 120 {
			t.Errorf("%q…: the summary has %d lines", text[:6], n)
		}
		if len(out) > 64<<10 {
			t.Errorf("%q…: the summary is %d bytes", text[:6], len(out))
		}
		for i, line := range strings.Split(out, "\n") {
			if n := columns(line); n > 80 {
				t.Errorf("line %d is %d columns wide", i+1, n)
			}
		}
	}
}

func ExampleTerminalSummary_wrapCut() {
	rep := &report.Report{Version: "test", EndedEarly: strings.Repeat("word ", 500)}
	out := TerminalSummary(rep, TerminalOptions{Width: 80})
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "word") {
			fmt.Println(strings.HasSuffix(l, "…"), len([]rune(l)) <= 80)
		}
	}
	// Output:
	// false true
	// false true
	// false true
	// false true
	// false true
	// true true
}

// BenchmarkSummaryHostileWrap: the summary of a report whose era reason is
// one 100,000-character word of double-width characters (33 s a run before
// the text was cut before wrapping).
func BenchmarkSummaryHostileWrap(b *testing.B) {
	rep := demoReport(b)
	rep.Server.EraReason = strings.Repeat("界", 100_000)
	for b.Loop() {
		TerminalSummary(rep, TerminalOptions{Width: 80})
	}
}
