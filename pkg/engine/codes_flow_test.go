package engine

import (
	"slices"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/eracompare"
	"github.com/mcp-fuzz/mcp-fuzz/internal/render"
	"github.com/mcp-fuzz/mcp-fuzz/internal/render/escape"
	"github.com/mcp-fuzz/mcp-fuzz/internal/repro"
	"github.com/mcp-fuzz/mcp-fuzz/internal/score"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// A finding code is one row of report.Codes: from that row alone, a case
// with the verdict or flag (or, for the era code, judged otherwise in the
// other era) becomes a finding with the row's severity and
// message, the Markdown report titles it and gives its fix, SARIF has a rule
// for it, and --fail-on gates on it. Nothing else needs to change, which this
// test checks for every row, present and future.
func TestEveryCodeFlowsFromItsRow(t *testing.T) {
	parallel(t)
	cfg := Config{Command: []string{"srv"}}
	for _, code := range report.Codes() {
		t.Run(code.Name, func(t *testing.T) {
			c := report.Case{ID: "t/valid", Kind: report.KindValid, Verdict: report.OK, Arguments: []byte(`{}`), Detail: "the detail"}
			switch {
			case code.Flag:
				c.Flags = []string{code.Name}
			case !code.Era:
				c.Verdict = report.Verdict(code.Name)
			}
			wantID := "t/valid#" + code.Name
			rep := &report.Report{Server: report.Server{Era: EraModern}, Tools: []report.Tool{{Name: "t", Tested: true, Cases: []report.Case{c}}}}
			if code.Check {
				rep.Tools[0].Cases[0].Verdict = report.OK
				rep.Checks = []report.Check{{ID: "envelope/x", Status: report.CheckFail, Code: code.Name, Title: "t", Detail: "the detail", Request: []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)}}
				wantID = "protocol/envelope/x#" + code.Name
			}
			rep.Summary = report.Summarize(rep.Tools)
			rep.Findings = findings(rep, cfg)
			if code.Era {
				// The other era's audit judged the same case otherwise.
				other := *rep
				other.Server.Era = EraLegacy
				other.Tools = []report.Tool{{Name: "t", Tested: true, Cases: []report.Case{c}}}
				other.Tools[0].Cases[0].Verdict = report.Errored
				_, diffs := eracompare.Compare(rep, &other)
				rep.Findings = append(rep.Findings, repro.EraFindings(repro.EraAudit{Era: EraModern, Rep: rep, Target: reproTarget(cfg)}, repro.EraAudit{Era: EraLegacy, Rep: &other, Target: reproTarget(cfg)}, diffs)...)
			}
			rep.Normalize()
			score.Apply(rep)

			i := slices.IndexFunc(rep.Findings, func(f report.Finding) bool { return f.Code == code.Name })
			if i < 0 {
				t.Fatalf("no finding for the case: %+v", rep.Findings)
			}
			f := rep.Findings[i]
			if f.Severity != code.Severity || !strings.HasPrefix(f.Message, code.Message) || f.ID != wantID {
				t.Errorf("finding %+v, want severity %s and a message starting %q", f, code.Severity, code.Message)
			}
			md := render.Markdown(rep)
			if !strings.Contains(md, escape.MarkdownInline(code.Title, 0)) || !strings.Contains(md, escape.MarkdownInline(code.Fix, 0)) {
				t.Errorf("the Markdown report lacks the title %q or the fix of %s", code.Title, code.Name)
			}
			sarif, err := render.SARIF(rep, render.SARIFOptions{})
			if err != nil || !strings.Contains(string(sarif), `"id": "`+render.SARIFRuleID(code.Name)+`"`) {
				t.Errorf("SARIF has no rule %s (err %v)", render.SARIFRuleID(code.Name), err)
			}
			kinds, err := score.ParseFailOn(code.FailOn)
			if err != nil {
				t.Fatalf("--fail-on %s: %v", code.FailOn, err)
			}
			if res := score.Check(rep, score.Gates{FailOn: kinds}); res.Passed {
				t.Errorf("--fail-on %s passed a report with that finding", code.FailOn)
			}
		})
	}
}
