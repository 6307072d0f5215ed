package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// TestMain runs the tests four at a time (see [fixture.Waiting]): they wait
// on servers' timeouts and restarts far more than on a CPU.
func TestMain(m *testing.M) { fixture.Main(fixture.Waiting(4, reapCheck{m})) }

// reapCheck runs the package's tests, then fails the run when a child
// process of the test binary is still alive: the engine must reap every
// server it started. Tests that run in parallel (see [parallel]) are
// checked here, all together; the others each check their own runs (see
// [runFixtureErr]).
type reapCheck struct{ m fixture.Runner }

func (r reapCheck) Run() int {
	code := r.m.Run()
	if kids := waitNoChildren(3 * time.Second); len(kids) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: child processes left alive after the tests: %v\n", kids)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// parallelTests are the tests that called [parallel].
var parallelTests sync.Map

// parallel marks t as one that runs alongside others (t.Parallel): its
// runs cannot tell their children from the other tests', so TestMain
// checks that none is left instead (see [reapCheck]).
func parallel(t *testing.T) {
	parallelTests.Store(t, true)
	t.Cleanup(func() { parallelTests.Delete(t) })
	t.Parallel()
}

// isParallel reports whether t, or the test it is a subtest of, called
// [parallel].
func isParallel(t *testing.T) bool {
	name := t.Name()
	found := false
	parallelTests.Range(func(k, _ any) bool {
		p := k.(*testing.T).Name()
		if name == p || strings.HasPrefix(name, p+"/") {
			found = true
			return false
		}
		return true
	})
	return found
}

// runFixture audits one fixture server with short deadlines.
func runFixture(t *testing.T, name string, adjust func(*Config)) *report.Report {
	t.Helper()
	rep, err := runFixtureErr(t, name, adjust)
	if err != nil {
		t.Fatalf("Run(%s): %v", name, err)
	}
	return rep
}

// runFixtureErr is [runFixture] returning Run's error.
func runFixtureErr(t *testing.T, name string, adjust func(*Config)) (*report.Report, error) {
	t.Helper()
	cfg := Config{
		Command:        []string{fixture.Build(t, name)},
		Timeout:        2 * time.Second,
		StartupTimeout: 20 * time.Second,
		Version:        "test",
		// The security cases add calls every string property gets (the
		// command substitutions): tests of other behaviour count cases
		// without them; security_test.go turns them on.
		NoSecurity: true,
	}
	if adjust != nil {
		adjust(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep, err := Run(ctx, cfg)
	assertNoChildren(t)
	return rep, err
}

// cases returns every case of every tested tool.
func cases(rep *report.Report) []report.Case {
	var out []report.Case
	for _, t := range rep.Tools {
		out = append(out, t.Cases...)
	}
	return out
}

func withVerdict(rep *report.Report, v report.Verdict) []report.Case {
	var out []report.Case
	for _, c := range cases(rep) {
		if c.Verdict == v {
			out = append(out, c)
		}
	}
	return out
}

func validCase(t *testing.T, rep *report.Report, tool string) report.Case {
	t.Helper()
	for _, tl := range rep.Tools {
		if tl.Name != tool {
			continue
		}
		for _, c := range tl.Cases {
			if c.Kind == "valid" {
				return c
			}
		}
	}
	t.Fatalf("no valid case for tool %q", tool)
	return report.Case{}
}

func failures(rep *report.Report) []report.Case {
	var out []report.Case
	for _, c := range cases(rep) {
		if c.Verdict.Failure() {
			out = append(out, c)
		}
	}
	return out
}

func TestCleanServer(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "clean", nil)
	if f := failures(rep); len(f) > 0 {
		t.Fatalf("clean server got failures: %+v", f[0])
	}
	if n := len(withVerdict(rep, report.Accepted)); n > 0 {
		t.Errorf("clean server: %d accepted cases", n)
	}
	if rep.Summary.ToolsTested == 0 || rep.Summary.Handled == 0 {
		t.Errorf("clean server: summary %+v, want tested tools and handled bad inputs", rep.Summary)
	}
	for _, tl := range rep.Tools {
		if tl.Tested && !tl.Confirmed {
			t.Errorf("tool %s: valid call did not succeed: %+v", tl.Name, validCase(t, rep, tl.Name))
		}
	}
	if !rep.Graded {
		t.Error("clean server run not graded")
	}
	if rep.Server.Name == "" || rep.Server.ProtocolVersion == "" {
		t.Errorf("server info not recorded: %+v", rep.Server)
	}
}

func TestCrashByProcessExit(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "crash-exit", nil)
	crashes := withVerdict(rep, report.Crash)
	if len(crashes) == 0 {
		t.Fatal("no crash verdict")
	}
	c := crashes[0]
	if c.Crash == nil || c.Crash.How != report.CrashExit {
		t.Fatalf("crash info = %+v, want how=exit", c.Crash)
	}
	if !strings.Contains(c.Crash.ExitStatus, "exit code 2") {
		t.Errorf("exit status = %q, want exit code 2", c.Crash.ExitStatus)
	}
	if !strings.Contains(c.Crash.Stderr, "city") {
		t.Errorf("stderr tail not attached: %q", c.Crash.Stderr)
	}
	// The run reconnected: cases after the first crash still ran.
	if rep.Summary.NotRun > 0 || rep.EndedEarly != "" {
		t.Errorf("run did not recover from crashes: %+v, %q", rep.Summary, rep.EndedEarly)
	}
	if v := validCase(t, rep, "get_weather").Verdict; v != report.OK {
		t.Errorf("valid call verdict = %s, want ok", v)
	}
}

func TestCrashByInternalError(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "internal-error", nil)
	crashes := withVerdict(rep, report.Crash)
	if len(crashes) == 0 {
		t.Fatal("no crash verdict")
	}
	for _, c := range crashes {
		if c.Crash == nil || c.Crash.How != report.CrashInternalError || c.ErrorCode == nil || *c.ErrorCode != -32603 {
			t.Fatalf("case %s: crash %+v code %v, want internal_error -32603", c.ID, c.Crash, c.ErrorCode)
		}
	}
}

