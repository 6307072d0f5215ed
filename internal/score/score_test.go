package score

import (
	"slices"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

const (
	handled = report.Handled
	rejectd = report.Rejected
	accept  = report.Accepted
	tolerat = report.Tolerated
	crash   = report.Crash
	hang    = report.Hang
	protoV  = report.ProtocolViolation
	ok      = report.OK
	errored = report.Errored
	gap     = report.GeneratorGap
	notRun  = report.NotRun
	leak    = report.FlagLeak
	slow    = report.FlagSlow
	bloated = report.FlagBloated
)

type dimCase struct {
	name   string
	rep    *report.Report
	want   string // score, or "nil" when not measured
	reason string // substring of the reason
}

func runDimCases(t *testing.T, dim string, cases []dimCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			Apply(tc.rep)
			d := tc.rep.Dimensions[dim]
			if got := scoreOf(d); got != tc.want {
				t.Errorf("%s score = %s, want %s (reason %q)", dim, got, tc.want, d.Reason)
			}
			if !strings.Contains(d.Reason, tc.reason) {
				t.Errorf("%s reason = %q, want it to contain %q", dim, d.Reason, tc.reason)
			}
			if d.Score == nil && !strings.HasPrefix(d.Reason, "not measured: ") {
				t.Errorf("unmeasured %s reason %q does not start with \"not measured: \"", dim, d.Reason)
			}
		})
	}
}

func TestRobustness(t *testing.T) {
	runDimCases(t, Robustness, []dimCase{
		{"crashes among bad inputs",
			server(tool("a", one(valid(ok)), times(38, bad(handled)), times(3, allowed(tolerat)), times(3, bad(crash)))),
			"93", "41 of 44 bad inputs answered without crash, hang or protocol violation (93%)"},
		{"accepted and rejected both survive",
			server(tool("a", one(valid(ok)), times(2, bad(accept)), times(2, bad(rejectd)))),
			"100", "4 of 4"},
		{"hang and protocol violation fail, valid crash is not a bad input",
			server(tool("a", one(valid(crash)), one(bad(hang)), one(bad(protoV)), times(2, bad(handled)))),
			"50", "2 of 4"},
		{"not_run and generator_gap excluded",
			server(tool("a", one(valid(ok)), times(3, bad(handled)), one(bad(notRun)), one(bad(gap)))),
			"100", "3 of 3"},
		{"unconfirmed tools count too",
			server(tool("a", one(valid(errored)), one(bad(rejectd)), one(bad(crash)))),
			"50", "1 of 2"},
		{"one failure in a thousand never shows 100",
			server(tool("a", one(valid(ok)), times(999, bad(handled)), one(bad(crash)))),
			"99", "999 of 1000"},
		{"one survivor in a thousand never shows 0",
			server(tool("a", one(valid(ok)), one(bad(handled)), times(999, bad(crash)))),
			"1", "1 of 1000"},
		{"only valid calls",
			server(tool("a", one(valid(ok)))),
			"nil", "not measured: no bad-input case was run"},
	})
}

func TestValidation(t *testing.T) {
	runDimCases(t, Validation, []dimCase{
		{"accepted forbidden inputs count against",
			server(tool("a", one(valid(ok)), times(2, bad(handled)), one(bad(rejectd)), one(bad(accept)))),
			"75", "3 of 4 forbidden inputs on 1 confirmed tool handled or rejected (75%)"},
		{"allowed inputs are not forbidden",
			server(tool("a", one(valid(ok)), one(bad(handled)), times(5, allowed(tolerat)))),
			"100", "1 of 1"},
		{"crash on a forbidden input is not a rejection",
			server(tool("a", one(valid(ok)), one(bad(handled)), one(bad(crash)))),
			"50", "1 of 2"},
		{"unconfirmed tools are not credited",
			server(
				tool("a", one(valid(ok)), one(bad(handled)), one(bad(accept))),
				tool("b", one(valid(errored)), times(10, bad(rejectd)))),
			"50", "1 of 2 forbidden inputs on 1 confirmed tool handled or rejected (50%); 10 rejections on unconfirmed tools not credited"},
		{"no confirmed tool",
			server(tool("b", one(valid(errored)), times(4, bad(rejectd)))),
			"nil", "not measured: no tested tool is confirmed (no valid call succeeded); 4 rejections on unconfirmed tools not credited"},
		{"confirmed but nothing forbidden",
			server(tool("a", one(valid(ok)), times(3, allowed(tolerat)))),
			"nil", "not measured: no forbidden input was run on the 1 confirmed tool"},
		{"empty_success confirms",
			server(tool("a", one(valid(report.EmptySuccess)), one(bad(handled)))),
			"100", "1 of 1"},
	})
}

