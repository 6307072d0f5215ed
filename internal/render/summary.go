package render

import (
	"fmt"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/render/escape"
	"github.com/mcp-fuzz/mcp-fuzz/internal/render/text"
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
	m := newSummary(rep)
	m.Outputs = text.All(o.Outputs, 0)
	s := &summaryWriter{w: TerminalWidth(o.Width), p: ansi(o.Colour)}
	s.header(m)
	s.grade(m)
	s.dimensions(m)
	s.findings(m)
	s.fixes(m)
	s.checks(m)
	s.tools(m)
	s.footer(m)
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

// seg is a piece of a line: clean text (our own, or server text escaped
// by [term]) and its style.
type seg struct{ style, text string }

// plain is a piece of our own text, unstyled.
func plain(s string) seg { return seg{text: s} }

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
		t := sg.text
		if total > s.w {
			cw := columns(t)
			if cw >= rem {
				t = strings.TrimRight(cells.Truncate(t, rem-1, ""), " ") + escape.Ellipsis
				s.b.WriteString(s.p.paint(sg.style, t))
				break
			}
			rem -= cw
		}
		s.b.WriteString(s.p.paint(sg.style, t))
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
func (s *summaryWriter) wrap(prefix seg, style, body string) {
	indent := strings.Repeat(" ", columns(prefix.text))
	w := max(s.w-columns(prefix.text), 1)
	limit := w * maxWrapLines
	// Runes first (cheap, and bounds the clusters of combining marks a
	// column count does not see), then columns.
	body = escape.Terminal(body, 4*limit)
	if columns(body) > limit {
		body = cells.Truncate(body, limit, escape.Ellipsis)
	}
	lines := wrapText(body, w)
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
func (s *summaryWriter) header(m *summary) {
	sv, r := m.Server, m.Run
	era := ""
	if !sv.Era.Empty() {
		era = term.Sprintf(", %s era", sv.Era)
	}
	s.line(plain("server  "), seg{ansiBold, serverName(sv, term)}, plain(term.Sprintf(" (protocol %s%s, %s)", sv.ProtocolVersion.Or("—"), era, sv.Transport.Or("—"))))
	if !sv.Target.Empty() {
		s.line(plain("target  " + term(sv.Target)))
	}
	if !r.Containment.Empty() {
		s.wrap(plain("box     "), "", term(r.Containment))
	}
	if !r.Warning.Empty() {
		s.wrap(seg{ansiYellow + ansiBold, "warning: "}, "", term(r.Warning.Cut(0)))
	}
	if !sv.EraReason.Empty() {
		s.wrap(plain("era     "), "", term.Sprintf("%s: %s", sv.Era, sv.EraReason.Cut(0)))
	}
	s.line(plain(term.Sprintf("run     %s tested, %d skipped · %s · seed %d · %s s · mcp-fuzz %s", plural(r.Tested, "tool", "tools"), r.Skipped,
		plural(r.Cases, "case", "cases"), r.Seed, r.Seconds, r.Version.Or("—"))))
	if r.Verdicts != "none" {
		// With no case run (--no-calls, nothing selected) the line above
		// already says "0 cases": a lone "none" under it says nothing more.
		s.wrap(plain("        "), ansiDim, r.Verdicts)
	}
	if r.Security != "" {
		s.line(plain("security " + r.Security))
	}
	for i, n := range sv.Notes {
		if i == summaryNotes {
			s.line(plain(fmt.Sprintf("note    and %d more (see the full report)", len(sv.Notes)-i)))
			break
		}
		s.line(plain("note    " + term(n.Cut(0))))
	}
	if line := eraLine(r.Eras, term); line != "" {
		s.line(plain("eras: " + line))
	}
	for _, n := range r.EraNotes {
		s.wrap(seg{ansiYellow + ansiBold, "eras note: "}, "", term(n.Cut(0)))
	}
	if !r.EndedEarly.Empty() {
		s.wrap(seg{ansiYellow + ansiBold, "ended early: "}, "", term(r.EndedEarly.Cut(0)))
	}
}

// grade: the grade and score, the reason for the grade in one line, and
// the critical callout.
func (s *summaryWriter) grade(m *summary) {
	g := m.Grade
	s.blank()
	share := ""
	if g.Untested != "" {
		share = "   (" + g.Untested + ")"
	}
	if !g.Graded {
		s.line(plain("  "), seg{ansiBold, score.NotGraded}, plain(share))
	} else {
		grade := "-"
		if g.HasLetter {
			grade = term(g.Letter)
		}
		capped := ""
		if g.CappedFrom != "" {
			capped = " (capped from " + g.CappedFrom + ")"
		}
		s.line(plain("  Grade "), seg{ansiBold + gradeStyle(grade), grade}, plain(fmt.Sprintf("%s   score %d/100%s", capped, g.Score, share)))
	}
	if !g.Why.Empty() {
		s.wrap(seg{ansiDim, "  why: "}, "", term(g.Why))
	}
	for i, c := range g.Critical {
		label := "  CRITICAL "
		if i > 0 {
			label = "           "
		}
		s.line(seg{ansiRed + ansiBold, label}, seg{ansiRed, "! "}, plain(term(c.Cut(0))))
	}
}

// dimensions: one row each, the reason cut to the width.
func (s *summaryWriter) dimensions(m *summary) {
	s.blank()
	s.line(plain("  "), seg{ansiBold, "Dimensions"})
	for _, d := range m.Dimensions {
		points := seg{ansiDim, "  —"}
		if d.Score != nil {
			points = seg{scoreStyle(*d.Score), fmt.Sprintf("%3d", *d.Score)}
		}
		weight := "   "
		if d.Weight > 0 {
			weight = fmt.Sprintf("×%-2d", d.Weight)
		}
		s.line(plain(term.Sprintf("    %-14s ", d.Title.Cut(14))), points, plain(" "), seg{ansiDim, weight},
			plain("  "+term(d.Reason.Cut(0))))
	}
}

// findings: one line per tool and code, worst first, with the first
// finding's message; at most summaryGroups of them.
func (s *summaryWriter) findings(m *summary) {
	groups := m.Findings.ByCode
	if len(groups) == 0 {
		return
	}
	s.blank()
	s.line(plain("  "), seg{ansiBold, "Findings"}, plain(fmt.Sprintf(" (%d; by tool and code, worst first)", m.Findings.Count)))
	shown := groups[:min(len(groups), summaryGroups)]
	// Column widths: the longest tool and code shown, within bounds that
	// leave room for the message.
	toolW, codeW := 6, 4
	for _, g := range shown {
		toolW = max(toolW, columns(groupTool(g)))
		codeW = max(codeW, columns(term(g.Code))+1+len(fmt.Sprint(g.Count)))
	}
	toolW, codeW = min(toolW, 22), min(codeW+1, 26)
	for _, g := range shown {
		code := fmt.Sprintf("%s ×%d", fitText(term(g.Code), codeW-2-len(fmt.Sprint(g.Count))), g.Count)
		s.line(plain("    "), seg{toneStyle(g.Tone), padText(term(g.Severity), 8)},
			plain(" "), seg{ansiCyan, padText(fitText(groupTool(g), toolW), toolW)},
			plain(" "), seg{ansiBold, padText(code, codeW)},
			plain(" "+term(g.Message)))
	}
	if rest := groups[len(shown):]; len(rest) > 0 {
		n := 0
		for _, g := range rest {
			n += g.Count
		}
		s.line(plain(fmt.Sprintf("    and %s (%s): see the full report", plural(len(rest), "more group", "more groups"), plural(n, "finding", "findings"))))
	}
}

// groupTool names the tool of a finding group, "(server)" for none.
func groupTool(g codeFindings) string {
	if g.Tool.Empty() {
		return "(server)"
	}
	return term(g.Tool)
}

// fixes: the top recommended fixes, as the Markdown report has them all.
func (s *summaryWriter) fixes(m *summary) {
	if len(m.Fixes) == 0 {
		return
	}
	s.blank()
	s.line(plain("  "), seg{ansiBold, "Top fixes"})
	for i, f := range m.Fixes[:min(len(m.Fixes), summaryFixes)] {
		s.wrap(plain(fmt.Sprintf("    %d. ", i+1)), "", term.Sprintf("%s (%s, %s): %s", f.Title, f.Code, f.Count, f.Fix))
	}
	if n := len(m.Fixes) - summaryFixes; n > 0 {
		s.line(plain(fmt.Sprintf("    and %s in the full report", plural(n, "more fix", "more fixes"))))
	}
}

// checks: one line each for the protocol, concurrency and lifecycle
// checks that ran (or why the protocol checks did not).
func (s *summaryWriter) checks(m *summary) {
	if len(m.Checks.Short) == 0 {
		return
	}
	s.blank()
	for _, c := range m.Checks.Short {
		s.line(plain("  "), plain(term(c)))
	}
}

// tools: the tools not called, grouped by reason, the learned valid calls
// and the metadata problems, a line or so each.
func (s *summaryWriter) tools(m *summary) {
	untested := m.NotCalled.Tools
	if len(untested) == 0 && len(m.Learned) == 0 && len(m.Lint.Rows) == 0 {
		return
	}
	s.blank()
	if len(untested) > 0 {
		s.line(plain("  "), seg{ansiBold, "Tools not called"}, plain(fmt.Sprintf(" (%d)", len(untested))))
		for i, r := range m.NotCalled.ByReason {
			if i == summaryReasons {
				s.line(plain(fmt.Sprintf("    and %d more for other reasons (see the full report)", len(m.NotCalled.ByReason)-i)))
				break
			}
			s.wrap(plain("    "), "", nameList(r.Names, summaryToolNames)+": "+term(r.Reason))
		}
	}
	if len(m.Learned) > 0 {
		var learned []string
		for _, l := range m.Learned {
			learned = append(learned, term.Sprintf("%s (from %s)", l.Tool, l.From))
		}
		s.line(plain("  "), seg{ansiBold, "Learned valid calls"}, plain(" (synthetic arguments errored): "+joinNames(learned, summaryToolNames)))
	}
	if len(m.Lint.Rows) > 0 {
		s.line(plain(fmt.Sprintf("  Metadata lint: %s (see the full report)", m.Lint.Counts)))
	}
}

// nameList writes at most n names, "a, b, c and 4 more".
func nameList(names []text.Untrusted, n int) string {
	out := make([]string, len(names))
	for i, name := range names {
		out[i] = term(name)
	}
	return joinNames(out, n)
}

// joinNames joins at most n names, "a, b, c and 4 more".
func joinNames(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:n], ", ") + fmt.Sprintf(" and %d more", len(names)-n)
}

// footer says where the full report is: the files written, or how to get
// one.
func (s *summaryWriter) footer(m *summary) {
	s.blank()
	if len(m.Outputs) > 0 {
		var files []string
		for _, o := range m.Outputs {
			files = append(files, term(o))
		}
		s.wrap(plain("  Full report: "), "", strings.Join(files, ", ")+"; every case and reproducer here: --verbose")
		return
	}
	s.wrap(plain("  "), "", "Every case and reproducer: --verbose · the full report: -o report.md")
}
