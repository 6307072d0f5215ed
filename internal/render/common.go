package render

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/score"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// dimensions returns the scored dimensions in display order (from
// [score.Formulas]), then any others the report carries, sorted by key
// (weight 0: unknown).
func dimensions(rep *report.Report) []score.Formula {
	out := score.Formulas()
	var extra []score.Formula
	for k := range rep.Dimensions {
		if !slices.ContainsFunc(out, func(d score.Formula) bool { return d.Dimension == k }) {
			extra = append(extra, score.Formula{Dimension: k, Title: k})
		}
	}
	slices.SortFunc(extra, func(a, b score.Formula) int { return cmp.Compare(a.Dimension, b.Dimension) })
	return append(out, extra...)
}

// sortedFindings returns the findings worst first, then by tool, case and
// code, without changing rep.
func sortedFindings(fs []report.Finding) []report.Finding {
	out := slices.Clone(fs)
	slices.SortStableFunc(out, func(a, b report.Finding) int {
		return cmp.Or(
			cmp.Compare(a.Severity.Rank(), b.Severity.Rank()),
			cmp.Compare(report.CodeRank(a.Code), report.CodeRank(b.Code)),
			cmp.Compare(a.Tool, b.Tool),
			cmp.Compare(a.CaseID, b.CaseID),
			cmp.Compare(a.Code, b.Code),
		)
	})
	return out
}

// toolGroup is the findings of one tool ("" for the server as a whole).
type toolGroup struct {
	Tool     string
	Findings []report.Finding
}

// groupByTool groups findings by tool, the group with the worst finding
// first (ties: more findings first, then name).
func groupByTool(fs []report.Finding) []toolGroup {
	var groups []toolGroup
	index := map[string]int{}
	for _, f := range sortedFindings(fs) {
		i, ok := index[f.Tool]
		if !ok {
			i = len(groups)
			index[f.Tool] = i
			groups = append(groups, toolGroup{Tool: f.Tool})
		}
		groups[i].Findings = append(groups[i].Findings, f)
	}
	slices.SortStableFunc(groups, func(a, b toolGroup) int {
		return cmp.Or(
			cmp.Compare(a.Findings[0].Severity.Rank(), b.Findings[0].Severity.Rank()),
			-cmp.Compare(len(a.Findings), len(b.Findings)),
			cmp.Compare(a.Tool, b.Tool),
		)
	})
	return groups
}

// codeCount is how often a finding code occurred, with its worst severity.
type codeCount struct {
	Code     string
	Severity report.Severity
	Count    int
	Tools    int  // distinct tools with findings of the code
	Server   bool // a finding of the code is the server's, of no tool
}

// countCodes tallies findings by code, worst first, then most frequent.
func countCodes(fs []report.Finding) []codeCount {
	var out []codeCount
	index := map[string]int{}
	tools := map[string]map[string]bool{}
	for _, f := range fs {
		i, ok := index[f.Code]
		if !ok {
			i = len(out)
			index[f.Code] = i
			out = append(out, codeCount{Code: f.Code, Severity: f.Severity})
			tools[f.Code] = map[string]bool{}
		}
		out[i].Count++
		if f.Tool != "" {
			tools[f.Code][f.Tool] = true
		} else {
			out[i].Server = true
		}
		if f.Severity.Rank() < out[i].Severity.Rank() {
			out[i].Severity = f.Severity
		}
	}
	for i := range out {
		out[i].Tools = len(tools[out[i].Code])
	}
	slices.SortStableFunc(out, func(a, b codeCount) int {
		return cmp.Or(
			cmp.Compare(a.Severity.Rank(), b.Severity.Rank()),
			cmp.Compare(report.CodeRank(a.Code), report.CodeRank(b.Code)),
			-cmp.Compare(a.Count, b.Count),
			cmp.Compare(a.Code, b.Code),
		)
	})
	return out
}

// cappedFrom is the letter the score alone would earn when a cap lowered
// the grade below it ("B" for a D 80), else "".
func cappedFrom(rep *report.Report) string {
	if !rep.Graded || rep.Score == nil || rep.Grade == nil {
		return ""
	}
	if l := score.Letter(*rep.Score); l != *rep.Grade {
		return l
	}
	return ""
}