func TestErrorQuality(t *testing.T) {
	runDimCases(t, ErrorQuality, []dimCase{
		{"handled 1, rejected 0.5",
			server(tool("a", one(valid(ok)), times(2, bad(handled)), times(2, bad(rejectd)))),
			"75", "(2 handled × 1 + 2 rejected × 0.5 − 0 leaks) ÷ 4 rejections on confirmed tools = 3 ÷ 4 (75%)"},
		{"all rejected with -32602",
			server(tool("a", one(valid(ok)), times(6, bad(rejectd)))),
			"50", "= 3 ÷ 6"},
		{"a leak costs one",
			server(tool("a", one(valid(ok)), one(bad(handled, leak)), times(3, bad(handled)))),
			"75", "(4 handled × 1 + 0 rejected × 0.5 − 1 leak) ÷ 4"},
		{"floored at 0",
			server(tool("a", one(valid(ok)), times(2, bad(rejectd, leak)))),
			"0", "= 0 ÷ 2"},
		{"non-forbidden rejections count, leaks on other verdicts do not",
			server(tool("a", one(valid(ok)), one(allowed(handled)), one(bad(accept, leak)), one(bad(crash, leak)))),
			"100", "1 ÷ 1"},
		{"unconfirmed tools excluded",
			server(
				tool("a", one(valid(ok)), one(bad(handled))),
				tool("b", one(valid(errored)), times(9, bad(rejectd)))),
			"100", "÷ 1 rejections"},
		{"nothing rejected",
			server(tool("a", one(valid(ok)), times(3, bad(accept)))),
			"nil", "not measured: no bad input on a confirmed tool was handled or rejected"},
	})
}

func TestLiveness(t *testing.T) {
	runDimCases(t, Liveness, []dimCase{
		{"errored counts 0",
			server(
				tool("a", one(valid(ok))), tool("b", one(valid(ok))), tool("c", one(valid(ok))),
				tool("d", one(valid(errored))), tool("e", one(valid(gap)))),
			"75", "3 of 4 valid calls ok (75%); 1 errored (possibly synthetic input), 1 generator gap excluded"},
		{"empty success and crash are not ok",
			server(tool("a", one(valid(ok))), tool("b", one(valid(report.EmptySuccess))), tool("c", one(valid(crash)))),
			"33", "1 empty_success, 1 crash"},
		{"not_run excluded",
			server(tool("a", one(valid(ok))), tool("b", one(valid(notRun)))),
			"100", "1 of 1"},
		{"only generator gaps",
			server(tool("a", one(valid(gap)), one(bad(handled)))),
			"nil", "not measured: no valid call was run; 1 generator gap excluded"},
	})
}

