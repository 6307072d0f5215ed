package render

import "github.com/mcp-fuzz/mcp-fuzz/pkg/report"

// recommendedFix is what to do about the findings of one code: the
// "Recommended fixes" of the Markdown report and the top fixes of the
// terminal summary.
type recommendedFix struct {
	Title    string // "Server crashed"
	Code     string // "crash"
	Severity report.Severity
	Count    string // "12 findings in 2 tools"
	Fix      string // the code's advice
}

// recommendedFixes returns one fix per finding code of rep, worst first
// (see [countCodes]). The text is the report's and the catalogue's:
// escape it for the format.
func recommendedFixes(rep *report.Report) []recommendedFix {
	var out []recommendedFix
	for _, c := range countCodes(rep.Findings) {
		d := report.DescribeCode(c.Code)
		out = append(out, recommendedFix{Title: d.Title, Code: c.Code, Severity: c.Severity, Count: countText(c), Fix: d.Fix})
	}
	return out
}