func TestHang(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "hang", func(c *Config) { c.Timeout = time.Second; c.Cases = 8 })
	hangs := withVerdict(rep, report.Hang)
	if len(hangs) == 0 {
		t.Fatal("no hang verdict")
	}
	if v := validCase(t, rep, "slow_lookup").Verdict; v != report.OK {
		t.Errorf("valid call verdict = %s, want ok", v)
	}
}

func TestStdoutGarbage(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "stdout-garbage", nil)
	pv := withVerdict(rep, report.ProtocolViolation)
	if len(pv) == 0 {
		t.Fatal("no protocol_violation verdict")
	}
	if !strings.Contains(pv[0].Detail, "stdout") {
		t.Errorf("detail = %q, want it to name stdout", pv[0].Detail)
	}
}

func TestRejectedWithInvalidParams(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "reject-32602", nil)
	if f := failures(rep); len(f) > 0 {
		t.Fatalf("failures on a -32602 server: %+v", f[0])
	}
	rej := withVerdict(rep, report.Rejected)
	if len(rej) == 0 || rej[0].ErrorCode == nil || *rej[0].ErrorCode != -32602 {
		t.Fatalf("want rejected cases with -32602, got %+v", rej)
	}
	if len(withVerdict(rep, report.Accepted)) > 0 {
		t.Error("strict server has accepted cases")
	}
}

func TestSilentAccept(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "silent-accept", nil)
	acc := withVerdict(rep, report.Accepted)
	if len(acc) == 0 {
		t.Fatal("no accepted verdict")
	}
	for _, c := range acc {
		if !c.Forbidden {
			t.Errorf("case %s accepted but not forbidden", c.ID)
		}
	}
	for _, c := range withVerdict(rep, report.Tolerated) {
		if c.Forbidden {
			t.Errorf("case %s tolerated although forbidden", c.ID)
		}
	}
}

func TestLeakOfStackTrace(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "leak-trace", nil)
	if rep.Summary.Leak == 0 {
		t.Fatal("no leak flag")
	}
}

func TestLeakOfEnvSecretIsFlaggedAndRedacted(t *testing.T) {
	parallel(t)
	const secret = "canary-7f3a9c1e2b"
	rep := runFixture(t, "leak-env", func(c *Config) { c.Env = []string{"API_TOKEN=" + secret} })
	if rep.Summary.Leak == 0 {
		t.Fatal("the --env value echoed back was not flagged as a leak")
	}
	b, _ := json.Marshal(rep)
	if strings.Contains(string(b), secret) {
		t.Fatal("the secret value appears in the report")
	}
	found := false
	for _, c := range cases(rep) {
		if c.HasFlag(report.FlagLeak) && strings.Contains(c.Detail, "API_TOKEN") {
			found = true
		}
	}
	if !found {
		t.Error("leak detail does not name the --env variable")
	}
}

func TestOutputViolation(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "output-violation", nil)
	if v := validCase(t, rep, "get_stats").Verdict; v != report.OutputViolation {
		t.Fatalf("valid verdict = %s, want output_violation", v)
	}
}

func TestBadEnvelope(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "bad-envelope", nil)
	byTool := map[string]int{}
	for _, tl := range rep.Tools {
		for _, c := range tl.Cases {
			if c.Verdict == report.ProtocolViolation {
				byTool[tl.Name]++
			}
		}
	}
	if len(byTool) < 2 {
		t.Fatalf("protocol violations by tool = %v, want both broken_reply and stray_reply", byTool)
	}
}

