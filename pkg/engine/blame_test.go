package engine

import (
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// TestBlame covers what the fixtures do not: a case that already failed
// keeps its verdict and says what followed; with no known owner of the
// last answer no case is blamed; a reported case is reported again.
func TestBlame(t *testing.T) {
	parallel(t)
	gone := &serverGone{exitStatus: "exit code 3", stderr: "bye"}

	t.Run("already a failure", func(t *testing.T) {
		rt := &report.Tool{Name: "x", Cases: []report.Case{{ID: "x/1", Kind: report.KindWrongType, Verdict: report.Crash,
			Detail: "JSON-RPC error -32603: boom", Crash: &report.CrashInfo{How: report.CrashInternalError}}}}
		var events []Event
		r := &runner{cfg: Config{Repeat: 1, Progress: func(e Event) { events = append(events, e) }}}
		g := *gone
		g.prev = &callRef{tool: "x", rt: rt, idx: 0}
		why := r.blame(&g)
		c := rt.Cases[0]
		if c.Verdict != report.Crash || c.Crash.How != report.CrashInternalError || c.Crash.ExitStatus != "exit code 3" || c.Crash.Stderr != "bye" {
			t.Errorf("case = %s %+v, want the internal error kept, with the exit status and stderr", c.Verdict, c.Crash)
		}
		if !strings.HasPrefix(c.Detail, "JSON-RPC error -32603: boom; then exited (exit code 3) right after answering this call") {
			t.Errorf("detail = %q", c.Detail)
		}
		if !strings.Contains(why, "case x/1") || len(events) != 1 || events[0].Case.Verdict != report.Crash {
			t.Errorf("why %q, events %+v: want the case named and reported again", why, events)
		}
	})

	t.Run("the connection closed", func(t *testing.T) {
		rc := report.Case{ID: "x/0", Kind: report.KindValid, Verdict: report.OK, Timing: &report.Timing{Runs: 1}}
		r := &runner{cfg: Config{Repeat: 1}}
		r.blame(&serverGone{prev: &callRef{tool: "x", c: &rc, run: 1}})
		if rc.Verdict != report.Crash || rc.Crash.How != report.CrashClosed || rc.Timing.FailedRun != 1 ||
			rc.Detail != "the server closed the connection right after answering this call (the answer was ok: no detail)" {
			t.Errorf("case = %s %q, crash %+v, timing %+v", rc.Verdict, rc.Detail, rc.Crash, rc.Timing)
		}
	})

	t.Run("owner unknown", func(t *testing.T) {
		r := &runner{cfg: Config{Repeat: 1}}
		why := r.blame(gone)
		if !strings.Contains(why, "had exited (exit code 3) before this call was sent") {
			t.Errorf("why = %q", why)
		}
	})
}
