package render

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/score"
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

// erasReport is the report of an --era both run: the modern audit of one
// tool, and a legacy audit in which the server crashed on an input the
// modern era rejected (an era_difference finding and a crash finding of
// the legacy era, a cap and a callout), accepted another one, and hung on
// a tool only the legacy era lists (a hang finding), with hostile text in
// the legacy protocol version, detail and tool name.
func erasReport() *report.Report {
	code := int64(-32602)
	args := json.RawMessage(`{"q":1}`)
	tools := []report.Tool{{Name: "search", Tested: true, Confirmed: true, Cases: []report.Case{
		{ID: "search/valid", Kind: "valid", Verdict: report.OK, Flags: []string{}, DurationMs: 2, Arguments: json.RawMessage(`{"q":"a"}`)},
		{ID: "search/wrong_type/q", Kind: "wrong_type", Pointer: "/q", Forbidden: true, Verdict: report.Rejected, Flags: []string{}, DurationMs: 1, Arguments: args, ErrorCode: &code, Detail: "JSON-RPC error -32602: q must be a string"},
		{ID: "search/null/q", Kind: "null", Pointer: "/q", Forbidden: true, Verdict: report.Handled, Flags: []string{}, DurationMs: 1, Arguments: json.RawMessage(`{"q":null}`)},
	}}}
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"search","arguments":{"q":1}}}`
	finding := func(id, msg string) report.Finding {
		return report.Finding{ID: id + "#era_difference", Severity: report.SeverityError, Code: report.CodeEraDifference, Tool: "search", CaseID: id,
			Message: "the server judged the same input differently in the two protocol eras: " + msg,
			Reproducer: report.Reproducer{JSONRPC: call,
				Shell: "echo '# modern era (2026-07-28)'; ( { printf '%s\\n' '" + call + "'; sleep 2; } | node server.js ); echo '# legacy era (2025-11-25)'; ( … | node server.js )"}}
	}
	rep := &report.Report{
		Version:   "0.3.0",
		Seed:      1,
		StartedAt: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC),
		Config:    report.Settings{Cases: 40, Profile: "default", Era: "both"},
		Target:    report.Target{Transport: "stdio", Command: "node server.js", Args: []string{"node", "server.js"}},
		Server:    report.Server{Name: "search-server", Version: "1.0.0", ProtocolVersion: "2026-07-28", Era: "modern"},
		Tools:     tools,
		Summary:   report.Summarize(tools),
		Findings: []report.Finding{
			finding("search/wrong_type/q", "modern: rejected (-32602); legacy: crash (exit)"),
			finding("search/null/q", "modern: handled; legacy: accepted"),
			{ID: "search/wrong_type/q#crash@legacy", Severity: report.SeverityCritical, Code: string(report.Crash), Tool: "search", CaseID: "search/wrong_type/q",
				Message:    "in the legacy era only: the server crashed (exit): server process exited: " + hostile,
				Reproducer: report.Reproducer{JSONRPC: `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"q":1}}}`, Shell: "{ printf '%s\\n' … ; sleep 2; } | node server.js"}},
			{ID: "legacy_search/null/q#hang@legacy", Severity: report.SeverityCritical, Code: string(report.Hang), Tool: "legacy_search" + hostile, CaseID: "legacy_search/null/q",
				Message:    "in the legacy era only: the server hung: no answer within 10s",
				Reproducer: report.Reproducer{Shell: "mcp-fuzz replay REPORT.json 'legacy_search/null/q' --era legacy -- node server.js"}},
		},
		EraComparison: &report.EraComparison{
			Era: "legacy", ProtocolVersion: "2025-11-25" + hostile, Graded: true, Score: ptr(55), Grade: ptr("D"), Compared: 3,
			Differences: []report.EraDifference{
				{Tool: "search", CaseID: "search/wrong_type/q", Kind: "wrong_type",
					Modern: report.EraOutcome{Verdict: report.Rejected, ErrorCode: &code, Detail: "JSON-RPC error -32602: q must be a string"},
					Legacy: report.EraOutcome{Verdict: report.Crash, Crash: report.CrashExit, Detail: "server process exited: " + hostile}},
				{Tool: "search", CaseID: "search/null/q", Kind: "null",
					Modern: report.EraOutcome{Verdict: report.Handled},
					Legacy: report.EraOutcome{Verdict: report.Accepted, Detail: "success on input the schema forbids"}},
			},
			ToolsOnlyInOtherEra: []string{"legacy_search" + hostile},
			Failures: []report.EraFailure{
				{Tool: "search", Codes: []string{string(report.Crash)}, Case: report.Case{ID: "search/wrong_type/q", Kind: "wrong_type", Pointer: "/q", Forbidden: true,
					Verdict: report.Crash, Crash: &report.CrashInfo{How: report.CrashExit, Stderr: "panic: q is not a string"}, Arguments: args, Detail: "server process exited: " + hostile}},
				{Tool: "legacy_search" + hostile, Codes: []string{string(report.Hang)}, Case: report.Case{ID: "legacy_search/null/q", Kind: "null", Pointer: "/q", Forbidden: true,
					Verdict: report.Hang, Arguments: json.RawMessage(`{"q":null}`), Detail: "no answer within 10s"}},
			},
		},
	}
	rep.EraComparison.Summary = report.Summary{Cases: 3, OK: 1, Crash: 1, Accepted: 1, ToolsTested: 1}
	rep.Normalize()
	score.Apply(rep)
	return rep
}

// TestEraLine: the eras line puts the modern audit first whichever is the
// report's own, says when the other era was not audited, and escapes the
// server's words.
func TestEraLine(t *testing.T) {
	rep := erasReport()
	if got := eraLine(erasOf(rep), term); !strings.HasPrefix(got, "modern 2026-07-28: D 98 · legacy 2025-11-25evil") ||
		!strings.HasSuffix(got, ": D 55 · 2 verdicts differ (3 cases compared)") || strings.Contains(got, "\x1b") {
		t.Errorf("eraLine = %q", got)
	}
	if term := Terminal(rep, false); !strings.Contains(term, "eras note: tools only the legacy era lists: legacy_searchevil|name") || strings.Contains(term, "\x1b") {
		t.Errorf("terminal lacks the tools only the legacy era lists, or lets an escape through:\n%s", term)
	}
	if md := Markdown(rep); !strings.Contains(md, "> Eras: tools only the legacy era lists: legacy\\_search") {
		t.Errorf("markdown lacks the tools only the legacy era lists:\n%s", md)
	}
	one := &report.Report{Graded: true, Score: ptr(90), Grade: ptr("A"), Server: report.Server{Era: "legacy", ProtocolVersion: "2025-06-18"},
		EraComparison: &report.EraComparison{Era: "modern", Note: "not audited in the modern era, so no verdicts were compared: " + hostile}}
	one.Normalize()
	if got, want := eraLine(erasOf(one), term), "modern: not audited · legacy 2025-06-18: A 90"; got != want {
		t.Errorf("eraLine of one era = %q, want %q", got, want)
	}
	if term := Terminal(one, false); !strings.Contains(term, "eras note: not audited in the modern era") || strings.Contains(term, "\x1b") {
		t.Errorf("terminal lacks the note, or lets an escape through:\n%s", term)
	}
	md := Markdown(one)
	checkMarkdownSafe(t, md)
	if !strings.Contains(md, "**Eras:** modern: not audited · legacy 2025-06-18: A 90") || !strings.Contains(md, "> Eras: not audited in the modern era") {
		t.Errorf("markdown lacks the eras line or the note:\n%s", md)
	}
	if got := eraLine(erasOf(&report.Report{}), term); got != "" {
		t.Errorf("eraLine of a report of one era = %q", got)
	}
}
