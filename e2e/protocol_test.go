//go:build e2e

package e2e

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// The protocol checks against real reference servers: the
// resources and prompts checks, the probes of --protocol and the
// concurrency checks. What each server answers is recorded in NOTES.md
// ("Protocol checks").

// wantCheck is what one check of a report must say.
type wantCheck struct {
	id     string
	status string // report.CheckPass, CheckFail or CheckSkip
	code   string // the finding code of a failed check
	// errorCode is the JSON-RPC error code the server answered (0: none
	// recorded).
	errorCode int64
	// detail is a piece of the check's detail text ("": not checked).
	detail string
}

// protocolSeed is the seed of both audits a test compares.
const protocolSeed = 12

// everythingChecks are the checks an audit of server-everything 2026.8.31
// reports, on both transports; the probes only with --protocol. The
// deviations are the ones NOTES.md records: -32603 for a malformed
// template parameter and for a wrong-typed prompt argument.
func everythingChecks(transport string) []wantCheck {
	checks := []wantCheck{
		{id: "resources/read-missing", status: report.CheckPass, errorCode: -32602, detail: "not found"},
		{id: "resources/template-1", status: report.CheckFail, code: report.CodeProtocolDeviation, errorCode: -32603, detail: "Unknown resource: demo://resource/dynamic/text/"},
		{id: "resources/template-2", status: report.CheckFail, code: report.CodeProtocolDeviation, errorCode: -32603, detail: "Unknown resource: demo://resource/dynamic/blob/"},
		{id: "prompts/get-unknown", status: report.CheckPass, errorCode: -32602, detail: "not found"},
		{id: "prompts/get-missing-argument", status: report.CheckPass, errorCode: -32602, detail: "args-prompt"},
		{id: "prompts/get-wrong-type", status: report.CheckFail, code: report.CodeProtocolDeviation, errorCode: -32603, detail: "invalid_type"},
		{id: "probe/unknown-method", status: report.CheckPass, errorCode: -32601},
		// An unknown tool is a result with isError, not a JSON-RPC error.
		{id: "probe/unknown-tool", status: report.CheckPass, detail: `"isError":true`},
		// tools/list ignores a garbage cursor and serves the whole list.
		{id: "probe/garbage-cursor", status: report.CheckFail, code: report.CodeBadRequestServed, detail: "served as if valid"},
		{id: "probe/no-id", status: report.CheckPass},
		{id: "probe/ping", status: report.CheckPass, detail: "answered: {}"},
	}
	if transport == "stdio" {
		// A second initialize gets a full result again.
		checks = append(checks, wantCheck{id: "probe/second-initialize", status: report.CheckPass, detail: "answered: "})
	} else {
		// HTTP 400 with -32600 (id null) in the body: a refusal, which passes.
		checks = append(checks, wantCheck{id: "probe/second-initialize", status: report.CheckPass, errorCode: -32600, detail: "Server already initialized (HTTP 400)"})
	}
	if transport == "stdio" {
		// Over stdio the TypeScript SDK drops a request whose params are
		// not an object without a word: a deviation, not a hang.
		checks = append(checks, wantCheck{id: "probe/params-not-object", status: report.CheckFail, code: report.CodeProtocolDeviation, detail: "no answer within the check's timeout (the server is otherwise alive)"})
	} else {
		// Over HTTP it answers HTTP 400 with -32700 (id null) in the body.
		checks = append(checks, wantCheck{id: "probe/params-not-object", status: report.CheckFail, code: report.CodeProtocolDeviation, errorCode: -32700, detail: "refused with -32700: Parse error: Invalid JSON-RPC message (HTTP 400)"})
	}
	return checks
}

