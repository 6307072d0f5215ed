package action

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/render/escape"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// worst returns at most n findings worth an annotation, worst first, in
// report order within a severity.
func worst(findings []report.Finding, n int) []report.Finding {
	var out []report.Finding
	for _, f := range findings {
		if f.Severity.Rank() <= report.SeverityWarning.Rank() {
			out = append(out, f)
		}
	}
	slices.SortStableFunc(out, func(a, b report.Finding) int {
		return cmp.Compare(a.Severity.Rank(), b.Severity.Rank())
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// annotate emits ::error / ::warning annotations for the worst findings.
func (r *runner) annotate(rep *report.Report) {
	for _, f := range worst(rep.Findings, MaxAnnotations) {
		title := "mcp-fuzz: " + f.Code
		switch {
		case f.Tool != "":
			title += " in " + escape.Terminal(f.Tool, 80)
		case f.CaseID == "":
			// A finding of the server's, outside any tool call.
			title += " in the server"
		}
		a := r.gh.WithFieldsMap(map[string]string{"title": title})
		msg := escape.Terminal(f.Message, 500)
		if f.CaseID != "" {
			msg += fmt.Sprintf(" (case %s)", escape.Terminal(f.CaseID, 120))
		}
		emit := a.Warningf
		if f.Severity != report.SeverityWarning {
			emit = a.Errorf
		}
		emit("%s", msg)
	}
}
