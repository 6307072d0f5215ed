package render

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/<TestName>.golden, rewriting it with -update.
func golden(t *testing.T, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", filepath.FromSlash(t.Name())+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run go test ./internal/render -update): %v", err)
	}
	if string(got) != string(want) {
		t.Errorf("output differs from %s (run go test ./internal/render -update and review the diff)\n--- got ---\n%s", path, got)
	}
}

func ptr[T any](v T) *T { return &v }

// hostile is server-supplied text that tries every trick the escapers stop.
const hostile = "evil|name <!-- mcp-fuzz --> @everyone \x1b[31mred\x1b[0m\nsecond line"

// gradedReport is a hand-built graded report with every verdict, every flag,
// a leak, caps, a critical callout and hostile server text.
func gradedReport() *report.Report {
	args := func(s string) json.RawMessage { return json.RawMessage(s) }
	code := int64(-32602)
	tools := []report.Tool{
		{
			Name: "get_weather", Description: "Weather | forecast", Tested: true, Confirmed: true,
			Cases: []report.Case{
				{ID: "get_weather/valid", Kind: "valid", Pointer: "", Verdict: report.OK, Flags: []string{report.FlagSlow}, DurationMs: 2500, Arguments: args(`{"city":"Paris"}`), Response: "Sunny, 21°C", Size: 11,
					Timing: &report.Timing{Runs: 3, P50Ms: 2400, P95Ms: 2500}},
				{ID: "get_weather/type-city", Kind: "wrong_type", Pointer: "/city", Forbidden: true, Verdict: report.Handled, Flags: []string{}, DurationMs: 3.2, Arguments: args(`{"city":42}`), Response: "city must be a string"},
				{ID: "get_weather/missing-city", Kind: "missing_required", Pointer: "/city", Forbidden: true, Verdict: report.Rejected, DurationMs: 1.5, Arguments: args(`{}`), Detail: "invalid params", ErrorCode: &code},
				{ID: "get_weather/extra", Kind: "additional_property", Pointer: "/zzz", Verdict: report.Tolerated, DurationMs: 2, Arguments: args(`{"city":"Paris","zzz":1}`)},
				{ID: "get_weather/enum-units", Kind: "enum", Pointer: "/units", Forbidden: true, Verdict: report.Accepted, DurationMs: 4, Arguments: args(`{"city":"Paris","units":"kelvinish"}`), Detail: "units outside the enum returned a result"},
				{ID: "get_weather/huge-city", Kind: "huge_string", Pointer: "/city", Forbidden: true, Verdict: report.Handled, Flags: []string{report.FlagLeak}, DurationMs: 8, Arguments: args(`{"city":"AAAA"}`), Response: "Error: at /home/runner/app/weather.js:12:7", Detail: "stack trace in error text"},
				{ID: "get_weather/oversize/city#string", Kind: "oversize", Pointer: "/city", Forbidden: true, Verdict: report.Accepted, DurationMs: 6,
					ArgumentsDigest: report.DigestArguments(args(`{"city":"` + strings.Repeat("A", 65536) + `"}`)), Detail: "a 65,536-character city returned a result"},
				{ID: "get_weather/late", Kind: "boundary", Pointer: "/days", Verdict: report.NotRun, Arguments: args(`{"city":"Paris","days":0}`)},
			},
		},
		{
			Name: hostile, Description: "<script>alert(1)</script>", Tested: true, Confirmed: false,
			Cases: []report.Case{
				{ID: "evil/valid", Kind: "valid", Verdict: report.Errored, Flags: []string{report.FlagBloated}, DurationMs: 12, Arguments: args(`{"q":"<!-- mcp-fuzz -->"}`), Detail: "@everyone \x1b[2Jboom", Size: 900000,
					Timing: &report.Timing{Runs: 1, P50Ms: 2.5, P95Ms: 2.5, Note: "timed once: @everyone \x1b[2J|<!-- mcp-fuzz -->"}},
				{ID: "evil/null", Kind: "null", Pointer: "/q", Forbidden: true, Verdict: report.Crash, Flags: []string{report.FlagStderrPanic}, DurationMs: 30, Arguments: args(`{"q":null}`), Detail: "process exited with status 2",
					Crash: &report.CrashInfo{How: report.CrashExit, ExitStatus: "exit status 2", Stderr: "panic: runtime error: invalid memory address\n\x1b[31mgoroutine 1 [running]:\x1b[0m\nmain.main()\n\t/src/main.go:9 +0x1d\n```\n<!-- mcp-fuzz -->"}},
				{ID: "evil/deep", Kind: "deep_nesting", Pointer: "/q", Forbidden: true, Verdict: report.Hang, DurationMs: 10000, Arguments: args(`{"q":[[[[[[]]]]]]}`), Detail: "no answer within 10s"},
				{ID: "evil/unicode", Kind: "unicode", Pointer: "/q", Forbidden: false, Verdict: report.ProtocolViolation, DurationMs: 5, Arguments: args(`{"q":"\u202e"}`), Detail: "stdout garbage: |not json|"},
			},
		},
		{
			Name: "render_chart", Tested: true, Confirmed: true,
			Cases: []report.Case{
				{ID: "render_chart/valid", Kind: "valid", Verdict: report.OutputViolation, DurationMs: 40, Arguments: args(`{"data":[1,2]}`), Detail: "structuredContent.width: expected integer"},
			},
		},
		{
			Name: "read_file", Tested: true, Confirmed: true,
			Cases: []report.Case{
				{ID: "read_file/valid", Kind: "valid", Verdict: report.OK, DurationMs: 3, Arguments: args(`{"path":"/tmp/root/a.txt"}`), LearnedFrom: "tool list_directory",
					Detail: "synthetic arguments errored: isError: ENOENT: no such file or directory (may be a synthetic-input false positive: give a realistic example in the config file); learned from tool list_directory"},
			},
		},
		{
			Name: "noop", Tested: true, Confirmed: true,
			Cases: []report.Case{
				{ID: "noop/valid", Kind: "valid", Verdict: report.EmptySuccess, DurationMs: 1, Arguments: args(`{}`)},
			},
		},
		{
			Name: "regex_tool", Tested: true,
			Cases: []report.Case{
				{ID: "regex_tool/valid", Kind: "valid", Verdict: report.GeneratorGap, Arguments: args(`null`), Detail: "pattern too complex"},
			},
		},
		{Name: "delete_everything", Description: "Deletes all files", Tested: false, SkipReason: "destructive (destructiveHint); pass --include-destructive to test it"},
		{Name: "<!-- mcp-fuzz:section -->", Tested: false, SkipReason: "excluded by --skip-tools @admin"},
	}
	rep := &report.Report{
		Version:    "0.3.0",
		Seed:       42,
		StartedAt:  time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC),
		DurationMs: 15234,
		Config:     report.Settings{Cases: 50, SlowMs: 2000, BloatChars: 100000, TimeoutMs: 10000, StartupTimeoutMs: 30000, Profile: "default"},
		Target:     report.Target{Transport: "stdio", Command: "node", Args: []string{"server.js"}},
		Server:     report.Server{Name: "weather-server | <!-- x -->", Version: "1.2.3", ProtocolVersion: "2025-06-18"},
		Graded:     true,
		Score:      ptr(71),
		Grade:      ptr("C"),
		Dimensions: map[string]report.Dimension{
			"robustness":   {Score: ptr(62), Reason: "5 of 8 bad-input cases did not crash, hang or break the protocol"},
			"validation":   {Score: ptr(67), Reason: "2 of 3 forbidden inputs handled or rejected on confirmed tools"},
			"errorQuality": {Score: ptr(50), Reason: "handled 1, rejected 1, minus 1 leak"},
			"liveness":     {Score: ptr(25), Reason: "1 of 4 valid calls ok; errored counts 0 (possibly synthetic input)"},
			"performance":  {Score: ptr(60), Reason: "3 of 5 tools neither slow nor bloated"},
			"schema":       {Score: nil, Reason: "not measured: no tools listed a schema"},
		},
		Caps: []report.Cap{
			{Grade: "C", Reason: "1 crash, 1 hang, 1 protocol violation"},
			{Grade: "C", Reason: "leak of a stack trace in get_weather"},
			{Grade: "C", Reason: "validation 67 < 80"},
		},
		Critical: []string{"1 crash in tool " + hostile, "1 hang", "1 protocol violation", "1 leak (stack trace)"},
		Tools:    tools,
		Lint: []report.Lint{
			{Code: "missing_description", Severity: "warning", Tool: "noop", Pointer: "/description", Message: "tool has no description", Hint: "describe what the tool does"},
			{Code: "huge_enum", Severity: "info", Tool: hostile, Pointer: "/inputSchema/properties/q", Message: "enum has 5000 values | @everyone", Hint: "replace a huge enum by a pattern or a lookup tool"},
		},
	}
	rep.Summary = report.Summarize(tools)
	// A hostile banner on stdout before initialize: a finding of no tool.
	rep.ServerViolations = []report.ServerViolation{{When: "before initialize", Excerpt: "non jsonrpc line on stdout: \"" + hostile + "\""}}
	rep.ServerViolationCount = 3
	rep.Findings = append(findingsFor(rep), report.Finding{
		ID: "server/stdout#protocol_violation", Severity: report.SeverityCritical, Code: "protocol_violation",
		Message:    "the server broke the protocol outside any tool call (3 violations): before initialize: non jsonrpc line on stdout: " + hostile + "; and 2 more",
		Reproducer: report.Reproducer{Shell: "{ printf '%s\\n' '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}'; sleep 2; } | node server.js | head -n 20 | cut -c1-300"},
	})
	return rep
}