// assertChecks checks rep.Checks against want: every wanted check is there
// once, as described. A check not in want is logged, and must not fail
// with a crash, hang or protocol violation either.
func assertChecks(t *testing.T, rep *report.Report, want []wantCheck) {
	t.Helper()
	byID := map[string][]report.Check{}
	for _, c := range rep.Checks {
		byID[c.ID] = append(byID[c.ID], c)
		if c.Code == string(report.Crash) || c.Code == string(report.Hang) || c.Code == string(report.ProtocolViolation) || c.Crash != nil {
			t.Errorf("check %s: %s %s (%s), want no crash, hang or protocol violation on a clean reference server", c.ID, c.Status, c.Code, c.Detail)
		}
	}
	wanted := map[string]bool{}
	for _, w := range want {
		wanted[w.id] = true
		cs := byID[w.id]
		if len(cs) != 1 {
			t.Errorf("check %s: reported %d times, want once", w.id, len(cs))
			continue
		}
		c := cs[0]
		if c.Status != w.status || c.Code != w.code {
			t.Errorf("check %s: status %q code %q, want %q %q (detail: %s)", w.id, c.Status, c.Code, w.status, w.code, c.Detail)
		}
		switch {
		case w.errorCode == 0 && c.ErrorCode != nil:
			t.Errorf("check %s: error code %d, want none", w.id, *c.ErrorCode)
		case w.errorCode != 0 && (c.ErrorCode == nil || *c.ErrorCode != w.errorCode):
			t.Errorf("check %s: error code %v, want %d (detail: %s)", w.id, deref(c.ErrorCode), w.errorCode, c.Detail)
		}
		if !strings.Contains(c.Detail, w.detail) {
			t.Errorf("check %s: detail %q, want it to contain %q", w.id, c.Detail, w.detail)
		}
	}
	for _, c := range rep.Checks {
		if !wanted[c.ID] {
			t.Logf("check %s (%s) not asserted: %s %s %s", c.ID, c.Group, c.Status, c.Code, c.Detail)
		}
	}
}

func deref(p *int64) any {
	if p == nil {
		return "none"
	}
	return *p
}

// assertCheckFindings checks that every failed check of rep is a finding
// protocol/ID#CODE of its code's severity, that those of want are warnings,
// and that rep has no critical or error finding at all.
func assertCheckFindings(t *testing.T, rep *report.Report, want []wantCheck) {
	t.Helper()
	findings := map[string]report.Finding{}
	for _, f := range rep.Findings {
		findings[f.ID] = f
		if f.Severity == report.SeverityCritical || f.Severity == report.SeverityError {
			t.Errorf("finding %s: severity %s (%s), want no critical or error finding on a clean reference server", f.ID, f.Severity, f.Message)
		}
	}
	for _, w := range want {
		id := "protocol/" + w.id + "#" + w.code
		f, ok := findings[id]
		if w.status != report.CheckFail {
			if ok {
				t.Errorf("finding %s for a check that passed", id)
			}
			continue
		}
		if !ok {
			t.Errorf("no finding %s for the failed check %s", id, w.id)
			continue
		}
		if f.Code != w.code || f.Severity != report.SeverityWarning {
			t.Errorf("finding %s: code %s severity %s, want %s warning", id, f.Code, f.Severity, w.code)
		}
	}
	if len(rep.Critical) != 0 {
		t.Errorf("critical callout raised: %q", rep.Critical)
	}
}

// assertSameScore checks that two audits of one server are graded alike.
func assertSameScore(t *testing.T, with, without *report.Report, wantGrade string) {
	t.Helper()
	if !with.Graded || !without.Graded || with.Score == nil || without.Score == nil || with.Grade == nil || without.Grade == nil {
		t.Fatalf("not graded: with --protocol graded=%v score=%v grade=%v, without graded=%v score=%v grade=%v",
			with.Graded, with.Score, with.Grade, without.Graded, without.Score, without.Grade)
	}
	t.Logf("score with --protocol %d %s, without %d %s", *with.Score, *with.Grade, *without.Score, *without.Grade)
	if *with.Score != *without.Score || *with.Grade != *without.Grade {
		t.Errorf("score with --protocol = %d (%s), without = %d (%s): the protocol checks' warnings must not change the grade",
			*with.Score, *with.Grade, *without.Score, *without.Grade)
	}
	if *with.Grade != wantGrade {
		t.Errorf("grade = %s, want %s", *with.Grade, wantGrade)
	}
	if with.Summary != without.Summary {
		t.Errorf("summary with --protocol %+v\nwithout %+v", with.Summary, without.Summary)
	}
}

