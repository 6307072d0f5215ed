package serve

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// connect serves a new mcp-fuzz server in-process and returns a client
// session to it.
func connect(t *testing.T) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	st, ct := mcp.NewInMemoryTransports()
	ss, err := NewServer(Options{Version: "test", LookupEnv: os.LookupEnv}).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Wait()
		cancel()
	})
	return cs
}

// call calls tool with args and decodes its structured output into out;
// it fails the test on a tool error.
func call(t *testing.T, cs *mcp.ClientSession, tool string, args any, out any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError {
		t.Fatalf("%s: tool error: %s", tool, text(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: decoding structured content: %v\n%s", tool, err, b)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// demo is the command of the demo server: this module's mcp-fuzz binary.
func demo(t *testing.T) []string {
	return []string{fixture.Program(t, "./cmd/mcp-fuzz", "mcp-fuzz"), "demo-server"}
}

func TestToolsAndAnnotations(t *testing.T) {
	t.Parallel()
	cs := connect(t)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	type hints struct{ readOnly, destructive, openWorld bool }
	want := map[string]hints{
		"list_tools":        {false, false, true},
		"audit":             {false, false, true},
		"audit_destructive": {false, true, true},
		"replay":            {false, true, true},
		"render_report":     {true, false, false},
	}
	if len(res.Tools) != len(want) {
		t.Errorf("got %d tools, want %d", len(res.Tools), len(want))
	}
	for _, tool := range res.Tools {
		w, ok := want[tool.Name]
		if !ok {
			t.Errorf("unexpected tool %q", tool.Name)
			continue
		}
		a := tool.Annotations
		if a == nil || a.DestructiveHint == nil && !a.ReadOnlyHint || a.OpenWorldHint == nil {
			t.Errorf("%s: incomplete annotations %+v", tool.Name, a)
			continue
		}
		got := hints{a.ReadOnlyHint, a.DestructiveHint != nil && *a.DestructiveHint, *a.OpenWorldHint}
		if got != w {
			t.Errorf("%s: hints %+v, want %+v", tool.Name, got, w)
		}
		if tool.OutputSchema == nil || len(tool.Description) < 100 {
			t.Errorf("%s: no output schema or a short description", tool.Name)
		}
	}
	if !strings.Contains(cs.InitializeResult().Instructions, "never use it against a server that can run shell commands") {
		t.Error("instructions do not state the safety rule")
	}
}

// TestAuditMatchesEngine is the must-show: an audit through the tool
// scores the demo server as a direct engine.Run of the same config does.
// The report it writes is then replayed and rendered. The scores compared
// count the calls' durations: it runs alone, not in parallel.
func TestAuditMatchesEngine(t *testing.T) {
	cmd := demo(t)
	cs := connect(t)
	path := filepath.Join(t.TempDir(), "demo.json")
	var out AuditOutput
	call(t, cs, "audit", map[string]any{"command": cmd, "timeout_seconds": 2, "seed": 7, "output_path": path}, &out)

	direct, err := engine.Run(context.Background(), engine.Config{Command: cmd, Seed: 7, Cases: 40, Timeout: 2 * time.Second, LookupEnv: os.LookupEnv})
	if err != nil {
		t.Fatal(err)
	}
	if out.Score == nil || direct.Score == nil || *out.Score != *direct.Score || *out.Grade != *direct.Grade {
		t.Fatalf("audit tool: score %v grade %v; engine.Run: score %v grade %v", deref(out.Score), derefS(out.Grade), deref(direct.Score), derefS(direct.Grade))
	}
	t.Logf("must-show: audit tool score %d grade %s; direct engine.Run score %d grade %s (seed 7, demo server)", *out.Score, *out.Grade, *direct.Score, *direct.Grade)
	if out.Summary != direct.Summary {
		t.Errorf("summary differs:\n tool   %+v\n direct %+v", out.Summary, direct.Summary)
	}
	for name, d := range direct.Dimensions {
		if got := out.Dimensions[name]; deref(got.Score) != deref(d.Score) {
			t.Errorf("dimension %s: tool %v, direct %v", name, deref(got.Score), deref(d.Score))
		}
	}
	if out.FindingsTotal != len(direct.Findings) || len(out.Findings) == 0 || len(out.Findings) > maxFindings {
		t.Errorf("findings: %d shown of %d; direct has %d", len(out.Findings), out.FindingsTotal, len(direct.Findings))
	}
	if out.Findings[0].Severity != string(report.SeverityCritical) {
		t.Errorf("first finding %+v is not the most severe", out.Findings[0])
	}
	if out.ReportPath != path || out.ReportFormat != "markdown" || !strings.Contains(out.Report, "mcp-fuzz") {
		t.Errorf("report: path %q format %q, report starts %.80q", out.ReportPath, out.ReportFormat, out.Report)
	}
	for _, tool := range out.Tools {
		if tool.Name == "delete_everything" && tool.Tested {
			t.Error("audit called delete_everything, which is not read-only")
		}
	}

	t.Run("replay", func(t *testing.T) {
		// echo_note accepts anything: a deterministic finding.
		var id string
		for _, f := range out.Findings {
			if f.CaseID != "" && f.Tool == "strict_search" {
				id = f.CaseID
				break
			}
		}
		if id == "" {
			id = out.Findings[0].CaseID
		}
		var r ReplayOutput
		call(t, cs, "replay", map[string]any{"report_path": path, "case_id": id, "timeout_seconds": 2}, &r)
		if r.CaseID != id || r.OldVerdict == "" || r.NewVerdict == "" {
			t.Fatalf("replay %s: %+v", id, r)
		}
		t.Logf("replay %s: was %s, now %s", id, r.OldVerdict, r.NewVerdict)
		if r.Changed {
			t.Errorf("replay of %s changed verdict: %+v", id, r)
		}
	})

	t.Run("render_report", func(t *testing.T) {
		for format, marker := range map[string]string{"markdown": "|", "terminal": "mcp-fuzz", "sarif": `"version": "2.1.0"`, "junit": "<testsuite"} {
			var r RenderOutput
			call(t, cs, "render_report", map[string]any{"report_path": path, "format": format, "max_chars": 5000}, &r)
			if !strings.Contains(r.Text, marker) || len([]rune(r.Text)) > 5000+100 || r.Chars == 0 {
				t.Errorf("%s: %d chars (truncated %v), no %q", format, r.Chars, r.Truncated, marker)
			}
			if *r.Score != *out.Score {
				t.Errorf("%s: score %d, want %d", format, *r.Score, *out.Score)
			}
		}
	})
}

func TestListTools(t *testing.T) {
	t.Parallel()
	cmd := demo(t)
	cs := connect(t)
	var out ListToolsOutput
	call(t, cs, "list_tools", map[string]any{"command": cmd}, &out)
	if out.Server.Name != "mcp-fuzz-demo" || out.ToolsTotal != 11 || len(out.Tools) != 11 {
		t.Fatalf("server %+v, %d tools", out.Server, out.ToolsTotal)
	}
	byName := map[string]ListedTool{}
	for _, lt := range out.Tools {
		byName[lt.Name] = lt
	}
	if lt := byName["lookup_user"]; !lt.WouldCall || lt.ReadOnly == nil || !*lt.ReadOnly {
		t.Errorf("lookup_user: %+v", lt)
	}
	// The skip reason names this server's tools and arguments, not the
	// command line's flags: its tools argument only narrows.
	if lt := byName["delete_everything"]; lt.WouldCall || lt.Why != "not annotated readOnlyHint: true (only audit_destructive calls it)" {
		t.Errorf("delete_everything: %+v", lt)
	}
	if out.WouldCall != 10 || out.SchemaScore == nil || out.LintTotal != len(out.Lint) {
		t.Errorf("would call %d, schema %v, lint %d/%d", out.WouldCall, deref(out.SchemaScore), len(out.Lint), out.LintTotal)
	}
	// audit's tools narrows: naming delete_everything does not call it.
	var narrowed ListToolsOutput
	call(t, cs, "list_tools", map[string]any{"command": cmd, "tools": []string{"delete_everything"}}, &narrowed)
	if narrowed.WouldCall != 0 {
		t.Errorf("audit would call %d tools with tools [delete_everything]", narrowed.WouldCall)
	}
	var skipped ListToolsOutput
	call(t, cs, "list_tools", map[string]any{"command": cmd, "tools": []string{"echo_*", "get_*"}, "skip_tools": []string{"get_stats"}}, &skipped)
	for _, lt := range skipped.Tools {
		want := map[string]string{
			"lookup_user": "not matched by tools echo_*,get_*",
			"get_stats":   "skipped by skip_tools get_stats",
		}[lt.Name]
		if want != "" && lt.Why != want {
			t.Errorf("%s with tools [echo_*, get_*], skip_tools [get_stats]: why %q, want %q", lt.Name, lt.Why, want)
		}
	}
	var destructive ListToolsOutput
	call(t, cs, "list_tools", map[string]any{"command": cmd, "tools": []string{"delete_everything"}, "destructive": true}, &destructive)
	if destructive.WouldCall != 1 {
		t.Errorf("audit_destructive would call %d tools with tools [delete_everything], want 1", destructive.WouldCall)
	}
}

func TestAuditNarrowsToReadOnly(t *testing.T) {
	t.Parallel()
	cmd := demo(t)
	cs := connect(t)
	var out AuditOutput
	call(t, cs, "audit", map[string]any{"command": cmd, "tools": []string{"delete_everything"}, "report_format": "none"}, &out)
	if out.Graded || out.Summary.ToolsTested != 0 {
		t.Errorf("audit with tools [delete_everything]: graded %v, %d tools tested", out.Graded, out.Summary.ToolsTested)
	}
	for _, tr := range out.Tools {
		if tr.Name == "delete_everything" && tr.SkipReason != "not annotated readOnlyHint: true (only audit_destructive calls it)" {
			t.Errorf("audit with tools [delete_everything]: skip reason %q", tr.SkipReason)
		}
	}
	call(t, cs, "audit_destructive", map[string]any{"command": cmd, "tools": []string{"delete_everything"}, "report_format": "none"}, &out)
	if out.Summary.ToolsTested != 1 {
		t.Errorf("audit_destructive with tools [delete_everything]: %d tools tested", out.Summary.ToolsTested)
	}
	// output_path never overwrites a file: audit stays additive.
	existing := filepath.Join(t.TempDir(), "keep.json")
	if err := os.WriteFile(existing, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "audit", Arguments: map[string]any{"command": cmd, "output_path": existing}})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(existing); !res.IsError || string(b) != "mine" || !strings.Contains(text(res), "exists") {
		t.Errorf("audit over an existing output_path: isError %v, %q, file now %q", res.IsError, text(res), b)
	}
}

// TestSecretsNotEchoed passes a token the target leaks: neither the
// structured result nor the text content carries it.
func TestSecretsNotEchoed(t *testing.T) {
	t.Parallel()
	const token = "sk-live-0123456789abcdefSECRET"
	cs := connect(t)
	for _, format := range []string{"markdown", "json"} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "audit", Arguments: map[string]any{
			"command": []string{fixture.Build(t, "leak-env")}, "env": []string{"API_TOKEN=" + token}, "report_format": format,
		}})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res)
		if strings.Contains(string(b), token) {
			t.Errorf("%s: the result carries the token", format)
		}
		if !strings.Contains(string(b), "leak") {
			t.Errorf("%s: the leak was not found: %.300s", format, b)
		}
	}
	// An error message (a target that cannot start) does not carry it
	// either.
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "audit", Arguments: map[string]any{
		"command": []string{"/nonexistent/" + token}, "env": []string{"API_TOKEN=" + token},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || strings.Contains(text(res), token) {
		t.Errorf("error result %v: %s", res.IsError, text(res))
	}
}