// findingsFor builds findings the way the engine does (one per failing
// verdict and per flag), with reproducers.
func findingsFor(rep *report.Report) []report.Finding {
	sev := map[string]string{
		"crash": "critical", "hang": "critical", "protocol_violation": "critical", "leak": "critical",
		"accepted": "error", "output_violation": "error",
		"empty_success": "warning", "errored": "warning", "stderr_panic": "warning", "slow": "warning", "bloated": "warning",
		"generator_gap": "info",
	}
	var out []report.Finding
	for _, t := range rep.Tools {
		for _, c := range t.Cases {
			codes := append([]string{string(c.Verdict)}, c.Flags...)
			for _, code := range codes {
				s, ok := sev[code]
				if !ok {
					continue
				}
				params, _ := json.Marshal(map[string]any{"name": t.Name, "arguments": c.Arguments})
				call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":` + string(params) + `}`
				msg := code + " in " + t.Name
				if c.Detail != "" {
					msg += ": " + c.Detail
				}
				repro := report.Reproducer{JSONRPC: call, Shell: "{ printf '%s\\n' '" + call + "'; sleep 2; } | node server.js"}
				if c.ArgumentsDigest != nil {
					repro = report.Reproducer{Shell: "mcp-fuzz replay " + report.ReportPlaceholder + " '" + c.ID + "' -- node server.js"}
				}
				out = append(out, report.Finding{
					ID: c.ID + "#" + code, Severity: report.Severity(s), Code: code, Tool: t.Name, CaseID: c.ID, Message: msg, Reproducer: repro,
				})
			}
		}
	}
	return out
}

