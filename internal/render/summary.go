package render

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/render/escape"
	"github.com/mcp-fuzz/mcp-fuzz/internal/score"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// TerminalOptions lay out [TerminalSummary].
type TerminalOptions struct {
	// Colour turns on ANSI colour.
	Colour bool
	// Width is the terminal's width in columns (0: unknown); the summary
	// is laid out for [TerminalWidth] of it.
	Width int
	// Outputs are the files the run wrote (-o), which the summary's last
	// line names as the full report.
	Outputs []string
}

// How much of each list the summary shows; the full report has the rest.
const (
	summaryGroups    = 10 // finding groups (tool and code)
	summaryFixes     = 3
	summaryReasons   = 3 // distinct reasons tools were not called
	summaryToolNames = 3 // tool names per reason
	summaryNotes     = 3 // discovery notes
)

// TerminalSummary renders rep as the summary mcp-fuzz prints at the end of
// a run: the target and server, the grade with the reason for it, the
// dimensions, the findings grouped by tool and code (worst first), the
// top fixes, one line per kind of check, and where the full report is.
// Every line fits the width (see [TerminalWidth]): longer text is cut with
// "…" or wrapped. The cases and the reproducers are left to [Terminal]
// (--verbose) and the files. ANSI colour is used only when o.Colour is
// true; text from the report never carries escape sequences either way.
func TerminalSummary(rep *report.Report, o TerminalOptions) string {
	s := &summaryWriter{w: TerminalWidth(o.Width), p: ansi(o.Colour)}
	s.header(rep)
	s.grade(rep)
	s.dimensions(rep)
	s.findings(rep)
	s.fixes(rep)
	s.checks(rep)
	s.tools(rep)
	s.footer(rep, o.Outputs)
	// A wrapped line can start with server text: no such line may read
	// as a workflow command in an Actions step.
	return escape.WorkflowLines(s.b.String())
}

// summaryWriter writes lines of at most w columns.
type summaryWriter struct {
	b strings.Builder
	w int
	p ansi
}

// seg is a piece of a line: clean text (escaped already) and its style.
type seg struct{ style, text string }

func plain(text string) seg { return seg{text: text} }

// line writes segs as one line, cut with "…" where it would pass the
// width. The cut is made in the clean text, before any colour is added,
// so it never splits an escape sequence.
func (s *summaryWriter) line(segs ...seg) {
	total := 0
	for _, sg := range segs {
		total += columns(sg.text)
	}
	rem := s.w
	for _, sg := range segs {
		text := sg.text
		if total > s.w {
			cw := columns(text)
			if cw >= rem {
				text = strings.TrimRight(cells.Truncate(text, rem-1, ""), " ") + escape.Ellipsis
				s.b.WriteString(s.p.paint(sg.style, text))
				break
			}
			rem -= cw
		}
		s.b.WriteString(s.p.paint(sg.style, text))
	}
	s.b.WriteString("\n")
}

// maxWrapLines is how many lines [summaryWriter.wrap] writes at most; a
// longer text is cut with "…" (the full report has it whole).
const maxWrapLines = 6

// wrap writes text in lines that fit the width: the first after prefix,
// the others after as many spaces as prefix is wide; at most maxWrapLines
// of them, whatever the length of text (a server's 100,000-character
// message is cut before it is wrapped, so the work is bounded too).
func (s *summaryWriter) wrap(prefix seg, style, text string) {
	indent := strings.Repeat(" ", columns(prefix.text))
	w := max(s.w-columns(prefix.text), 1)
	limit := w * maxWrapLines
	// Runes first (cheap, and bounds the clusters of combining marks a
	// column count does not see), then columns.
	text = escape.Terminal(text, 4*limit)
	if columns(text) > limit {
		text = cells.Truncate(text, limit, escape.Ellipsis)
	}
	lines := wrapText(text, w)
	if len(lines) > maxWrapLines {
		lines = lines[:maxWrapLines]
		lines[maxWrapLines-1] = strings.TrimRight(cells.Truncate(lines[maxWrapLines-1], w-1, ""), " ") + escape.Ellipsis
	}
	for i, l := range lines {
		p := prefix
		if i > 0 {
			p = plain(indent)
		}
		s.line(p, seg{style, l})
	}
}

func (s *summaryWriter) blank() { s.b.WriteString("\n") }

