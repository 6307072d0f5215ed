package eracompare

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// TestOtherEraFailures: a failure of the other era is listed unless the
// report's own audit failed the same case the same way; a tool or a case
// only the other era has counts, and so does each kind of failure a case
// has there only.
func TestOtherEraFailures(t *testing.T) {
	crash := func(id string) report.Case {
		c := caseOf(id, report.Crash, `{}`)
		c.Crash = &report.CrashInfo{How: report.CrashExit}
		return c
	}
	leak := func(c report.Case) report.Case { c.Flags = []string{report.FlagLeak}; return c }
	primary := &report.Report{Tools: []report.Tool{{Name: "t", Cases: []report.Case{
		crash("t/both/q"),
		leak(caseOf("t/leaky/q", report.Handled, `{}`)),
		caseOf("t/hangs/q", report.Handled, `{}`),
		caseOf("t/args/q", report.Handled, `{"q":1}`),
		caseOf("t/clean/q", report.Handled, `{}`),
	}}}}
	other := &report.Report{Tools: []report.Tool{
		{Name: "t", Cases: []report.Case{
			crash("t/both/q"),
			leak(crash("t/leaky/q")),
			caseOf("t/hangs/q", report.Hang, `{}`),
			crash("t/args/q"),
			caseOf("t/clean/q", report.Accepted, `{}`),
			caseOf("t/skipped/q", report.NotRun, `{}`),
			caseOf("t/only_other/q", report.ProtocolViolation, `{}`),
		}},
		{Name: "old", Cases: []report.Case{crash("old/null/q"), caseOf("old/valid", report.OK, `{}`)}},
	}}
	var got []string
	for _, f := range Failures(primary, other) {
		got = append(got, f.Tool+" "+f.Case.ID+" "+strings.Join(f.Codes, "+"))
	}
	want := []string{"t t/leaky/q crash", "t t/hangs/q hang", "t t/args/q crash", "t t/only_other/q protocol_violation", "old old/null/q crash"}
	if !slices.Equal(got, want) {
		t.Errorf("failures\n%q\nwant\n%q", got, want)
	}
	if only, missing := ToolsOnlyIn(other, primary), ToolsOnlyIn(primary, other); !slices.Equal(only, []string{"old"}) || len(missing) != 0 {
		t.Errorf("tools only in the other era %q, only in the report's %q", only, missing)
	}
}

// TestCompareEras: only cases run in both eras with the same arguments are
// compared; a verdict or a leak flag that differs is a difference.
func TestCompareEras(t *testing.T) {
	leaky := caseOf("t/null/q", report.Handled, `{"q":null}`)
	leaky.Flags = []string{report.FlagLeak}
	code := int64(-32602)
	rejected := caseOf("t/wrong_type/q", report.Rejected, `{"q":1}`)
	rejected.ErrorCode = &code
	modern := &report.Report{Tools: []report.Tool{{Name: "t", Cases: []report.Case{
		caseOf("t/valid", report.OK, `{"q":"a"}`),
		rejected,
		caseOf("t/null/q", report.Handled, `{"q":null}`),
		caseOf("t/missing_required/q", report.NotRun, `{}`),
		caseOf("t/out_of_range/q", report.Handled, `{"q":""}`),
		caseOf("t/only_modern", report.Handled, `{}`),
	}}}}
	crashed := caseOf("t/wrong_type/q", report.Crash, `{"q":1}`)
	crashed.Crash = &report.CrashInfo{How: report.CrashExit}
	legacy := &report.Report{Tools: []report.Tool{{Name: "t", Cases: []report.Case{
		caseOf("t/valid", report.OK, `{"q":"a"}`),
		crashed,
		leaky,
		caseOf("t/missing_required/q", report.Accepted, `{}`),
		caseOf("t/out_of_range/q", report.Accepted, `{"q":"learned"}`),
	}}}}
	compared, diffs := Compare(modern, legacy)
	if compared != 3 {
		t.Errorf("compared %d cases, want 3 (not_run, other arguments and a case of one era left out)", compared)
	}
	if len(diffs) != 2 {
		t.Fatalf("differences %+v, want 2", diffs)
	}
	if d := diffs[0]; d.CaseID != "t/wrong_type/q" || d.Modern.Verdict != report.Rejected || d.Legacy.Verdict != report.Crash || d.Legacy.Crash != report.CrashExit ||
		OutcomeText(d.Modern) != "rejected (-32602)" || OutcomeText(d.Legacy) != "crash (exit)" || !d.Legacy.Failure() {
		t.Errorf("first difference %+v", d)
	}
	if d := diffs[1]; d.CaseID != "t/null/q" || !d.Legacy.Leak || d.Modern.Leak || OutcomeText(d.Legacy) != "handled, leak" {
		t.Errorf("second difference %+v", d)
	}
}

func caseOf(id string, v report.Verdict, args string) report.Case {
	return report.Case{ID: id, Kind: strings.Split(id, "/")[1], Verdict: v, Arguments: json.RawMessage(args)}
}
