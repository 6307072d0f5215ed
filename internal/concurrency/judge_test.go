package concurrency

import (
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// judgeConcurrent, one row per way the calls made at once can end.
func TestJudgeConcurrent(t *testing.T) {
	t.Parallel()
	ok := judgedCall{verdict: report.OK}
	errored := judgedCall{verdict: report.Errored, detail: "busy"}
	crash := judgedCall{verdict: report.Crash, crash: &report.CrashInfo{How: report.CrashExit}}
	hang := judgedCall{verdict: report.Hang}
	for _, tc := range []struct {
		name   string
		alone  report.Verdict
		calls  []judgedCall
		status string
		code   string
	}{
		{"all succeed", report.OK, []judgedCall{ok, ok, ok}, report.CheckPass, ""},
		{"some fail", report.OK, []judgedCall{ok, errored, errored}, report.CheckFail, report.CodeConcurrencyFailure},
		{"all fail", report.OK, []judgedCall{errored, errored}, report.CheckFail, report.CodeConcurrencyFailure},
		{"a crash is its own code", report.OK, []judgedCall{ok, errored, crash}, report.CheckFail, string(report.Crash)},
		{"the worst failure wins", report.OK, []judgedCall{hang, crash}, report.CheckFail, string(report.Crash)},
		{"fails the same way alone", report.Crash, []judgedCall{ok, crash}, report.CheckPass, ""},
		{"interrupted", report.OK, []judgedCall{ok, {verdict: report.NotRun}}, report.CheckSkip, ""},
	} {
		var c report.Check
		judgeConcurrent(&validCall{verdict: tc.alone, caseID: "t/valid"}, tc.calls, len(tc.calls), nil, &c)
		if c.Status != tc.status || c.Code != tc.code {
			t.Errorf("%s: status %s code %q (%s), want %s %q", tc.name, c.Status, c.Code, c.Detail, tc.status, tc.code)
		}
	}
}
