//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// audit runs the engine against a reference server and checks the facts that
// hold for every clean TypeScript-SDK server (NOTES.md): no crash, hang or
// protocol violation; bad input is handled (isError); non-object arguments
// are refused with -32603, which is a rejection with a conformance note.
func audit(t *testing.T, cfg engine.Config) *report.Report {
	t.Helper()
	cfg.Version = "e2e"
	if cfg.StartupTimeout == 0 {
		cfg.StartupTimeout = 60 * time.Second
	}
	// At most 5 minutes, and ended in time for the test to report when
	// go test -timeout comes sooner.
	deadline := time.Now().Add(5 * time.Minute)
	if dl, ok := t.Deadline(); ok && dl.Add(-30*time.Second).Before(deadline) {
		deadline = dl.Add(-30 * time.Second)
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	rep, err := engine.Run(ctx, cfg)
	if err != nil {
		t.Fatalf("engine.Run: %v", err)
	}
	s := rep.Summary
	t.Logf("%s %s over %s: %d tools tested, %d skipped, %d cases: ok %d, handled %d, rejected %d, accepted %d, tolerated %d, errored %d, empty %d, output_violation %d, gap %d, crash %d, hang %d, protocol_violation %d, leak %d",
		rep.Server.Name, rep.Server.Version, rep.Target.Transport, s.ToolsTested, s.ToolsSkipped, s.Cases,
		s.OK, s.Handled, s.Rejected, s.Accepted, s.Tolerated, s.Errored, s.EmptySuccess, s.OutputViolation, s.GeneratorGap,
		s.Crash, s.Hang, s.ProtocolViolation, s.Leak)
	for _, tl := range rep.Tools {
		for _, c := range tl.Cases {
			if c.Verdict.Failure() {
				c.Arguments = nil // may be 1 MiB
				b, _ := json.Marshal(c)
				t.Errorf("false %s on a clean reference server: %.2000s", c.Verdict, b)
			}
			if c.Kind == "structural" && !strings.HasPrefix(string(c.Arguments), "{") && c.Verdict != report.Rejected {
				t.Errorf("%s: verdict %s, want rejected (the TypeScript SDK answers -32603)", c.ID, c.Verdict)
			}
		}
	}
	if s.ToolsTested == 0 || (s.Cases > s.ToolsTested && s.Handled+s.Rejected == 0) {
		t.Errorf("no bad input handled or rejected: %+v", s)
	}
	if rep.EndedEarly != "" {
		t.Errorf("run ended early: %s", rep.EndedEarly)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if err := report.ValidateJSON(b); err != nil {
		t.Errorf("the report does not validate against docs/report.schema.json: %v", err)
	}
	return rep
}

func verdictOf(t *testing.T, rep *report.Report, tool, kind string) report.Verdict {
	t.Helper()
	for _, tl := range rep.Tools {
		if tl.Name != tool {
			continue
		}
		for _, c := range tl.Cases {
			if c.Kind == kind {
				return c.Verdict
			}
		}
	}
	t.Fatalf("no %s case for tool %s", kind, tool)
	return ""
}

func testedTools(rep *report.Report) []string {
	var out []string
	for _, tl := range rep.Tools {
		if tl.Tested {
			out = append(out, tl.Name)
		}
	}
	return out
}

// everythingFacts checks what NOTES.md records about server-everything.
func everythingFacts(t *testing.T, rep *report.Report) {
	t.Helper()
	got := strings.Join(testedTools(rep), ",")
	want := "echo,get-annotated-message,get-env,get-resource-links,get-resource-reference,get-structured-content,get-sum,get-tiny-image"
	if got != want {
		t.Errorf("tested tools = %s, want the read-only ones %s", got, want)
	}
	for _, tl := range rep.Tools {
		if tl.Name == "simulate-research-query" && !strings.Contains(tl.SkipReason, "readOnlyHint") {
			// Called as a task when selected (TestTaskOnlyToolAsATask).
			t.Errorf("task-only tool (not read-only) skip reason = %q", tl.SkipReason)
		}
		if tl.Name == "gzip-file-as-resource" && !strings.Contains(tl.SkipReason, "readOnlyHint") {
			t.Errorf("gzip-file-as-resource (not read-only) skip reason = %q", tl.SkipReason)
		}
	}
	// get-structured-content declares an outputSchema; its valid answer validates.
	if v := verdictOf(t, rep, "get-structured-content", "valid"); v != report.OK {
		t.Errorf("get-structured-content valid verdict = %s, want ok", v)
	}
	for _, tool := range []string{"echo", "get-sum", "get-tiny-image"} {
		if v := verdictOf(t, rep, tool, "valid"); v != report.OK {
			t.Errorf("%s valid verdict = %s, want ok", tool, v)
		}
	}
	if rep.Server.ProtocolVersion != "2025-11-25" || rep.Server.Name != "mcp-servers/everything" {
		t.Errorf("server = %+v", rep.Server)
	}
}

func TestFuzzEverythingStdio(t *testing.T) {
	rep := audit(t, engine.Config{
		Command:   everythingStdio(t),
		SkipTools: []string{"trigger-long-running-operation"}, // its own test below
	})
	everythingFacts(t, rep)
	if rep.Target.Transport != "stdio" {
		t.Errorf("transport = %s", rep.Target.Transport)
	}
}

func TestFuzzEverythingStreamableHTTP(t *testing.T) {
	url := everythingHTTP(t)
	rep := audit(t, engine.Config{
		URL:       url,
		SkipTools: []string{"trigger-long-running-operation"},
	})
	everythingFacts(t, rep)
	if rep.Target.Transport != "streamable-http" {
		t.Errorf("transport = %s, want streamable-http", rep.Target.Transport)
	}
}

// The task-only simulate-research-query (execution.taskSupport
// "required") is called as a task when selected: its valid call completes
// through tasks/get and tasks/result, bad input is refused, and nothing is
// a crash or a hang.
func TestTaskOnlyToolAsATask(t *testing.T) {
	rep := audit(t, engine.Config{
		Command: everythingStdio(t),
		Tools:   []string{"simulate-research-query"},
		Timeout: 20 * time.Second,
	})
	if v := verdictOf(t, rep, "simulate-research-query", "valid"); v != report.OK {
		t.Errorf("simulate-research-query valid verdict = %s, want ok", v)
	}
	for _, tl := range rep.Tools {
		for _, c := range tl.Cases {
			if c.Verdict.Failure() {
				t.Errorf("%s: %s (%s)", c.ID, c.Verdict, c.Detail)
			}
		}
	}
}

// A tool that takes 10 s with its defaults answers within the 15 s timeout:
// that is slow, not a hang.
func TestLongRunningToolIsNotAHang(t *testing.T) {
	rep := audit(t, engine.Config{
		Command: everythingStdio(t),
		Tools:   []string{"trigger-long-running-operation"},
		Cases:   1,
	})
	var valid report.Case
	for _, tl := range rep.Tools {
		if tl.Name == "trigger-long-running-operation" && len(tl.Cases) == 1 {
			valid = tl.Cases[0]
		}
	}
	if valid.Verdict != report.OK || valid.DurationMs < 5000 {
		t.Fatalf("long-running valid call: verdict %s after %.0f ms, want ok after about 10 s", valid.Verdict, valid.DurationMs)
	}
}

func TestFuzzMemory(t *testing.T) {
	srv := memoryStdio(t)
	rep := audit(t, engine.Config{Command: srv.Args, Env: srv.Env})
	if got := strings.Join(testedTools(rep), ","); got != "read_graph,search_nodes,open_nodes" {
		t.Errorf("tested tools = %s", got)
	}
	// read_graph declares an outputSchema and needs no arguments.
	if v := verdictOf(t, rep, "read_graph", "valid"); v != report.OK {
		t.Errorf("read_graph valid verdict = %s, want ok", v)
	}
	if rep.Summary.ToolsSkipped != 6 {
		t.Errorf("skipped = %d, want the 6 writing tools", rep.Summary.ToolsSkipped)
	}
}

func TestFuzzFilesystem(t *testing.T) {
	srv := filesystemStdio(t)
	rep := audit(t, engine.Config{Command: srv.Args, Env: srv.Env})
	if n := len(testedTools(rep)); n != 10 {
		t.Errorf("tested %d tools, want the 10 read-only ones: %v", n, testedTools(rep))
	}
	if v := verdictOf(t, rep, "list_allowed_directories", "valid"); v != report.OK {
		t.Errorf("list_allowed_directories valid verdict = %s, want ok", v)
	}
	// Synthetic paths ("README.md") do not exist under the allowed
	// directory: every other valid call must be learned from the server
	// (list_allowed_directories, then list_directory for a file) and work.
	for _, tl := range rep.Tools {
		if !tl.Tested || tl.Name == "list_allowed_directories" || tl.Name == "read_multiple_files" {
			continue
		}
		c := tl.Cases[0]
		if c.Kind != report.KindValid || c.Verdict != report.OK || c.LearnedFrom == "" || !strings.Contains(string(c.Arguments), srv.Root) {
			t.Errorf("%s valid case: %s, learned from %q, arguments %s (%s); want ok with a path learned under %s",
				tl.Name, c.Verdict, c.LearnedFrom, c.Arguments, c.Detail, srv.Root)
		}
	}
	if d := rep.Dimensions["liveness"]; d.Score == nil || *d.Score != 100 {
		t.Errorf("liveness %+v, want 100: every valid call ok", d)
	}
}

func TestFuzzSequentialThinking(t *testing.T) {
	srv := sequentialThinkingStdio(t)
	rep := audit(t, engine.Config{Command: srv.Args, Env: srv.Env})
	if v := verdictOf(t, rep, "sequentialthinking", "valid"); v != report.OK {
		t.Errorf("sequentialthinking valid verdict = %s, want ok", v)
	}
}
