package score

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

func finding(caseID, code, severity string) report.Finding {
	return report.Finding{ID: caseID + "#" + code, CaseID: caseID, Code: code, Severity: report.Severity(severity)}
}

// scored is a graded report with the given overall score, robustness and
// error quality (validation not measured) and findings.
func scored(score int, findings ...report.Finding) *report.Report {
	return &report.Report{
		Graded: true,
		Score:  ptr(score),
		Dimensions: map[string]report.Dimension{
			Robustness:   {Score: ptr(90)},
			ErrorQuality: {Score: ptr(50)},
			Validation:   {Reason: "not measured: no tested tool is confirmed (no valid call succeeded)"},
		},
		Findings: findings,
	}
}

func TestCheck(t *testing.T) {
	crashA := finding("a/wrong_type/x", "crash", "critical")
	crashB := finding("b/null/y", "crash", "critical")
	hangA := finding("a/null/x", "hang", "critical")
	protoA := finding("a/structural", "protocol_violation", "critical")
	acceptA := finding("a/out_of_enum/z", "accepted", "error")
	slowA := finding("a/valid", "slow", "warning")
	base := scored(80, crashA, acceptA, slowA)

	tests := []struct {
		name  string
		rep   *report.Report
		gates Gates
		fails []string // substrings, one per expected failure line, in order
	}{
		{"no gates", scored(10, crashA), Gates{}, nil},
		{"fail-under met", scored(80), Gates{FailUnder: ptr(80)}, nil},
		{"fail-under missed", scored(72), Gates{FailUnder: ptr(80)}, []string{"score 72 is under fail-under 80"}},
		{"fail-under on a report not graded",
			&report.Report{Caps: []report.Cap{{Grade: NotGraded, Reason: "nothing tested: the server listed no tools"}}},
			Gates{FailUnder: ptr(0)},
			[]string{"the report is not graded (nothing tested: the server listed no tools), so fail-under 0 is missed"}},
		{"dimension met", scored(80), Gates{FailUnderDim: map[string]int{"robustness": 90, "error_quality": 50}}, nil},
		{"dimension missed, any spelling, display order",
			scored(80),
			Gates{FailUnderDim: map[string]int{"error-quality": 60, "Robustness": 95}},
			[]string{"robustness 90 is under fail-under-robustness 95", "errorQuality 50 is under fail-under-error-quality 60"}},
		{"dimension not measured",
			scored(80),
			Gates{FailUnderDim: map[string]int{"validation": 1}},
			[]string{"validation was not measured (no tested tool is confirmed (no valid call succeeded)), so fail-under-validation 1 is missed"}},
		{"dimension absent from the report",
			scored(80),
			Gates{FailUnderDim: map[string]int{"liveness": 1}},
			[]string{"liveness was not measured"}},
		{"unknown dimension", scored(80), Gates{FailUnderDim: map[string]int{"speed": 1}}, []string{`unknown dimension "speed"`}},
		{"fail-on kind present",
			scored(80, crashA, crashB, acceptA),
			Gates{FailOn: []string{"crash"}},
			[]string{"2 crash findings (fail-on crash): a/wrong_type/x#crash, b/null/y#crash"}},
		{"fail-on kind absent", scored(80, acceptA, slowA), Gates{FailOn: []string{"crash", "hang"}}, nil},
		{"fail-on protocol alias",
			scored(80, protoA, hangA),
			Gates{FailOn: []string{"protocol"}},
			[]string{"1 protocol_violation finding (fail-on protocol): a/structural#protocol_violation"}},
		{"fail-on one line per kind",
			scored(80, crashA, hangA, slowA),
			Gates{FailOn: []string{"hang", "crash", "slow"}},
			[]string{"1 hang finding", "1 crash finding", "1 slow finding"}},
		{"expected by case id and by finding id",
			scored(80, crashA, crashB),
			Gates{FailOn: []string{"crash"}, Expected: map[string]string{"a/wrong_type/x": "known", "b/null/y#crash": "upstream bug"}},
			nil},
		{"expected for another code does not hide a crash",
			scored(80, crashA),
			Gates{FailOn: []string{"crash"}, Expected: map[string]string{"a/wrong_type/x#accepted": "known"}},
			[]string{"1 crash finding"}},
		{"baseline, fail-on-new, identical report",
			scored(80, crashA, acceptA, slowA),
			Gates{Baseline: base, FailOnNew: true, FailOn: []string{"crash", "accepted"}},
			nil},
		{"baseline, fail-on-new, new crash",
			scored(80, crashA, crashB, acceptA, slowA),
			Gates{Baseline: base, FailOnNew: true, FailOn: []string{"crash"}},
			[]string{"1 new crash finding (fail-on crash): b/null/y#crash"}},
		{"baseline without fail-on-new still fails on old findings",
			scored(80, crashA),
			Gates{Baseline: base, FailOn: []string{"crash"}},
			[]string{"1 crash finding (fail-on crash): a/wrong_type/x#crash"}},
		{"fail-on-new alone, identical", scored(80, crashA, acceptA, slowA), Gates{Baseline: base, FailOnNew: true}, nil},
		{"fail-on-new alone ignores new warnings",
			scored(80, crashA, acceptA, slowA, finding("b/valid", "slow", "warning")),
			Gates{Baseline: base, FailOnNew: true},
			nil},
		{"fail-on-new alone fails on new critical and error findings",
			scored(80, crashA, crashB, finding("b/null/z", "accepted", "error")),
			Gates{Baseline: base, FailOnNew: true},
			[]string{"2 critical or error findings are not in the baseline (fail-on-new): b/null/y#crash, b/null/z#accepted"}},
		{"fail-on-new alone respects expected",
			scored(80, crashB),
			Gates{Baseline: base, FailOnNew: true, Expected: map[string]string{"b/null/y": "flaky"}},
			nil},
		{"fail-on-new without a baseline", scored(80), Gates{FailOnNew: true}, []string{"gating on new findings needs a baseline report"}},
		{"unknown kind", scored(80), Gates{FailOn: []string{"boom"}}, []string{`unknown finding kind "boom"`}},
		{"several gates missed at once",
			scored(50, crashA),
			Gates{FailUnder: ptr(60), FailUnderDim: map[string]int{"robustness": 95}, FailOn: []string{"crash"}},
			[]string{"score 50", "robustness 90", "1 crash finding"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := Check(tc.rep, tc.gates)
			if res.Passed != (len(tc.fails) == 0) {
				t.Errorf("Passed = %v, want %v (failures %q)", res.Passed, len(tc.fails) == 0, res.Failures)
			}
			if len(res.Failures) != len(tc.fails) {
				t.Fatalf("failures %q, want %d containing %q", res.Failures, len(tc.fails), tc.fails)
			}
			for i, want := range tc.fails {
				if !strings.Contains(res.Failures[i], want) {
					t.Errorf("failure %d = %q, want it to contain %q", i, res.Failures[i], want)
				}
			}
		})
	}
}

