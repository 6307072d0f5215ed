package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// toolCases returns the cases of tool in rep.
func toolCases(t *testing.T, rep *report.Report, tool string) []report.Case {
	t.Helper()
	for _, tl := range rep.Tools {
		if tl.Name == tool {
			return tl.Cases
		}
	}
	t.Fatalf("no tool %q in the report", tool)
	return nil
}

// crashFinding returns the finding made of case id, failing when there is
// none.
func crashFinding(t *testing.T, rep *report.Report, id string) report.Finding {
	t.Helper()
	for _, f := range rep.Findings {
		if f.CaseID == id {
			return f
		}
	}
	t.Fatalf("no finding for case %s; findings: %+v", id, rep.Findings)
	return report.Finding{}
}

// TestExitAfterLastRepeatRun: a server that answers the 3rd identical valid
// call of a --repeat 3 run and then exits has crashed on that call: the
// valid case is the crash (run 3 failed, so that its reproducer sends the
// call three times), and the next case, which the dead server never read,
// is not blamed but sent again to a restarted server.
func TestExitAfterLastRepeatRun(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "exit-after-answer", func(c *Config) {
		c.Tools = []string{"status"}
		c.Cases = 6
		c.Repeat = 3
	})
	cs := toolCases(t, rep, "status")
	valid := cs[0]
	if valid.Kind != report.KindValid || valid.Verdict != report.Crash || valid.Crash == nil || valid.Crash.How != report.CrashExit {
		t.Fatalf("valid case = %s %s (%s), crash %+v; want a crash by exit", valid.Kind, valid.Verdict, valid.Detail, valid.Crash)
	}
	if valid.Crash.ExitStatus != "exit code 3" || !strings.Contains(valid.Crash.Stderr, "answered valid call 3") {
		t.Errorf("valid case crash = %+v, want exit code 3 and the server's stderr", valid.Crash)
	}
	if !strings.Contains(valid.Detail, "run 3 of 3") || !strings.Contains(valid.Detail, "right after answering") {
		t.Errorf("valid case detail = %q, want it to say run 3 of 3 was answered, then the server exited", valid.Detail)
	}
	if valid.Timing == nil || valid.Timing.FailedRun != 3 || valid.Timing.Runs != 3 {
		t.Errorf("valid case timing = %+v, want 3 answered runs and failedRun 3", valid.Timing)
	}
	if len(cs) < 3 {
		t.Fatalf("%d cases, want the valid case and bad-input cases after it", len(cs))
	}
	for i, c := range cs[1:] {
		if c.Verdict.Failure() || c.Verdict == report.NotRun {
			t.Errorf("case %s = %s (%s): blamed for, or stopped by, the exit after the valid call", c.ID, c.Verdict, c.Detail)
		}
		resent := strings.Contains(c.Detail, "sent again to a restarted server")
		if resent != (i == 0) {
			t.Errorf("case %s detail = %q: want only the first case after the exit sent again", c.ID, c.Detail)
		}
	}
	if !strings.Contains(cs[1].Detail, "case "+valid.ID) {
		t.Errorf("case %s detail = %q, want it to name the case the exit was blamed on", cs[1].ID, cs[1].Detail)
	}
	f := crashFinding(t, rep, valid.ID)
	if f.Severity != report.SeverityCritical || strings.Count(f.Reproducer.Shell, `"method":"tools/call"`) != 3 {
		t.Errorf("finding %+v: want a critical crash whose reproducer sends the call 3 times", f)
	}
	if rep.Summary.Crash != 1 {
		t.Errorf("summary crash = %d, want 1 (the valid case)", rep.Summary.Crash)
	}
}