// everythingProtocol audits server-everything twice with one seed, with and
// without --protocol, and checks both reports.
func everythingProtocol(t *testing.T, transport string, cfg func() engine.Config) {
	base := cfg()
	base.Seed = protocolSeed
	base.SkipTools = []string{"trigger-long-running-operation"} // about 10 s per valid call
	without := audit(t, base)
	withCfg := base
	withCfg.Protocol = true
	with := audit(t, withCfg)
	for _, rep := range []*report.Report{with, without} {
		everythingFacts(t, rep)
		if rep.Target.Transport != transport {
			t.Errorf("transport = %s, want %s", rep.Target.Transport, transport)
		}
	}

	want := everythingChecks(transport)
	assertChecks(t, with, want)
	assertCheckFindings(t, with, want)

	// Without --protocol the resources and prompts checks still run; the
	// probes do not.
	var resourcesPrompts []wantCheck
	for _, w := range want {
		if !strings.HasPrefix(w.id, "probe/") {
			resourcesPrompts = append(resourcesPrompts, w)
		}
	}
	assertChecks(t, without, resourcesPrompts)
	assertCheckFindings(t, without, resourcesPrompts)
	for _, c := range without.Checks {
		if strings.HasPrefix(c.ID, "probe/") {
			t.Errorf("check %s ran without --protocol", c.ID)
		}
	}

	// The warnings the checks add do not cost points: same score, grade
	// and case summary with the same seed.
	assertSameScore(t, with, without, "A")
}

func TestProtocolEverythingStdio(t *testing.T) {
	everythingProtocol(t, "stdio", func() engine.Config {
		return engine.Config{Command: everythingStdio(t)}
	})
}

func TestProtocolEverythingStreamableHTTP(t *testing.T) {
	url := everythingHTTP(t)
	everythingProtocol(t, "streamable-http", func() engine.Config {
		return engine.Config{URL: url}
	})
}