// TestCancel cancels an audit of the demo (whose slow_lookup hangs on bad
// input) and expects the call to end promptly, the server still serving.
func TestCancel(t *testing.T) {
	t.Parallel()
	cmd := demo(t)
	cs := connect(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	start := time.Now()
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "audit", Arguments: map[string]any{"command": cmd, "timeout_seconds": 30, "tools": []string{"slow_lookup"}}})
	if err == nil {
		t.Fatal("a cancelled audit returned no error")
	}
	// Not a speed target: uncancelled, two 30 s hangs would hold the call
	// for a minute; cancelled at 3 s it returns long before that.
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("cancelled call returned after %v: the audit went on", d)
	}
	if err := cs.Ping(context.Background(), nil); err != nil {
		t.Errorf("server gone after a cancelled audit: %v", err)
	}
}

// TestSelfAudit runs mcp-fuzz against its own serve subcommand.
func TestSelfAudit(t *testing.T) {
	t.Parallel()
	bin := fixture.Program(t, "./cmd/mcp-fuzz", "mcp-fuzz")
	rep, err := engine.Run(context.Background(), engine.Config{Command: []string{bin, "serve"}, Timeout: 5 * time.Second, LookupEnv: os.LookupEnv})
	if err != nil {
		t.Fatal(err)
	}
	var tested []string
	for _, tool := range rep.Tools {
		if tool.Tested {
			tested = append(tested, tool.Name)
		}
	}
	t.Logf("self-audit: graded %v score %v grade %v; tested %v; summary %+v", rep.Graded, deref(rep.Score), derefS(rep.Grade), tested, rep.Summary)
	for _, f := range rep.Findings {
		t.Logf("  finding %s %s %s", f.Severity, f.ID, f.Message)
	}
	for _, l := range rep.Lint {
		t.Logf("  lint %s %s %s %s", l.Severity, l.Code, l.Tool, l.Message)
	}
	if rep.Summary.Crash+rep.Summary.Hang+rep.Summary.ProtocolViolation+rep.Summary.Leak > 0 {
		t.Errorf("the serve subcommand has critical findings: %+v", rep.Summary)
	}
	if len(tested) != 1 || tested[0] != "render_report" {
		t.Errorf("tested %v, want only render_report (the one read-only tool)", tested)
	}
}