func TestPerformance(t *testing.T) {
	runDimCases(t, Performance, []dimCase{
		{"slow and bloated tools",
			server(
				tool("a", one(valid(ok, slow))),
				tool("b", one(valid(ok, slow, bloated))),
				tool("c", one(valid(ok))),
				tool("d", one(valid(errored))),
				tool("e", one(valid(crash))), // not answered: not measured
				tool("f", one(valid(gap)))),
			"50", "2 of 4 tools neither slow nor bloated (50%); slow: a, b; bloated: b"},
		{"errored and output_violation are measured",
			server(tool("a", one(valid(errored, bloated))), tool("b", one(valid(report.OutputViolation)))),
			"50", "1 of 2"},
		{"nothing answered",
			server(tool("a", one(valid(hang)), one(bad(handled)))),
			"nil", "not measured: no valid call was answered"},
	})
}

func TestSchema(t *testing.T) {
	two := func(lint ...report.Lint) *report.Report {
		rep := server(tool("a", one(valid(ok))), report.Tool{Name: "b", SkipReason: "destructive"})
		rep.Lint = lint
		return rep
	}
	l := func(tool, sev string) report.Lint {
		return report.Lint{Code: "x", Severity: report.Severity(sev), Tool: tool}
	}
	eleven := make([]report.Lint, 11)
	for i := range eleven {
		eleven[i] = l("b", "error")
	}
	runDimCases(t, Schema, []dimCase{
		{"no lint", two(), "100", "2 tools with 0 errors, 0 warnings, 0 info"},
		{"per tool penalty, untested tools count",
			two(l("a", "error"), l("a", "warning"), l("a", "info"), l("b", "warning")),
			// a: 100-15 = 85; b: 96; mean 90.5 -> 91 (math.Round)
			"91", "mean of max(0, 100 − penalty) per tool = 90.5"},
		{"floor per tool before the mean",
			two(eleven...),
			// a: 100, b: max(0, -10) = 0; mean 50, not 45
			"50", "= 50 → 50"},
		{"server-level lint subtracted once",
			two(l("a", "error"), l("", "warning"), l("", "info")),
			// (90 + 100) / 2 = 95, minus 5
			"90", "server-level 0 errors, 1 warning, 1 info: −5 → 90"},
		{"lint on an unlisted tool is server-level",
			two(l("ghost", "error")),
			"90", "−10"},
		{"server-level floor 0",
			two(times2(l("", "error"), 11)...),
			"0", "→ 0"},
		{"a deduction never rounds to 100",
			func() *report.Report {
				var tools []report.Tool
				for i := range 300 {
					tools = append(tools, report.Tool{Name: string(rune('a'+i%26)) + strings.Repeat("x", i)})
				}
				rep := server(tools...)
				rep.Lint = []report.Lint{l("a", "info")}
				return rep
			}(),
			"99", "→ 99"},
		{"no tools", server(), "nil", "not measured: no tool was listed"},
	})
}

func times2(l report.Lint, n int) []report.Lint {
	out := make([]report.Lint, n)
	for i := range out {
		out[i] = l
	}
	return out
}