// gradeText is "C 81", "81" or "not graded".
func gradeText(rep *report.Report) string { return gradeOf(rep.Graded, rep.Score, rep.Grade) }

// gradeOf is [gradeText] of a graded flag, score and grade: a report's, or
// the other era's of an [report.EraComparison].
func gradeOf(graded bool, points *int, grade *string) string {
	switch {
	case !graded || points == nil:
		return score.NotGraded
	case grade == nil:
		return strconv.Itoa(*points)
	}
	return fmt.Sprintf("%s %d", *grade, *points)
}

// findCase returns the case of finding f, if the report holds it: for a
// failure seen only in the other era of an --era both report (an id
// ending "@legacy"), that era's case.
func findCase(rep *report.Report, f report.Finding) (report.Case, bool) {
	if cmp := rep.EraComparison; cmp != nil && strings.HasSuffix(f.ID, "@"+cmp.Era) {
		for _, ef := range cmp.Failures {
			if ef.Tool == f.Tool && ef.Case.ID == f.CaseID {
				return ef.Case, true
			}
		}
		return report.Case{}, false
	}
	for _, t := range rep.Tools {
		if t.Name != f.Tool {
			continue
		}
		for _, c := range t.Cases {
			if c.ID == f.CaseID {
				return c, true
			}
		}
	}
	return report.Case{}, false
}

// seconds formats milliseconds as seconds.
// timingText says how a valid call's timed runs went, "p50 812 ms, p95
// 900 ms over 3 runs", with the timing's note; "" for a case without
// timing. The note may quote server text: escape it for the format.
func timingText(c report.Case) string {
	t := c.Timing
	if t == nil {
		return ""
	}
	s := fmt.Sprintf("p50 %s ms, p95 %s ms over %s", msText(t.P50Ms), msText(t.P95Ms), plural(t.Runs, "run", "runs"))
	if t.Note != "" {
		s += " (" + t.Note + ")"
	}
	return s
}

// msText is a duration in milliseconds, to 0.1 ms under 10 ms.
func msText(ms float64) string {
	if ms < 10 {
		return strconv.FormatFloat(ms, 'f', 1, 64)
	}
	return strconv.FormatFloat(ms, 'f', 0, 64)
}

func seconds(ms float64) string { return strconv.FormatFloat(ms/1000, 'f', 3, 64) }

