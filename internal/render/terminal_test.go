package render

import (
	"regexp"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

var ourANSI = regexp.MustCompile(`\x1b\[[0-9;]*m`)

func TestTerminal(t *testing.T) {
	for _, r := range reports {
		for _, colour := range []bool{false, true} {
			name := r.name + "/plain"
			if colour {
				name = r.name + "/colour"
			}
			t.Run(name, func(t *testing.T) {
				out := Terminal(r.rep(), colour)
				if !colour && strings.Contains(out, "\x1b") {
					t.Error("ESC without colour")
				}
				// The only escapes are our own SGR codes, never the server's
				// (\x1b[31m appears in hostile names: it must be gone).
				stripped := ourANSI.ReplaceAllString(out, "")
				if strings.Contains(stripped, "\x1b") {
					t.Error("foreign escape sequence in output")
				}
				if colour && stripped != Terminal(r.rep(), false) {
					t.Error("colour changes the text")
				}
				if strings.Contains(out, "pwned") && strings.Contains(out, "\x07") {
					t.Error("OSC title sequence survived")
				}
				for _, line := range strings.Split(stripped, "\n") {
					if strings.HasPrefix(strings.TrimSpace(line), "second line") {
						t.Errorf("server newline split a line: %q", line)
					}
				}
				// A crash verdict of a case (the eras report has the word
				// only in a legacy era's finding and callout).
				if colour && hasVerdict(r.rep(), report.Crash) && !strings.Contains(out, ansiBoldRed+"crash") {
					t.Error("a crash is not painted bold red")
				}
				golden(t, []byte(out))
			})
		}
	}
}

// hasVerdict reports whether a case of rep has verdict v.
func hasVerdict(rep *report.Report, v report.Verdict) bool {
	for _, t := range rep.Tools {
		for _, c := range t.Cases {
			if c.Verdict == v {
				return true
			}
		}
	}
	return false
}

// TestTaskAugmentedCallsShown: a task-only tool's cases go through
// tasks/get and tasks/result; the terminal and the Markdown say so, not
// only the JSON's task field.
func TestTaskAugmentedCallsShown(t *testing.T) {
	rep := &report.Report{Tools: []report.Tool{
		{Name: "research", Tested: true, Cases: []report.Case{{ID: "research/valid", Kind: report.KindValid, Verdict: report.OK, Task: true}}},
		{Name: "plain", Tested: true, Cases: []report.Case{{ID: "plain/valid", Kind: report.KindValid, Verdict: report.OK}}},
	}}
	out := Terminal(rep, false)
	if !strings.Contains(out, "research  (1 ok; task-augmented calls)") {
		t.Errorf("terminal does not mark the task-only tool:\n%s", out)
	}
	if !strings.Contains(out, "plain  (1 ok)\n") {
		t.Errorf("terminal marks a plain tool:\n%s", out)
	}
	md := Markdown(rep)
	if !strings.Contains(md, "| research | research/valid | ok | task-augmented |") {
		t.Errorf("Markdown does not mark the task-augmented case:\n%s", md)
	}
	if !strings.Contains(md, "| plain | plain/valid | ok |  |") {
		t.Errorf("Markdown marks a plain case:\n%s", md)
	}
}

// TestTerminalPlaceholderNoteAndEmptyCode: the note on the report
// placeholder of a replay command and the shell reproducer of a finding
// whose code is empty (a hand-edited report) are shown each, neither in
// place of the other.
func TestTerminalPlaceholderNoteAndEmptyCode(t *testing.T) {
	replay := "mcp-fuzz replay " + report.ReportPlaceholder + " 'big/oversize' -- node server.js"
	rep := &report.Report{Findings: []report.Finding{
		{ID: "big/oversize#accepted", Severity: report.SeverityError, Code: "accepted", Tool: "big", CaseID: "big/oversize", Message: "accepted",
			Reproducer: report.Reproducer{Shell: replay}},
		{ID: "big/x#", Severity: report.SeverityWarning, Tool: "big", CaseID: "big/x", Message: "no code",
			Reproducer: report.Reproducer{JSONRPC: `{"id":2}`, Shell: "echo no-code-shell | node server.js"}},
	}}
	out := Terminal(rep, false)
	for _, want := range []string{"stands for this run's JSON report", "reproduce: echo no-code-shell | node server.js"} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal lacks %q:\n%s", want, out)
		}
	}
}