// header: the run, the server and its era, the target, what was run.
func (s *summaryWriter) header(rep *report.Report) {
	name := escape.Terminal(rep.Server.Name, nameMax)
	if name == "" {
		name = "unnamed server"
	}
	if v := escape.Terminal(rep.Server.Version, 40); v != "" {
		name += " " + v
	}
	era := ""
	if rep.Server.Era != "" {
		era = ", " + escape.Terminal(rep.Server.Era, 20) + " era"
	}
	s.line(plain("server  "), seg{ansiBold, name}, plain(fmt.Sprintf(" (protocol %s%s, %s)", escape.Terminal(orDash(rep.Server.ProtocolVersion), 20), era,
		escape.Terminal(orDash(rep.Target.Transport), 40))))
	if target := orText(rep.Target.URL, rep.Target.Command); target != "" {
		s.line(plain("target  " + escape.Terminal(target, 0)))
	}
	if c := containmentShort(rep); c != "" {
		s.wrap(plain("box     "), "", escape.Terminal(c, 0))
	}
	if rep.Run != nil && rep.Run.Warning != "" {
		s.wrap(seg{ansiYellow + ansiBold, "warning: "}, "", escape.Terminal(rep.Run.Warning, 0))
	}
	if rep.Server.EraReason != "" {
		s.wrap(plain("era     "), "", escape.Terminal(rep.Server.Era, 20)+": "+escape.Terminal(rep.Server.EraReason, 0))
	}
	sum := rep.Summary
	s.line(plain(fmt.Sprintf("run     %s tested, %d skipped · %s · seed %d · %s s · mcp-fuzz %s", plural(sum.ToolsTested, "tool", "tools"), sum.ToolsSkipped,
		plural(sum.Cases, "case", "cases"), rep.Seed, seconds(float64(rep.DurationMs)), escape.Terminal(orDash(rep.Version), 40))))
	if line := verdictLine(sum); line != "none" {
		// With no case run (--no-calls, nothing selected) the line above
		// already says "0 cases": a lone "none" under it says nothing more.
		s.wrap(plain("        "), ansiDim, line)
	}
	for i, n := range rep.Discovery.Notes {
		if i == summaryNotes {
			s.line(plain(fmt.Sprintf("note    and %d more (see the full report)", len(rep.Discovery.Notes)-i)))
			break
		}
		s.line(plain("note    " + escape.Terminal(n, 0)))
	}
	if line := eraLine(rep, escape.Terminal); line != "" {
		s.line(plain("eras: " + line))
	}
	for _, n := range eraNotes(rep.EraComparison) {
		s.wrap(seg{ansiYellow + ansiBold, "eras note: "}, "", escape.Terminal(n, 0))
	}
	if rep.EndedEarly != "" {
		s.wrap(seg{ansiYellow + ansiBold, "ended early: "}, "", escape.Terminal(rep.EndedEarly, 0))
	}
}

// grade: the grade and score, the reason for the grade in one line, and
// the critical callout.
func (s *summaryWriter) grade(rep *report.Report) {
	s.blank()
	share := ""
	if u := score.Untested(rep); u != "" {
		share = "   (" + u + ")"
	}
	if !rep.Graded || rep.Score == nil {
		s.line(plain("  "), seg{ansiBold, score.NotGraded}, plain(share))
	} else {
		grade := "-"
		if rep.Grade != nil {
			grade = escape.Terminal(*rep.Grade, 20)
		}
		capped := ""
		if l := cappedFrom(rep); l != "" {
			capped = " (capped from " + l + ")"
		}
		s.line(plain("  Grade "), seg{ansiBold + gradeStyle(grade), grade}, plain(fmt.Sprintf("%s   score %d/100%s", capped, *rep.Score, share)))
	}
	if why := gradeReason(rep); why != "" {
		s.wrap(seg{ansiDim, "  why: "}, "", escape.Terminal(why, 0))
	}
	if len(rep.Critical) > 0 {
		for i, c := range rep.Critical {
			label := "  CRITICAL "
			if i > 0 {
				label = "           "
			}
			s.line(seg{ansiRed + ansiBold, label}, seg{ansiRed, "! "}, plain(escape.Terminal(c, 0)))
		}
	}
}

// gradeReason says in one line why the report has its grade: the cap that
// set it (and how many more there are), else the weakest dimension. The
// text is the report's: escape it.
func gradeReason(rep *report.Report) string {
	more := func(n int) string {
		if n <= 0 {
			return ""
		}
		return fmt.Sprintf(" (and %s)", plural(n, "more cap", "more caps"))
	}
	if !rep.Graded || rep.Score == nil {
		for _, c := range rep.Caps {
			if c.Grade == score.NotGraded {
				return c.Reason
			}
		}
		return ""
	}
	if rep.Grade != nil {
		// The binding cap: the one whose grade the report has, the worst.
		for _, c := range rep.Caps {
			if c.Grade == *rep.Grade {
				return "at most " + c.Grade + ": " + c.Reason + more(len(rep.Caps)-1)
			}
		}
	}
	var weakest *score.Formula
	var low, measured int
	for _, d := range dimensions(rep) {
		dim, ok := rep.Dimensions[d.Dimension]
		if !ok || dim.Score == nil || d.Weight == 0 {
			continue
		}
		measured++
		if weakest == nil || *dim.Score < low {
			weakest, low = &d, *dim.Score
		}
	}
	if weakest == nil {
		return "the weighted mean of the dimensions" + more(len(rep.Caps))
	}
	if measured == 1 {
		// A static audit (--no-calls): there is no mean to speak of.
		return fmt.Sprintf("the %s score alone, the one dimension measured%s", weakest.Title, more(len(rep.Caps)))
	}
	return fmt.Sprintf("the weighted mean of the dimensions; the weakest is %s (%d)%s", weakest.Title, low, more(len(rep.Caps)))
}