// TestExitAfterAnsweringBadInput: a server that answers a bad-input case
// and then exits has crashed on that case, not on the next one, which runs
// normally on a restarted server.
func TestExitAfterAnsweringBadInput(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "exit-after-answer", func(c *Config) {
		c.Tools = []string{"probe"}
		c.Cases = -1
		c.Repeat = 1
	})
	cs := toolCases(t, rep, "probe")
	at := -1
	for i, c := range cs {
		if c.Kind == report.KindExtraProperty && at < 0 {
			at = i
		}
	}
	if at < 0 || at == len(cs)-1 {
		t.Fatalf("extra_property case at %d of %d: want one with a case after it", at, len(cs))
	}
	extra := cs[at]
	if extra.Verdict != report.Crash || extra.Crash == nil || extra.Crash.How != report.CrashExit || extra.Crash.ExitStatus != "exit code 4" {
		t.Fatalf("extra_property case = %s (%s), crash %+v: want a crash by exit code 4", extra.Verdict, extra.Detail, extra.Crash)
	}
	if !strings.Contains(extra.Detail, "the server exited (exit code 4) right after answering this call") || !strings.Contains(extra.Crash.Stderr, "extra property") {
		t.Errorf("extra_property case detail %q, stderr %q: want the exit after its answer", extra.Detail, extra.Crash.Stderr)
	}
	next := cs[at+1]
	if next.Verdict.Failure() || next.Verdict == report.NotRun || next.Response == "" {
		t.Errorf("case after the exit %s = %s (%s): want it run on a restarted server and answered", next.ID, next.Verdict, next.Detail)
	}
	if !strings.Contains(next.Detail, "sent again to a restarted server") {
		t.Errorf("case after the exit detail = %q, want it to say it was sent again", next.Detail)
	}
	for _, c := range cs {
		if c.Verdict.Failure() && c.Kind != report.KindExtraProperty {
			t.Errorf("case %s = %s (%s): only extra_property cases make the server exit", c.ID, c.Verdict, c.Detail)
		}
	}
	f := crashFinding(t, rep, extra.ID)
	if !strings.Contains(f.Reproducer.JSONRPC, `"name":"probe"`) || strings.Count(f.Reproducer.Shell, `"method":"tools/call"`) != 1 {
		t.Errorf("finding reproducer = %+v, want the extra_property call once", f.Reproducer)
	}
}

// TestExitAfterLastCaseOfATool: a server that exits right after answering
// the last call of one tool is not blamed on the next tool's first case,
// which runs on a restarted server; the exit goes to the call it answered.
func TestExitAfterLastCaseOfATool(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "exit-after-answer", func(c *Config) {
		c.Cases = 1 // the valid case only
		c.Repeat = 3
	})
	status, probe := toolCases(t, rep, "status"), toolCases(t, rep, "probe")
	if len(status) != 1 || len(probe) != 1 {
		t.Fatalf("cases: status %d, probe %d, want the valid case each", len(status), len(probe))
	}
	if v := status[0]; v.Verdict != report.Crash || v.Timing == nil || v.Timing.FailedRun != 3 || v.Crash == nil || v.Crash.ExitStatus != "exit code 3" {
		t.Errorf("status valid case = %s (%s), timing %+v, crash %+v: want the crash after run 3", v.Verdict, v.Detail, v.Timing, v.Crash)
	}
	if p := probe[0]; p.Verdict != report.OK || !strings.Contains(p.Detail, "sent again to a restarted server") {
		t.Errorf("probe valid case = %s (%s): want ok, sent again to a restarted server", p.Verdict, p.Detail)
	}
	if rep.Summary.Crash != 1 || rep.EndedEarly != "" {
		t.Errorf("summary crash %d, ended early %q: want 1 crash and a full run", rep.Summary.Crash, rep.EndedEarly)
	}
}