// server-memory with every tool called (its graph lives in a temp file),
// three sessions at once and the probes: the writing tools that are not
// destructive and the read tools pass the concurrency checks, the three
// delete tools (destructiveHint true) are not called concurrently, and the
// one-session checks pass.
func TestConcurrencyMemory(t *testing.T) {
	srv := memoryStdio(t)
	rep := audit(t, engine.Config{
		Command:            srv.Args,
		Env:                srv.Env,
		Seed:               protocolSeed,
		IncludeDestructive: true,
		Concurrency:        3,
		Protocol:           true,
	})
	if got := testedTools(rep); len(got) != len(memoryTools) || rep.Summary.ToolsSkipped != 0 {
		t.Errorf("tested tools = %q (%d skipped), want all %d", got, rep.Summary.ToolsSkipped, len(memoryTools))
	}
	for _, tool := range memoryTools {
		if v := verdictOf(t, rep, tool, "valid"); v != report.OK {
			t.Errorf("%s valid verdict = %s, want ok", tool, v)
		}
	}
	// The tools wrote the graph to MEMORY_FILE_PATH, not into node_modules.
	if _, err := os.Stat(strings.TrimPrefix(srv.Env[0], "MEMORY_FILE_PATH=")); err != nil {
		t.Errorf("the writing tools left no graph file: %v", err)
	}

	want := []wantCheck{
		{id: "resources/read-missing", status: report.CheckPass, errorCode: -32602, detail: "not found"},
		{id: "probe/unknown-method", status: report.CheckPass, errorCode: -32601},
		{id: "probe/unknown-tool", status: report.CheckPass, detail: `"isError":true`},
		{id: "probe/garbage-cursor", status: report.CheckFail, code: report.CodeBadRequestServed, detail: "served as if valid"},
		{id: "probe/params-not-object", status: report.CheckFail, code: report.CodeProtocolDeviation, detail: "no answer within the check's timeout (the server is otherwise alive)"},
		{id: "probe/no-id", status: report.CheckPass},
		{id: "probe/ping", status: report.CheckPass, detail: "answered: {}"},
		{id: "probe/second-initialize", status: report.CheckPass},
		{id: "concurrency/same-session", status: report.CheckPass, detail: "3 requests in flight together"},
		{id: "concurrency/cancel", status: report.CheckPass, detail: "cancelled while in flight; the next request was answered"},
	}
	for _, tool := range memoryTools {
		w := wantCheck{id: "concurrency/" + tool, status: report.CheckPass, detail: "all 3 calls made at once succeeded"}
		if strings.HasPrefix(tool, "delete_") {
			// destructiveHint true: not safe to call again.
			w = wantCheck{id: "concurrency/" + tool, status: report.CheckSkip, detail: "annotated destructiveHint true: calling it 3 more times at once may not be harmless"}
		}
		want = append(want, w)
	}
	assertChecks(t, rep, want)
	assertCheckFindings(t, rep, want)
	for _, c := range rep.Checks {
		if c.Group == "concurrency" && strings.HasPrefix(c.ID, "concurrency/") && c.ID != "concurrency/same-session" && c.ID != "concurrency/cancel" && c.Tool != strings.TrimPrefix(c.ID, "concurrency/") {
			t.Errorf("check %s names tool %q", c.ID, c.Tool)
		}
	}
	// server-memory has no prompts capability: no prompts check.
	if i := slices.IndexFunc(rep.Checks, func(c report.Check) bool { return strings.HasPrefix(c.ID, "prompts/") }); i >= 0 {
		t.Errorf("check %s ran on a server without prompts", rep.Checks[i].ID)
	}
	if rep.Lifecycle != nil {
		t.Errorf("lifecycle = %+v without Sequential", rep.Lifecycle)
	}
	if !rep.Graded || rep.Grade == nil || *rep.Grade != "A" {
		t.Errorf("graded %v, score %v, grade %v, want A", rep.Graded, rep.Score, rep.Grade)
	} else {
		t.Logf("score %d %s", *rep.Score, *rep.Grade)
	}
}

// The memory server's entities, paired by the config's lifecycle mapping
// (no tool name pairs open_nodes with create_entities): created, read,
// deleted and no longer found. Its relations and observations stay
// unpaired, skipped with the reason.
func TestLifecycleMemory(t *testing.T) {
	srv := memoryStdio(t)
	rep := audit(t, engine.Config{
		Command:            srv.Args,
		Env:                srv.Env,
		IncludeDestructive: true,
		Sequential:         true,
		Lifecycle:          []engine.LifecycleGroup{{Create: "create_entities", Read: "open_nodes", Delete: "delete_entities"}},
	})
	if rep.Lifecycle == nil || rep.Lifecycle.Groups != 1 || !strings.HasPrefix(rep.Lifecycle.Summary, "1 group detected: entity (create_entities, open_nodes, delete_entities; mapped by the config)") {
		t.Fatalf("lifecycle = %+v", rep.Lifecycle)
	}
	checks := map[string]report.Check{}
	for _, c := range rep.Checks {
		if c.Group == report.CheckGroupLifecycle {
			checks[c.ID] = c
		}
	}
	e := checks["lifecycle/entity"]
	if e.Status != report.CheckPass || len(e.Calls) != 4 || !strings.Contains(e.Detail, "create_entities made id") || !strings.Contains(e.Detail, "open_nodes after the delete answered success without naming") {
		t.Errorf("lifecycle/entity = %s: %s (%d calls)", e.Status, e.Detail, len(e.Calls))
	}
	for _, id := range []string{"lifecycle/relation", "lifecycle/observation"} {
		if c, ok := checks[id]; !ok || c.Status != report.CheckSkip {
			t.Errorf("%s = %+v (found %v), want skipped", id, c, ok)
		}
	}
	t.Logf("lifecycle/entity: %s", e.Detail)
}