// plural returns "1 case" or "2 cases".
// lintCounts says how many lint entries of each severity there are, worst
// first and only those there are: "2 warnings, 5 info". A metadata note of
// severity info is no problem, so the summaries count by severity rather
// than calling every entry one.
func lintCounts(lint []report.Lint) string {
	n := map[report.Severity]int{}
	for _, l := range lint {
		n[l.Severity]++
	}
	var parts []string
	for _, c := range []struct {
		sev       report.Severity
		one, many string
	}{
		{report.SeverityCritical, "critical", "critical"},
		{report.SeverityError, "error", "errors"},
		{report.SeverityWarning, "warning", "warnings"},
		{report.SeverityInfo, "info", "info"},
	} {
		if n[c.sev] > 0 {
			parts = append(parts, plural(n[c.sev], c.one, c.many))
		}
	}
	if len(parts) == 0 {
		return plural(len(lint), "entry", "entries")
	}
	return strings.Join(parts, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// placeholderNote explains [report.ReportPlaceholder] when a reproducer
// uses it, and is empty otherwise.
func placeholderNote(shell string) string {
	if !strings.Contains(shell, " "+report.ReportPlaceholder+" ") {
		return ""
	}
	return report.ReportPlaceholder + " stands for this run's JSON report: run again with -o report.json to write one"
}

// argumentsText shows a case's arguments: their JSON, or the digest of
// arguments the report compacted.
func argumentsText(c report.Case) string {
	if c.ArgumentsDigest != nil {
		return c.ArgumentsDigest.String() + " (compacted; mcp-fuzz replay regenerates them)"
	}
	return string(c.Arguments)
}

// protocolChecks are the protocol checks of rep: its checks but the
// lifecycle ones (see [lifecycleChecks]).
func protocolChecks(rep *report.Report) []report.Check {
	var out []report.Check
	for _, c := range rep.Checks {
		if c.Group != report.CheckGroupLifecycle {
			out = append(out, c)
		}
	}
	return out
}

// lifecycleChecks are the lifecycle checks of rep (--sequential).
func lifecycleChecks(rep *report.Report) []report.Check {
	var out []report.Check
	for _, c := range rep.Checks {
		if c.Group == report.CheckGroupLifecycle {
			out = append(out, c)
		}
	}
	return out
}

// statusCounts says "2 passed, 1 failed, 0 skipped" of checks.
func statusCounts(checks []report.Check) string {
	n := map[string]int{}
	for _, c := range checks {
		n[c.Status]++
	}
	return fmt.Sprintf("%d passed, %d failed, %d skipped", n[report.CheckPass], n[report.CheckFail], n[report.CheckSkip])
}

// checkStatus is status, the word a format shows for c's status, with
// the finding code of a failed check: "fail (stale_read)".
func checkStatus(status string, c report.Check) string {
	if c.Code != "" {
		status += " (" + c.Code + ")"
	}
	return status
}

// lifecycleLine says what the lifecycle checks found ("" when they did not
// run): the groups detected, and how their checks went.
func lifecycleLine(rep *report.Report) string {
	if rep.Lifecycle == nil {
		return ""
	}
	line := "lifecycle checks (--sequential): " + rep.Lifecycle.Summary
	if cs := lifecycleChecks(rep); len(cs) > 0 {
		line += " — " + statusCounts(cs)
	}
	return line
}

// checkLine says how the protocol checks went: "12 protocol checks: 7
// passed, 4 failed, 1 skipped"; for a server audited in the legacy era
// without any, or in a static audit, why none ran; then how the
// concurrency checks went, when there were any; "" for an older report.
func checkLine(rep *report.Report) string { return strings.Join(checkParts(rep), "; ") }

// checkParts are the parts of [checkLine]: how the protocol checks went,
// or why none ran, then how the concurrency checks went, when there were
// any.
func checkParts(rep *report.Report) []string {
	if rep.Static && len(rep.Checks) == 0 {
		return []string{"protocol checks: none, a static audit (--no-calls) sends no request after discovery"}
	}
	checks := protocolChecks(rep) // the lifecycle checks have a line of their own
	var parts []string
	for _, g := range []struct {
		concurrency bool
		one, many   string
	}{{false, "protocol check", "protocol checks"}, {true, "concurrency check", "concurrency checks"}} {
		var group []report.Check
		for _, c := range checks {
			if (c.Group == report.CheckGroupConcurrency) == g.concurrency {
				group = append(group, c)
			}
		}
		switch {
		case len(group) > 0:
			parts = append(parts, plural(len(group), g.one, g.many)+": "+statusCounts(group))
		case !g.concurrency && rep.Server.Era == report.EraLegacy:
			parts = append(parts, "protocol checks: none, the server was audited in the 2025 era ("+orText(rep.Server.EraReason, "--era legacy")+"); --era modern requires the 2026-07-28 revision")
		}
	}
	return parts
}

// toolCodeGroup is the findings of one code on one tool, worst first.
type toolCodeGroup struct {
	tool, code string
	findings   []report.Finding
}

// groupByToolCode groups findings by (tool, code) in the order of their
// first finding ([sortedFindings]: worst first): one SARIF result, one
// line of the terminal summary.
func groupByToolCode(fs []report.Finding) []toolCodeGroup {
	var out []toolCodeGroup
	index := map[[2]string]int{}
	for _, f := range sortedFindings(fs) {
		k := [2]string{f.Tool, f.Code}
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			out = append(out, toolCodeGroup{tool: f.Tool, code: f.Code})
		}
		out[i].findings = append(out[i].findings, f)
	}
	return out
}

// containment is the run's containment on one line, "" for a report
// without one (an HTTP target, an older report).
func containment(rep *report.Report) string {
	if rep.Run == nil {
		return ""
	}
	return strings.Join(rep.Run.Containment, "; ")
}

// containmentShort is the run's containment in a few words, for a
// terminal (the whole list is in the JSON and Markdown reports).
func containmentShort(rep *report.Report) string {
	if rep.Run == nil {
		return ""
	}
	if rep.Run.Summary != "" {
		return rep.Run.Summary
	}
	return containment(rep)
}