// TestExitAfterAnEarlierRepeatRun: when the server exits right after
// answering run 2 of 3, run 3 never reaches it: run 2 is the failed run,
// the repeats stop there, and the tool's next case runs on a restarted
// server.
func TestExitAfterAnEarlierRepeatRun(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "exit-after-answer", func(c *Config) {
		c.Tools = []string{"status"}
		c.Cases = 3
		c.Repeat = 3
		c.Env = []string{"EXIT_AFTER_VALID=2"}
	})
	cs := toolCases(t, rep, "status")
	v := cs[0]
	if v.Verdict != report.Crash || v.Crash == nil || v.Crash.ExitStatus != "exit code 3" || !strings.Contains(v.Detail, "run 2 of 3") {
		t.Fatalf("valid case = %s (%s), crash %+v: want the crash after run 2 of 3", v.Verdict, v.Detail, v.Crash)
	}
	if v.Timing == nil || v.Timing.FailedRun != 2 || v.Timing.Runs != 2 || !strings.Contains(v.Timing.Note, "stopped at run 2") {
		t.Errorf("valid case timing = %+v, want 2 answered runs, failedRun 2 and why it stopped", v.Timing)
	}
	for _, c := range cs[1:] {
		if c.Verdict.Failure() || c.Verdict == report.NotRun || strings.Contains(c.Detail, "sent again") {
			t.Errorf("case %s = %s (%s): want it run normally on the restarted server", c.ID, c.Verdict, c.Detail)
		}
	}
}

// TestReplayExitAfterAnswer: replaying a case after which the server exits
// right after answering finds the crash again (a ping after the answer
// never reaches the server), and a case after which it stays up is not one.
func TestReplayExitAfterAnswer(t *testing.T) {
	// Not parallel: it checks that its own runs leave no server
	// process, which only a test running alone can tell.
	rep := runFixture(t, "exit-after-answer", func(c *Config) {
		c.Tools = []string{"probe"}
		c.Cases = -1
		c.Repeat = 1
	})
	var extra, other report.Case
	for _, c := range toolCases(t, rep, "probe") {
		switch {
		case c.Kind == report.KindExtraProperty && extra.ID == "":
			extra = c
		case c.Kind == report.KindValid:
			other = c
		}
	}
	if extra.ID == "" || other.ID == "" {
		t.Fatal("no extra_property or valid case")
	}
	cfg := Config{Command: []string{fixture.Build(t, "exit-after-answer")}, Timeout: 2 * time.Second, StartupTimeout: 20 * time.Second, Version: "test", Cases: -1}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	now, err := Replay(ctx, cfg, "probe", extra)
	if err != nil {
		t.Fatalf("Replay(%s): %v", extra.ID, err)
	}
	if now.Verdict != report.Crash || now.Crash == nil || now.Crash.ExitStatus != "exit code 4" || !strings.Contains(now.Detail, "right after answering this call") {
		t.Errorf("replayed %s = %s (%s), crash %+v: want the crash after the answer again", extra.ID, now.Verdict, now.Detail, now.Crash)
	}
	now, err = Replay(ctx, cfg, "probe", other)
	if err != nil {
		t.Fatalf("Replay(%s): %v", other.ID, err)
	}
	if now.Verdict != report.OK {
		t.Errorf("replayed %s = %s (%s), want ok", other.ID, now.Verdict, now.Detail)
	}
	assertNoChildren(t)
}

// TestExitAfterAnsweringBeforeLearning: when the server exits right after
// its error answer to the valid call, the first call made to learn a valid
// input never reaches it; the exit is the valid call's crash, and what the
// restarted server then answers to a learned call does not hide it.
func TestExitAfterAnsweringBeforeLearning(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "exit-after-answer", func(c *Config) {
		c.Tools = []string{"color"}
		c.Cases = 1
		c.Repeat = 1
		c.Env = []string{"EXIT_ON_UNKNOWN_COLOR=1"}
	})
	v := validCase(t, rep, "color")
	if v.Verdict != report.Crash || v.Crash == nil || v.Crash.ExitStatus != "exit code 5" || !strings.Contains(v.Detail, "right after answering this call (the answer was errored") {
		t.Errorf("valid case = %s (%s), crash %+v: want the crash after its error answer", v.Verdict, v.Detail, v.Crash)
	}
}