// ungradedReport is a report where nothing could be tested.
func ungradedReport() *report.Report {
	tools := []report.Tool{
		{Name: "only_tool", Tested: false, SkipReason: "no tool matched --tools=@everyone|x"},
	}
	return &report.Report{
		Version:   "0.3.0",
		Seed:      7,
		StartedAt: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC),
		Target:    report.Target{Transport: "streamable-http", URL: "http://localhost:3000/mcp"},
		Server:    report.Server{Name: "\x1b]0;pwned\x07quiet-server", Version: "0.0.1"},
		Graded:    false,
		Dimensions: map[string]report.Dimension{
			"robustness": {Reason: "not measured: nothing tested"}, "validation": {Reason: "not measured: nothing tested"},
			"errorQuality": {Reason: "not measured: nothing tested"}, "liveness": {Reason: "not measured: nothing tested"},
			"performance": {Reason: "not measured: nothing tested"}, "schema": {Reason: "not measured: nothing tested"},
		},
		Caps:       []report.Cap{{Grade: "not graded", Reason: "nothing tested"}},
		Summary:    report.Summarize(tools),
		Tools:      tools,
		Findings:   []report.Finding{},
		Lint:       []report.Lint{},
		EndedEarly: "the server closed the connection during tools/list",
	}
}

var reports = []struct {
	name string
	rep  func() *report.Report
}{
	{"graded", gradedReport},
	{"ungraded", ungradedReport},
	{"eras", erasReport},
}