// dimensions: one row each, the reason cut to the width.
func (s *summaryWriter) dimensions(rep *report.Report) {
	s.blank()
	s.line(plain("  "), seg{ansiBold, "Dimensions"})
	for _, d := range dimensions(rep) {
		dim := rep.Dimensions[d.Dimension]
		points := seg{ansiDim, "  —"}
		if dim.Score != nil {
			points = seg{scoreStyle(*dim.Score), fmt.Sprintf("%3d", *dim.Score)}
		}
		weight := "   "
		if d.Weight > 0 {
			weight = fmt.Sprintf("×%-2d", d.Weight)
		}
		s.line(plain(fmt.Sprintf("    %-14s ", escape.Terminal(d.Title, 14))), points, plain(" "), seg{ansiDim, weight},
			plain("  "+escape.Terminal(dim.Reason, 0)))
	}
}

// findingGroup is the findings of one code on one tool.
type findingGroup struct {
	Tool, Code string
	Severity   report.Severity
	Count      int
	First      report.Finding // the worst, as [sortedFindings] orders them
}

// groupFindings groups findings by tool and code, worst first: by
// severity, the code's rank, then the most findings.
func groupFindings(fs []report.Finding) []findingGroup {
	var out []findingGroup
	for _, g := range groupByToolCode(fs) {
		first := g.findings[0]
		out = append(out, findingGroup{Tool: g.tool, Code: g.code, Severity: first.Severity, Count: len(g.findings), First: first})
	}
	slices.SortStableFunc(out, func(a, b findingGroup) int {
		return cmp.Or(
			cmp.Compare(a.Severity.Rank(), b.Severity.Rank()),
			cmp.Compare(report.CodeRank(a.Code), report.CodeRank(b.Code)),
			-cmp.Compare(a.Count, b.Count),
			cmp.Compare(a.Tool, b.Tool),
		)
	})
	return out
}

// findings: one line per tool and code, worst first, with the first
// finding's message; at most summaryGroups of them.
func (s *summaryWriter) findings(rep *report.Report) {
	if len(rep.Findings) == 0 {
		return
	}
	groups := groupFindings(rep.Findings)
	s.blank()
	s.line(plain("  "), seg{ansiBold, "Findings"}, plain(fmt.Sprintf(" (%d; by tool and code, worst first)", len(rep.Findings))))
	shown := groups[:min(len(groups), summaryGroups)]
	// Column widths: the longest tool and code shown, within bounds that
	// leave room for the message.
	toolW, codeW := 6, 4
	for _, g := range shown {
		toolW = max(toolW, columns(groupTool(g)))
		codeW = max(codeW, columns(escape.Terminal(g.Code, 0))+1+len(fmt.Sprint(g.Count)))
	}
	toolW, codeW = min(toolW, 22), min(codeW+1, 26)
	for _, g := range shown {
		code := fmt.Sprintf("%s ×%d", fitText(escape.Terminal(g.Code, 0), codeW-2-len(fmt.Sprint(g.Count))), g.Count)
		s.line(plain("    "), seg{severityStyle(g.Severity), padText(escape.Terminal(string(g.Severity), 8), 8)},
			plain(" "), seg{ansiCyan, padText(fitText(groupTool(g), toolW), toolW)},
			plain(" "), seg{ansiBold, padText(code, codeW)},
			plain(" "+escape.Terminal(groupMessage(g.First), 0)))
	}
	if rest := groups[len(shown):]; len(rest) > 0 {
		n := 0
		for _, g := range rest {
			n += g.Count
		}
		s.line(plain(fmt.Sprintf("    and %s (%s): see the full report", plural(len(rest), "more group", "more groups"), plural(n, "finding", "findings"))))
	}
}

// groupMessage is what the message of f adds to its code's opening
// words ("the server crashed: "), which the code column says already.
func groupMessage(f report.Finding) string {
	opening := report.DescribeCode(f.Code).Message
	if rest, ok := strings.CutPrefix(f.Message, opening); ok && opening != "" && strings.TrimLeft(rest, " :") != "" {
		return strings.TrimLeft(rest, " :")
	}
	return f.Message
}