// TestCheckScoredReport runs the gates on a report scored by Apply.
func TestCheckScoredReport(t *testing.T) {
	rep := server(tool("a", one(valid(ok)), kinds(rejectd)))
	Apply(rep)
	if res := Check(rep, Gates{FailUnder: ptr(90), FailUnderDim: map[string]int{"validation": 100}}); !res.Passed {
		t.Errorf("strict validator missed its gates: %q", res.Failures)
	}
	if res := Check(rep, Gates{FailUnderDim: map[string]int{"errorQuality": 51}}); res.Passed {
		t.Error("error quality 50 passed --fail-under-error-quality 51")
	}
}

func TestParseFailOn(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  string
	}{
		{"crash,hang,protocol", []string{"crash", "hang", "protocol_violation"}, ""},
		{" Crash , stderr-panic,OUTPUT_VIOLATION,,crash", []string{"crash", "stderr_panic", "output_violation"}, ""},
		{"protocol_violation,protocol", []string{"protocol_violation"}, ""},
		{"leak,accepted,empty_success,errored,slow,bloated,generator-gap", []string{"leak", "accepted", "empty_success", "errored", "slow", "bloated", "generator_gap"}, ""},
		{"", nil, ""},
		{"crash,boom", nil, `unknown finding kind "boom" (valid: command_injection, code_injection, sql_injection, path_traversal, ssrf, crash, hang, protocol, leak,`},
		{"tolerated", nil, `"tolerated"`},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseFailOn(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, ErrUnknownKind) {
					t.Fatalf("err = %v, want ErrUnknownKind containing %q", err, tc.err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("ParseFailOn(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestParseDimension(t *testing.T) {
	for in, want := range map[string]string{
		"robustness": Robustness, "Robustness": Robustness, "validation": Validation,
		"error-quality": ErrorQuality, "errorQuality": ErrorQuality, "error_quality": ErrorQuality, "ERRORQUALITY": ErrorQuality,
		"liveness": Liveness, "performance": Performance, " schema ": Schema,
	} {
		if got, err := ParseDimension(in); got != want || err != nil {
			t.Errorf("ParseDimension(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "speed", "error quality score"} {
		_, err := ParseDimension(in)
		if !errors.Is(err, ErrUnknownDimension) || !strings.Contains(err.Error(), "error-quality") {
			t.Errorf("ParseDimension(%q) err = %v, want ErrUnknownDimension listing the valid names", in, err)
		}
	}
}

func TestFailKindsAreTheCatalogue(t *testing.T) {
	codes := report.Codes()
	if got := FailKinds(); len(got) != len(codes) {
		t.Fatalf("FailKinds() = %v, want one per code of the catalogue (%d)", got, len(codes))
	}
	for _, c := range codes {
		for _, spelling := range []string{c.Name, c.FailOn, strings.ToUpper(c.FailOn), strings.ReplaceAll(c.Name, "_", "-")} {
			got, err := ParseFailOn(spelling)
			if err != nil || len(got) != 1 || got[0] != c.Name {
				t.Errorf("ParseFailOn(%q) = %v, %v; want [%s]", spelling, got, err, c.Name)
			}
		}
	}
	_, err := ParseFailOn("crash,segfault")
	if !errors.Is(err, ErrUnknownKind) || !strings.Contains(err.Error(), "protocol, leak") {
		t.Errorf("unknown kind: %v; want ErrUnknownKind listing the --fail-on names", err)
	}
}

// TestDefaultGateNeedsATestedTool: a run that skipped every tool misses
// the default gate (a green build with no call made would be a silent
// no-op); an explicit gate, or a server with no tool, decides otherwise.
func TestDefaultGateNeedsATestedTool(t *testing.T) {
	skipped := report.Tool{Name: "write", SkipReason: "not annotated readOnlyHint: true"}
	allSkipped := server(skipped, skipped)
	Apply(allSkipped)
	def := Gates{FailOn: DefaultFailOn(), Default: true}
	res := Check(allSkipped, def)
	if res.Passed || len(res.Failures) != 1 || !strings.Contains(res.Failures[0], "nothing was tested: all 2 tools were skipped (the first: not annotated readOnlyHint: true)") {
		t.Errorf("all skipped under the default gate: %+v", res)
	}
	if res := Check(allSkipped, Gates{}); !res.Passed {
		t.Errorf("all skipped with fail-on none: %+v, want passed", res)
	}
	if res := Check(allSkipped, Gates{FailOn: []string{"crash"}}); !res.Passed {
		t.Errorf("all skipped with an explicit fail-on: %+v, want passed", res)
	}
	noTools := server()
	Apply(noTools)
	if res := Check(noTools, def); !res.Passed {
		t.Errorf("no tool listed: %+v, want passed", res)
	}
	oneTested := server(skipped, tool("read", one(valid(ok))))
	Apply(oneTested)
	if res := Check(oneTested, def); !res.Passed {
		t.Errorf("one tool tested: %+v, want passed", res)
	}
}
