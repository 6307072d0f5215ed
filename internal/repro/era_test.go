package repro

import (
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// TestEraDifferenceReplaysInEachEra: a compacted case's reproducer replays
// it with --era, once per era, and SetReportPath names the report in both.
func TestEraDifferenceReplaysInEachEra(t *testing.T) {
	t.Parallel()
	c := report.Case{ID: "t/oversize/q", Kind: report.KindOversize, Verdict: report.Rejected, ArgumentsDigest: &report.ArgumentsDigest{Bytes: 70000, SHA256: "ab"}}
	rep := func(era string) *report.Report {
		r := &report.Report{Server: report.Server{Era: era, ProtocolVersion: "v"}, Tools: []report.Tool{{Name: "t", Cases: []report.Case{c}}}}
		return r
	}
	target := Target{Command: []string{"srv"}}
	d := report.EraDifference{Tool: "t", CaseID: c.ID}
	r := eraReproducer(EraAudit{Era: report.EraModern, Rep: rep(report.EraModern), Target: target}, EraAudit{Era: report.EraLegacy, Rep: rep(report.EraLegacy), Target: target}, d)
	want := "echo '# modern era (v)'; ( mcp-fuzz replay REPORT.json t/oversize/q --era modern -- srv ); echo '# legacy era (v)'; ( mcp-fuzz replay REPORT.json t/oversize/q --era legacy -- srv )"
	if r.Shell != want {
		t.Errorf("reproducer\n%s\nwant\n%s", r.Shell, want)
	}
	full := &report.Report{Findings: []report.Finding{{Reproducer: r}}}
	SetReportPath(full, "out/r.json")
	if got := full.Findings[0].Reproducer.Shell; strings.Count(got, "mcp-fuzz replay out/r.json t/oversize/q --era") != 2 || strings.Contains(got, report.ReportPlaceholder) {
		t.Errorf("after SetReportPath: %s", got)
	}
}