// groupTool names the tool of a finding group, "(server)" for none.
func groupTool(g findingGroup) string {
	if g.Tool == "" {
		return "(server)"
	}
	return escape.Terminal(g.Tool, 0)
}

// fixes: the top recommended fixes, as the Markdown report has them all.
func (s *summaryWriter) fixes(rep *report.Report) {
	fixes := recommendedFixes(rep)
	if len(fixes) == 0 {
		return
	}
	s.blank()
	s.line(plain("  "), seg{ansiBold, "Top fixes"})
	for i, f := range fixes[:min(len(fixes), summaryFixes)] {
		text := fmt.Sprintf("%s (%s, %s): %s", escape.Terminal(f.Title, nameMax), escape.Terminal(f.Code, 40), f.Count, escape.Terminal(f.Fix, 0))
		s.wrap(plain(fmt.Sprintf("    %d. ", i+1)), "", text)
	}
	if n := len(fixes) - summaryFixes; n > 0 {
		s.line(plain(fmt.Sprintf("    and %s in the full report", plural(n, "more fix", "more fixes"))))
	}
}

// checks: one line each for the protocol, concurrency and lifecycle
// checks that ran (or why the protocol checks did not).
func (s *summaryWriter) checks(rep *report.Report) {
	parts := checkParts(rep)
	switch {
	case len(parts) == 0:
	case len(protocolChecks(rep)) > 0 && rep.Server.Era != "":
		parts[0] += " (" + rep.Server.Era + " era)"
	case !rep.Static && rep.Server.Era == "legacy":
		// The era line above says why the 2025 era was spoken.
		parts[0] = "protocol checks: none in the 2025 era (--era modern requires the 2026-07-28 revision)"
	}
	if rep.Lifecycle != nil {
		line := "lifecycle checks (--sequential): "
		if cs := lifecycleChecks(rep); len(cs) > 0 {
			line += statusCounts(cs) + "; "
		}
		parts = append(parts, line+rep.Lifecycle.Summary)
	}
	if len(parts) == 0 {
		return
	}
	s.blank()
	for _, p := range parts {
		s.line(plain("  "), plain(escape.Terminal(p, 0)))
	}
}

// tools: the tools not called, grouped by reason, the learned valid calls
// and the metadata problems, a line or so each.
func (s *summaryWriter) tools(rep *report.Report) {
	var reasons []string
	names := map[string][]string{}
	untested := 0
	for _, t := range rep.Tools {
		if t.Tested {
			continue
		}
		untested++
		r := orText(t.SkipReason, "no reason recorded")
		if _, ok := names[r]; !ok {
			reasons = append(reasons, r)
		}
		names[r] = append(names[r], escape.Terminal(t.Name, nameMax))
	}
	var learned []string
	for _, t := range rep.Tools {
		for _, c := range t.Cases {
			if c.Kind == report.KindValid && c.LearnedFrom != "" {
				learned = append(learned, escape.Terminal(t.Name, nameMax)+" (from "+escape.Terminal(c.LearnedFrom, nameMax)+")")
			}
		}
	}
	if untested == 0 && len(learned) == 0 && len(rep.Lint) == 0 {
		return
	}
	s.blank()
	if untested > 0 {
		s.line(plain("  "), seg{ansiBold, "Tools not called"}, plain(fmt.Sprintf(" (%d)", untested)))
		for i, r := range reasons {
			if i == summaryReasons {
				s.line(plain(fmt.Sprintf("    and %d more for other reasons (see the full report)", len(reasons)-i)))
				break
			}
			s.wrap(plain("    "), "", nameList(names[r], summaryToolNames)+": "+escape.Terminal(r, 0))
		}
	}
	if len(learned) > 0 {
		s.line(plain("  "), seg{ansiBold, "Learned valid calls"}, plain(" (synthetic arguments errored): "+nameList(learned, summaryToolNames)))
	}
	if n := len(rep.Lint); n > 0 {
		s.line(plain(fmt.Sprintf("  Metadata lint: %s (see the full report)", lintCounts(rep.Lint))))
	}
}

// nameList joins at most n names, "a, b, c and 4 more".
func nameList(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:n], ", ") + fmt.Sprintf(" and %d more", len(names)-n)
}

// footer says where the full report is: the files written, or how to get
// one.
func (s *summaryWriter) footer(rep *report.Report, outputs []string) {
	s.blank()
	if len(outputs) > 0 {
		var files []string
		for _, o := range outputs {
			files = append(files, escape.Terminal(o, 0))
		}
		s.wrap(plain("  Full report: "), "", strings.Join(files, ", ")+"; every case and reproducer here: --verbose")
		return
	}
	s.wrap(plain("  "), "", "Every case and reproducer: --verbose · the full report: -o report.md")
}
