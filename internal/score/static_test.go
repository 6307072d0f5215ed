package score

import (
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// staticReport is a static audit (--no-calls) of tools, as the engine
// reports it: every tool listed, none called, lint on them.
func staticReport(lint []report.Lint, tools ...string) *report.Report {
	rep := &report.Report{Static: true, Config: report.Settings{NoCalls: true}, Lint: lint}
	for _, n := range tools {
		rep.Tools = append(rep.Tools, report.Tool{Name: n, SkipReason: "not called: --no-calls (static audit)"})
	}
	return rep
}

func TestStaticGradedOnSchemaAlone(t *testing.T) {
	// a: 2 errors (80), b: 1 warning (96): mean 88, B.
	rep := staticReport([]report.Lint{
		{Code: "x", Severity: report.SeverityError, Tool: "a"},
		{Code: "y", Severity: report.SeverityError, Tool: "a"},
		{Code: "z", Severity: report.SeverityWarning, Tool: "b"},
	}, "a", "b")
	Apply(rep)
	if !rep.Graded || rep.Score == nil || *rep.Score != 88 || *rep.Grade != "B" {
		t.Fatalf("graded %v score %v grade %v caps %+v; want B 88 from Schema", rep.Graded, rep.Score, rep.Grade, rep.Caps)
	}
	for _, f := range formulas {
		d := rep.Dimensions[f.Dimension]
		if f.Dimension == Schema {
			if d.Score == nil || *d.Score != 88 {
				t.Errorf("schema = %+v, want 88", d)
			}
			continue
		}
		if d.Score != nil || d.Reason != "not measured: --no-calls, no call was made" {
			t.Errorf("%s = %+v, want not measured: --no-calls", f.Dimension, d)
		}
	}
	// No cap that needs a call: no "no tested tool is confirmed".
	if len(rep.Caps) != 0 {
		t.Errorf("caps = %+v, want none", rep.Caps)
	}
	if u := Untested(rep); u != report.StaticLabel {
		t.Errorf("Untested = %q, want %q", u, report.StaticLabel)
	}
}

func TestStaticCapsThatNeedNoCall(t *testing.T) {
	// A protocol violation outside any call (a banner on stdout during
	// discovery) is seen by a static audit too, and caps it at D.
	rep := staticReport(nil, "a")
	rep.ServerViolationCount = 1
	Apply(rep)
	if !rep.Graded || *rep.Score != 100 || *rep.Grade != "D" {
		t.Fatalf("score %v grade %v caps %+v, want 100 capped to D", rep.Score, rep.Grade, rep.Caps)
	}
}

func TestStaticWithoutToolsIsNotGraded(t *testing.T) {
	rep := staticReport(nil)
	Apply(rep)
	if rep.Graded || rep.Score != nil || len(rep.Caps) != 1 || rep.Caps[0].Grade != NotGraded || !strings.Contains(rep.Caps[0].Reason, "listed no tools") {
		t.Fatalf("graded %v caps %+v, want not graded: no tools", rep.Graded, rep.Caps)
	}
}

func TestStaticInterruptedIsNotGraded(t *testing.T) {
	rep := staticReport(nil, "a")
	rep.Interrupted, rep.EndedEarly = true, "interrupted"
	Apply(rep)
	if rep.Graded {
		t.Fatalf("an interrupted static audit was graded: %+v", rep.Caps)
	}
}

func TestStaticGates(t *testing.T) {
	rep := staticReport([]report.Lint{{Code: "x", Severity: report.SeverityError, Tool: "a"}}, "a", "b")
	Apply(rep) // a 90, b 100: 95
	if res := Check(rep, Gates{FailOn: DefaultFailOn(), Default: true}); !res.Passed {
		t.Errorf("default gate: %v; a static audit calls nothing on purpose, it must not miss nothing-tested", res.Failures)
	}
	floor := 96
	if res := Check(rep, Gates{FailUnder: &floor}); res.Passed || !strings.Contains(res.Failures[0], "score 95 is under fail-under 96") {
		t.Errorf("fail-under 96: %+v, want missed on the Schema score 95", res)
	}
	floor = 95
	if res := Check(rep, Gates{FailUnder: &floor}); !res.Passed {
		t.Errorf("fail-under 95: %v, want passed", res.Failures)
	}
	if res := Check(rep, Gates{FailUnderDim: map[string]int{"robustness": 50}}); res.Passed || !strings.Contains(res.Failures[0], "robustness was not measured (--no-calls, no call was made)") {
		t.Errorf("fail-under-robustness: %+v, want missed: not measured under --no-calls", res)
	}
}