func deref(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}

func derefS(p *string) string {
	if p == nil {
		return "-"
	}
	return *p
}

// TestSubprocess drives the real binary's serve subcommand over stdio and
// audits the demo's debug_status, which writes a stray line to its own
// stdout: that line is the target's finding, never on serve's stdout.
func TestSubprocess(t *testing.T) {
	t.Parallel()
	cmd := demo(t)
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: exec.Command(cmd[0], "serve")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var out AuditOutput
	call(t, cs, "audit", map[string]any{"command": cmd, "tools": []string{"debug_status", "lookup_user"}, "timeout_seconds": 2}, &out)
	if out.Summary.ToolsTested != 2 || out.Summary.ProtocolViolation == 0 {
		t.Errorf("summary %+v: want 2 tools tested and debug_status's protocol violation", out.Summary)
	}
	if err := cs.Ping(ctx, nil); err != nil {
		t.Errorf("session broken after the audit: %v", err)
	}
}

// A cut text says how to get the rest where there is a way (render_report:
// max_chars; audit: output_path), and a tool description cut for
// list_tools ends in "…" alone, not in advice about report files.
func TestCutHints(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 50)
	if got, cutShort := cut(long, 10, ""); !cutShort || got != strings.Repeat("x", 10)+"…" {
		t.Errorf("cut without a hint = %q, %v", got, cutShort)
	}
	if got, _ := cut(long, 10, renderCutHint); !strings.HasSuffix(got, "\n… (cut: a larger max_chars gives more, up to 200000 characters)\n") {
		t.Errorf("render_report's cut = %q", got)
	}
	if got, cutShort := cut("short", 10, auditCutHint); cutShort || got != "short" {
		t.Errorf("cut of a short text = %q, %v", got, cutShort)
	}
}
