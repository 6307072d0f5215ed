package comment

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// TestSectionOfBothEras: the section of an --era both report shows one
// line with each era's version, grade and score and how many verdicts
// differ, and each difference as a finding with both verdicts.
func TestSectionOfBothEras(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("testdata", "leg-demo.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep report.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	rep.Server.Era, rep.Server.ProtocolVersion = "modern", "2026-07-28"
	score, grade := 80, "D"
	rep.EraComparison = &report.EraComparison{Era: "legacy", ProtocolVersion: "2025-11-25", Graded: true, Score: &score, Grade: &grade, Compared: 119,
		Differences: []report.EraDifference{{Tool: "echo_note", CaseID: "echo_note/null/text", Kind: "null",
			Modern: report.EraOutcome{Verdict: report.Accepted}, Legacy: report.EraOutcome{Verdict: report.Rejected}}}}
	rep.Findings = append(rep.Findings, report.Finding{ID: "echo_note/null/text#era_difference", Severity: report.SeverityError, Code: report.CodeEraDifference,
		Tool: "echo_note", CaseID: "echo_note/null/text", Message: "the server judged the same input differently in the two protocol eras: modern: accepted; legacy: rejected (-32602)"})
	rep.Normalize()
	md := Render([]SectionData{newSection("fuzz (demo)", "", &rep, MaxBodyBytes/2)})
	for _, want := range []string{
		"**Eras:** modern 2026-07-28: C 79 · legacy 2025-11-25: D 80 · 1 verdict differs (119 cases compared)",
		"era\\_difference · case echo\\_note/null/text: the server judged the same input differently in the two protocol eras: modern: accepted; legacy: rejected (-32602)",
		"**Validation differs by protocol era** (era\\_difference, error, 1 finding)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the comment lacks %q", want)
		}
	}
}