func TestOverall(t *testing.T) {
	dims := func(scores map[string]*int) map[string]report.Dimension {
		m := map[string]report.Dimension{}
		for k, v := range scores {
			m[k] = report.Dimension{Score: v}
		}
		return m
	}
	tests := []struct {
		name   string
		dims   map[string]report.Dimension
		want   int
		wantOK bool
	}{
		{"all measured", dims(map[string]*int{Robustness: ptr(100), Validation: ptr(100), ErrorQuality: ptr(50), Liveness: ptr(100), Performance: ptr(100), Schema: ptr(100)}), 95, true},
		// (30×100 + 10×50 + 15×0 + 15×100) ÷ 70 = 71.43
		{"validation and performance missing", dims(map[string]*int{Robustness: ptr(100), Validation: nil, ErrorQuality: ptr(50), Liveness: ptr(0), Schema: ptr(100)}), 71, true},
		// (25×81 + 10×80) ÷ 35 = 80.71 (rounds up)
		{"rounded", dims(map[string]*int{Validation: ptr(81), ErrorQuality: ptr(80)}), 81, true},
		{"nothing measured", dims(map[string]*int{Robustness: nil}), 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Overall(tc.dims)
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("Overall = %d, %v; want %d, %v", got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

func TestLetter(t *testing.T) {
	for score, want := range map[int]string{100: "A", 90: "A", 89: "B", 75: "B", 74: "C", 60: "C", 59: "D", 40: "D", 39: "F", 0: "F"} {
		if got := Letter(score); got != want {
			t.Errorf("Letter(%d) = %s, want %s", score, got, want)
		}
	}
}

// kinds is a tool's worth of bad inputs of every verdict v, forbidden.
func kinds(v report.Verdict, flags ...string) []report.Case {
	var out []report.Case
	for _, k := range []string{"missing_required", "wrong_type", "null", "out_of_enum", "out_of_range", "structural"} {
		out = append(out, report.Case{Kind: k, Forbidden: true, Verdict: v, Flags: flags})
	}
	return out
}

func gradeOf(rep *report.Report) string {
	if rep.Grade == nil {
		return "nil"
	}
	return *rep.Grade
}

// TestRequiredOutcomes checks the outcomes docs/BEHAVIOUR.md#score-grade-gates-and-exit-codes promises.
func TestRequiredOutcomes(t *testing.T) {
	tests := []struct {
		name  string
		rep   *report.Report
		worst string // the grade must be this or worse
		best  string // and this or better
	}{
		{"validates nothing", server(
			tool("a", one(valid(ok)), kinds(accept)),
			tool("b", one(valid(ok)), kinds(accept))), "D", "F"},
		{"every call crashes", server(
			tool("a", one(valid(crash)), kinds(crash)),
			tool("b", one(valid(crash)), kinds(crash))), "F", "F"},
		{"strict validator", server(
			tool("a", one(valid(ok)), kinds(rejectd)),
			tool("b", one(valid(ok)), kinds(rejectd))), "A", "B"},
		{"fails every call and rejects everything", server(
			tool("a", one(valid(errored)), kinds(rejectd)),
			tool("b", one(valid(errored)), kinds(rejectd))), "C", "F"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			Apply(tc.rep)
			g := gradeOf(tc.rep)
			if g == "nil" || rank(g) > rank(tc.worst) || rank(g) < rank(tc.best) {
				t.Errorf("grade %s (score %v, caps %+v), want between %s and %s", g, tc.rep.Score, tc.rep.Caps, tc.worst, tc.best)
			}
		})
	}

	t.Run("fails every call is not a strict validator", func(t *testing.T) {
		rep := server(tool("a", one(valid(errored)), kinds(rejectd)))
		Apply(rep)
		if d := rep.Dimensions[Validation]; d.Score != nil {
			t.Errorf("validation = %d, want not measured", *d.Score)
		}
		if !slices.ContainsFunc(rep.Caps, func(c report.Cap) bool {
			return c.Grade == "C" && strings.Contains(c.Reason, "no tested tool is confirmed")
		}) {
			t.Errorf("caps %+v lack the no-confirmed-tool cap", rep.Caps)
		}
	})
}

func TestCaps(t *testing.T) {
	tests := []struct {
		name     string
		rep      *report.Report
		caps     []report.Cap
		grade    string
		critical []string
	}{
		{
			name: "every cap listed, grade is the strictest",
			rep: server(
				tool("get_weather", one(valid(ok)),
					one(crashed(report.CrashExit)), one(crashed(report.CrashClosed)), one(crashed(report.CrashInternalError)),
					one(bad(hang)), one(bad(protoV)),
					times(2, bad(accept)), one(bad(handled, leak)), one(bad(handled))),
				tool("search", one(valid(errored, leak)))),
			// robustness: 4 of 9 = 44; validation 2 of 9 = 22
			caps: []report.Cap{
				{Grade: "F", Reason: "robustness 44 is under 50"},
				{Grade: "D", Reason: "1 process exit, 1 dropped connection, 1 hang, 1 protocol violation: each can end or stall a client's session"},
				{Grade: "C", Reason: "1 internal error (-32603 or the server-error range) from a live server"},
				{Grade: "D", Reason: "validation 22 is under 50"},
				{Grade: "C", Reason: "validation 22 is under 80"},
				{Grade: "C", Reason: "2 answers leak a secret or a stack trace"},
			},
			grade: "F",
			critical: []string{
				"3 crashes (get_weather)",
				"1 hang (get_weather)",
				"1 protocol violation (get_weather)",
				"2 leaks of a secret or stack trace (get_weather, search)",
			},
		},
		{
			name: "a cap lower than the computed grade wins",
			rep: server(
				tool("a", one(valid(ok)), times(49, bad(handled)), one(crashed(report.CrashInternalError)))),
			// every dimension near 100: computed A, capped C
			caps:     []report.Cap{{Grade: "C", Reason: "1 internal error (-32603 or the server-error range) from a live server"}},
			grade:    "C",
			critical: []string{"1 crash (a)"},
		},
		{
			name: "one process exit caps at D",
			rep: server(
				tool("a", one(valid(ok)), times(49, bad(handled)), one(crashed(report.CrashExit)))),
			caps:     []report.Cap{{Grade: "D", Reason: "1 process exit: each can end or stall a client's session"}},
			grade:    "D",
			critical: []string{"1 crash (a)"},
		},
		{
			name: "one dropped connection caps at D",
			rep: server(
				tool("a", one(valid(ok)), times(49, bad(handled)), one(crashed(report.CrashClosed)))),
			caps:     []report.Cap{{Grade: "D", Reason: "1 dropped connection: each can end or stall a client's session"}},
			grade:    "D",
			critical: []string{"1 crash (a)"},
		},
		{
			name: "a crash without how (an older report) counts as a process exit",
			rep: server(
				tool("a", one(valid(ok)), times(49, bad(handled)), one(bad(crash)))),
			caps:     []report.Cap{{Grade: "D", Reason: "1 process exit: each can end or stall a client's session"}},
			grade:    "D",
			critical: []string{"1 crash (a)"},
		},
		{
			name: "one hang caps at D",
			rep: server(
				tool("a", one(valid(ok)), times(49, bad(handled)), one(bad(hang)))),
			caps:     []report.Cap{{Grade: "D", Reason: "1 hang: each can end or stall a client's session"}},
			grade:    "D",
			critical: []string{"1 hang (a)"},
		},
		{
			name: "one protocol violation caps at D",
			rep: server(
				tool("a", one(valid(ok)), times(49, bad(handled)), one(bad(protoV)))),
			caps:     []report.Cap{{Grade: "D", Reason: "1 protocol violation: each can end or stall a client's session"}},
			grade:    "D",
			critical: []string{"1 protocol violation (a)"},
		},
		{
			name: "a computed grade lower than the caps stays",
			rep: func() *report.Report {
				r := server(
					tool("a", one(valid(ok)), times(7, bad(handled)), times(3, bad(accept))),
					tool("b", one(valid(errored))), tool("c", one(valid(errored))), tool("d", one(valid(errored))))
				r.Lint = times2(report.Lint{Severity: "error", Tool: "a"}, 10)
				return r
			}(),
			// robustness 100, validation 70, errorQuality 100, liveness 25, performance 100, schema 75:
			// (3000 + 1750 + 1000 + 375 + 500 + 1125) ÷ 100 = 77.5 -> 78 B; validation caps at C
			caps:  []report.Cap{{Grade: "C", Reason: "validation 70 is under 80"}},
			grade: "C",
		},
		{
			name:  "clean server has no caps",
			rep:   server(tool("a", one(valid(ok)), kinds(handled))),
			caps:  []report.Cap{},
			grade: "A",
		},
		{
			name: "no tested tool confirmed",
			rep:  server(tool("a", one(valid(errored)), kinds(handled)), tool("b", one(valid(gap)))),
			caps: []report.Cap{{Grade: "C", Reason: "no tested tool is confirmed: the valid call of none of the 2 tested tools succeeded"}},
			// robustness 100, liveness 0, performance 100, schema 100: (3000+0+500+1500)/65 = 77 B, capped C
			grade: "C",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			Apply(tc.rep)
			if !slices.Equal(tc.rep.Caps, tc.caps) {
				t.Errorf("caps:\n got %+v\nwant %+v", tc.rep.Caps, tc.caps)
			}
			if g := gradeOf(tc.rep); g != tc.grade {
				t.Errorf("grade %s (score %v), want %s; dimensions %+v", g, *tc.rep.Score, tc.grade, tc.rep.Dimensions)
			}
			if !slices.Equal(tc.rep.Critical, tc.critical) {
				t.Errorf("critical:\n got %q\nwant %q", tc.rep.Critical, tc.critical)
			}
		})
	}
}

func TestNotGraded(t *testing.T) {
	tests := []struct {
		name   string
		rep    *report.Report
		reason string
	}{
		{"no tools", server(), "nothing tested: the server listed no tools"},
		{"all skipped", server(report.Tool{Name: "rm", SkipReason: "destructive"}), "none of the 1 listed tool was tested"},
		{"nothing ran", func() *report.Report {
			r := server(tool("a", one(valid(notRun)), one(bad(notRun))))
			r.EndedEarly = "reconnecting failed 3 times"
			return r
		}(), "no case of the 1 tested tool ran (reconnecting failed 3 times)"},
		{"interrupted", func() *report.Report {
			r := server(tool("a", one(valid(ok))))
			r.Interrupted, r.Graded = true, true
			return r
		}(), "the run was interrupted after 1 case"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			Apply(tc.rep)
			if tc.rep.Score != nil || tc.rep.Grade != nil || tc.rep.Graded {
				t.Errorf("score %v grade %v graded %v, want nil, nil, false", tc.rep.Score, tc.rep.Grade, tc.rep.Graded)
			}
			if len(tc.rep.Caps) != 1 || tc.rep.Caps[0].Grade != NotGraded || !strings.Contains(tc.rep.Caps[0].Reason, tc.reason) {
				t.Errorf("caps %+v, want one %q cap containing %q", tc.rep.Caps, NotGraded, tc.reason)
			}
			if len(tc.rep.Dimensions) != 6 {
				t.Errorf("%d dimensions, want 6", len(tc.rep.Dimensions))
			}
		})
	}
}

func TestApplyIsIdempotent(t *testing.T) {
	rep := server(tool("a", one(valid(ok)), kinds(crash)))
	Apply(rep)
	first := *rep.Grade
	caps := slices.Clone(rep.Caps)
	Apply(rep)
	if *rep.Grade != first || !slices.Equal(rep.Caps, caps) {
		t.Errorf("second Apply changed grade %s -> %s or caps %+v -> %+v", first, *rep.Grade, caps, rep.Caps)
	}
}

func TestFormulas(t *testing.T) {
	f := Formulas()
	sum := 0
	rep := server(tool("a", one(valid(ok))))
	Apply(rep)
	for _, x := range f {
		sum += x.Weight
		if _, ok := rep.Dimensions[x.Dimension]; !ok {
			t.Errorf("formula for %q, which Apply does not produce", x.Dimension)
		}
		if x.Title == "" {
			t.Errorf("%s has no title", x.Dimension)
		}
	}
	if len(f) != 6 || sum != 100 {
		t.Errorf("%d formulas weighing %d, want 6 weighing 100", len(f), sum)
	}
	f[0].Weight = 0
	if Formulas()[0].Weight == 0 {
		t.Error("Formulas exposes its backing array")
	}
}

func TestUntested(t *testing.T) {
	skipped := report.Tool{Name: "delete", SkipReason: "not annotated readOnlyHint: true"}
	tests := []struct {
		rep  *report.Report
		want string
	}{
		{server(tool("a", one(valid(ok)))), ""},
		{server(tool("a", one(valid(ok))), skipped), "1 of 2 tools untested"},
		{server(skipped), "1 of 1 tool untested"},
		{server(tool("a", one(valid(ok))), skipped, skipped, tool("b", one(valid(ok)))), "2 of 4 tools untested"},
	}
	for _, tc := range tests {
		if got := Untested(tc.rep); got != tc.want {
			t.Errorf("Untested(%d tools) = %q, want %q", len(tc.rep.Tools), got, tc.want)
		}
	}
}

func TestExploitNouns(t *testing.T) {
	t.Parallel()
	for kind, want := range map[string]string{
		report.FlagSSRF:             "4 server-side request forgeries",
		report.FlagCommandInjection: "4 command injections",
		report.FlagSQLInjection:     "4 SQL injections",
	} {
		if got := failureNoun(kind, 4); got != want {
			t.Errorf("failureNoun(%s, 4) = %q, want %q", kind, got, want)
		}
	}
	if got := failureNoun(report.FlagPathTraversal, 1); got != "1 path traversal" {
		t.Errorf("failureNoun(path_traversal, 1) = %q", got)
	}
}

// A security case measures no dimension; a flaw it proved caps the grade
// at F and raises the critical callout.
func TestSecurityCasesAndTheirFlaws(t *testing.T) {
	t.Parallel()
	sec := func(v report.Verdict, flags ...string) report.Case {
		return report.Case{Kind: report.KindSecurity, Verdict: v, Flags: flags}
	}
	plain := server(tool("read", one(valid(report.OK)), times(4, bad(report.Handled))))
	Apply(plain)
	withCases := server(tool("read", one(valid(report.OK)), times(4, bad(report.Handled)), times(6, sec(report.Tolerated)), times(3, sec(report.Handled))))
	Apply(withCases)
	if *plain.Score != *withCases.Score || *plain.Grade != *withCases.Grade || len(withCases.Caps) != 0 {
		t.Errorf("security cases without evidence changed the score: %d %s against %d %s, caps %+v",
			*withCases.Score, *withCases.Grade, *plain.Score, *plain.Grade, withCases.Caps)
	}
	for k, d := range plain.Dimensions {
		if scoreOf(d) != scoreOf(withCases.Dimensions[k]) {
			t.Errorf("dimension %s: %s with security cases, %s without", k, scoreOf(withCases.Dimensions[k]), scoreOf(d))
		}
	}
	flawed := server(tool("read", one(valid(report.OK)), times(4, bad(report.Handled)), one(sec(report.Tolerated, report.FlagPathTraversal))))
	Apply(flawed)
	if *flawed.Grade != "F" || len(flawed.Caps) == 0 || !strings.Contains(flawed.Caps[0].Reason, "1 security flaw proved by its evidence (path_traversal)") {
		t.Errorf("grade %s, caps %+v: want F for a proved path traversal", *flawed.Grade, flawed.Caps)
	}
	if len(flawed.Critical) == 0 || !strings.Contains(flawed.Critical[0], "1 path traversal (read)") {
		t.Errorf("critical %q", flawed.Critical)
	}
}

// The warning that a server speaks only a 2025 revision is not scored.
func TestLegacyOnlyIsNotScored(t *testing.T) {
	t.Parallel()
	plain := server(tool("t", one(valid(report.OK)), times(3, bad(report.Handled))))
	Apply(plain)
	told := server(tool("t", one(valid(report.OK)), times(3, bad(report.Handled))))
	told.Lint = []report.Lint{{Code: report.LintLegacyOnly, Severity: report.SeverityWarning}}
	Apply(told)
	if *plain.Score != *told.Score || scoreOf(plain.Dimensions[Schema]) != scoreOf(told.Dimensions[Schema]) {
		t.Errorf("score %d against %d: the revision warning was scored", *told.Score, *plain.Score)
	}
}