func TestMalformedToolsNeverPanic(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "malformed-tools", nil)
	codes := map[string]bool{}
	for _, l := range rep.Lint {
		codes[l.Code] = true
	}
	for _, want := range []string{"input_schema_not_object", "properties_not_object", "required_not_string_list", "schema_too_deep", "huge_enum", "tool_without_name"} {
		if !codes[want] {
			t.Errorf("lint code %q missing; have %v", want, codes)
		}
	}
	if f := failures(rep); len(f) > 0 {
		t.Errorf("malformed metadata led to failures: %+v", f[0])
	}
	if rep.Summary.ToolsTested == 0 {
		t.Error("no tool tested: generation did not degrade gracefully")
	}
}

func TestPagination(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "paginated", nil)
	if rep.Discovery.Tools != 7 || rep.Discovery.ToolPages != 3 {
		t.Fatalf("discovery = %+v, want 7 tools over 3 pages", rep.Discovery)
	}
	for mode, want := range map[string]string{"loop": "cursor loop", "empty-page": "empty", "duplicates": "more than once"} {
		t.Run(mode, func(t *testing.T) {
			rep := runFixture(t, "paginated", func(c *Config) { c.Command = append(c.Command, "-mode", mode); c.Cases = 2 })
			var all []string
			for _, l := range rep.Lint {
				all = append(all, l.Message)
			}
			if !strings.Contains(strings.Join(all, "\n"), want) {
				t.Errorf("lint %q does not mention %q", all, want)
			}
		})
	}
}

// TestTaskOnlyToolWithoutTasks: a server that declares a task-only tool
// but answers its task-augmented call with an error gets that error
// judged like a plain call's (errored, rejected), never a failure.
func TestTaskOnlyToolWithoutTasks(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "task-only", nil)
	for _, tl := range rep.Tools {
		if !tl.Tested {
			t.Errorf("tool %s not tested: %s", tl.Name, tl.SkipReason)
		}
		if tl.Name == "long_report" && (len(tl.Cases) == 0 || !tl.Cases[0].Task || tl.Cases[0].Verdict != report.Errored) {
			t.Errorf("long_report's valid case: %+v", tl.Cases)
		}
	}
	if len(failures(rep)) > 0 {
		t.Error("task-only server got failures")
	}
}

func TestSafetyGating(t *testing.T) {
	parallel(t)
	tested := func(rep *report.Report) map[string]string {
		out := map[string]string{}
		for _, tl := range rep.Tools {
			out[tl.Name] = tl.SkipReason
			if tl.Tested {
				out[tl.Name] = "tested"
			}
		}
		return out
	}
	got := tested(runFixture(t, "destructive", func(c *Config) { c.Cases = 2 }))
	if got["lookup_user"] != "tested" || !strings.Contains(got["delete_everything"], "readOnlyHint") {
		t.Errorf("default gating: %v", got)
	}
	got = tested(runFixture(t, "destructive", func(c *Config) { c.Cases = 2; c.IncludeDestructive = true }))
	if got["delete_everything"] != "tested" {
		t.Errorf("--include-destructive: %v", got)
	}
	got = tested(runFixture(t, "destructive", func(c *Config) { c.Cases = 2; c.Tools = []string{"delete_*"} }))
	if got["delete_everything"] != "tested" || !strings.Contains(got["lookup_user"], "--tools") {
		t.Errorf("--tools delete_*: %v", got)
	}
	got = tested(runFixture(t, "destructive", func(c *Config) { c.Cases = 2; c.SkipTools = []string{"lookup_*"} }))
	if !strings.Contains(got["lookup_user"], "--skip-tools") {
		t.Errorf("--skip-tools: %v", got)
	}
}

func TestNothingCalledIsNotGraded(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "destructive", func(c *Config) { c.SkipTools = []string{"*"} })
	if rep.Graded {
		t.Fatal("a run that called nothing is graded")
	}
}

// waitNoChildren waits up to limit for the test binary to have no child
// process, and returns those still alive then.
func waitNoChildren(limit time.Duration) []string {
	self := os.Getpid()
	deadline := time.Now().Add(limit)
	for {
		kids := childrenOf(self)
		if len(kids) == 0 || time.Now().After(deadline) {
			return kids
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// assertNoChildren fails when a child process of this test binary is still
// alive (the engine must reap every server it started). In a test that
// runs in parallel with others it checks nothing: TestMain does.
func assertNoChildren(t *testing.T) {
	t.Helper()
	if isParallel(t) {
		return // checked by TestMain (see reapCheck)
	}
	if kids := waitNoChildren(3 * time.Second); len(kids) > 0 {
		t.Fatalf("child processes left alive: %v", kids)
	}
}

// The JSON report validates against the published schema (docs/report.schema.json).
func TestReportValidatesAgainstPublishedSchema(t *testing.T) {
	parallel(t)
	for _, name := range []string{"clean", "crash-exit", "malformed-tools"} {
		rep := runFixture(t, name, func(c *Config) { c.Cases = 6 })
		b, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		if err := report.ValidateJSON(b); err != nil {
			t.Errorf("%s report does not validate: %v", name, err)
		}
	}
}
