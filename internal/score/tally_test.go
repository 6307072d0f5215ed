package score

import (
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// Protocol violations outside any tool call (a banner on stdout) count like
// a case's for the caps and the critical callout, not for Robustness.
func TestServerViolationsCount(t *testing.T) {
	rep := server(tool("a", one(valid(ok)), times(9, bad(handled))), tool("b", one(valid(ok)), one(bad(protoV))))
	rep.ServerViolationCount = 2
	tl := count(rep)
	if got := tl.failures[string(report.ProtocolViolation)]; got != 3 {
		t.Errorf("protocol violations = %d, want 1 case + 2 of the server", got)
	}
	if tl.badRun != 10 || tl.badSurvived != 9 {
		t.Errorf("robustness counts %d of %d, want 9 of 10: the server's violations are no bad input", tl.badSurvived, tl.badRun)
	}
	Apply(rep)
	if got := strings.Join(rep.Critical, "\n"); !strings.Contains(got, "3 protocol violations (b, the server, outside any tool call)") {
		t.Errorf("critical = %q", got)
	}
	capped := false
	for _, c := range rep.Caps {
		capped = capped || strings.Contains(c.Reason, "3 protocol violations")
	}
	if !capped {
		t.Errorf("caps = %+v, want the protocol violations", rep.Caps)
	}
	if s := rep.Dimensions[Robustness].Score; s == nil || *s != 90 {
		t.Errorf("robustness = %v, want 90", scoreOf(rep.Dimensions[Robustness]))
	}

	// Alone, with every case clean: still capped, still critical.
	rep = server(tool("a", one(valid(ok)), times(9, bad(handled))))
	rep.ServerViolationCount = 1
	Apply(rep)
	if len(rep.Critical) != 1 || len(rep.Caps) == 0 || rep.Grade == nil || *rep.Grade == "A" {
		t.Errorf("critical %q, caps %+v, grade %v: want the server's violation to cap the grade", rep.Critical, rep.Caps, rep.Grade)
	}
	if s := rep.Dimensions[Robustness].Score; s == nil || *s != 100 {
		t.Errorf("robustness = %s, want 100", scoreOf(rep.Dimensions[Robustness]))
	}
}

// A failure an --era both run saw only in the other era (a crash, a hang,
// a protocol violation, a leak), on a shared tool or on one only that era
// lists, caps the grade and raises the callout as one in the report's own
// era does, named "TOOL (legacy era)"; not the dimensions, which measure
// the report's own audit. A difference that is no failure there (a silent
// accept) is no failure to count.
func TestOtherEraFailuresCount(t *testing.T) {
	rep := server(tool("a", one(valid(ok)), times(9, bad(handled))))
	legacyCrash := report.Case{ID: "a/wrong_type/1", Verdict: report.Crash, Crash: &report.CrashInfo{How: report.CrashExit}}
	legacyLeak := report.Case{ID: "a/wrong_type/2", Verdict: handled, Flags: []string{report.FlagLeak}}
	onlyLegacy := report.Case{ID: "old/null/x", Verdict: report.Hang}
	rep.EraComparison = &report.EraComparison{Era: "legacy",
		Differences: []report.EraDifference{
			{Tool: "a", CaseID: "a/wrong_type/1", Modern: report.EraOutcome{Verdict: handled}, Legacy: report.EraOutcome{Verdict: report.Crash, Crash: report.CrashExit}},
			{Tool: "a", CaseID: "a/wrong_type/2", Modern: report.EraOutcome{Verdict: handled}, Legacy: report.EraOutcome{Verdict: handled, Leak: true}},
			{Tool: "a", CaseID: "a/wrong_type/3", Modern: report.EraOutcome{Verdict: handled}, Legacy: report.EraOutcome{Verdict: report.Accepted}},
		},
		ToolsOnlyInOtherEra: []string{"old"},
		Failures: []report.EraFailure{
			{Tool: "a", Codes: []string{string(report.Crash)}, Case: legacyCrash},
			{Tool: "a", Codes: []string{report.FlagLeak}, Case: legacyLeak},
			{Tool: "old", Codes: []string{string(report.Hang)}, Case: onlyLegacy},
		},
	}
	Apply(rep)
	got := strings.Join(rep.Critical, "\n")
	for _, want := range []string{"1 crash (a (legacy era))", "1 leak of a secret or stack trace (a (legacy era))", "1 hang (old (legacy era))"} {
		if !strings.Contains(got, want) {
			t.Errorf("critical = %q, want %q", got, want)
		}
	}
	var reasons []string
	for _, c := range rep.Caps {
		reasons = append(reasons, c.Grade+": "+c.Reason)
	}
	if r := strings.Join(reasons, "\n"); !strings.Contains(r, "(2 in the legacy era)") || !strings.Contains(r, "C: 1 answer leaks a secret or a stack trace (1 in the legacy era)") {
		t.Errorf("caps = %q, want the legacy crash, hang and leak", r)
	}
	if s := rep.Dimensions[Robustness].Score; s == nil || *s != 100 {
		t.Errorf("robustness = %s, want 100: the other era is no case of this audit", scoreOf(rep.Dimensions[Robustness]))
	}

	rep.EraComparison.Failures = nil
	Apply(rep)
	if len(rep.Critical) != 0 || len(rep.Caps) != 0 {
		t.Errorf("differences without failures of the other era: critical %q, caps %+v; want none", rep.Critical, rep.Caps)
	}
}
