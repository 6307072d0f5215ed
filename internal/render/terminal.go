package render

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/render/escape"
	"github.com/mcp-fuzz/mcp-fuzz/internal/render/text"
	"github.com/mcp-fuzz/mcp-fuzz/internal/score"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// Lengths, in runes, of server text in the terminal output.
const (
	terminalReproMax = 400
	// terminalShellMax: longer shell reproducers (oversize arguments) are
	// left to the JSON report.
	terminalShellMax = 4096
)

// term writes server text for a terminal.
var term = text.Terminal

// Terminal renders rep for a terminal in full, as mcp-fuzz prints it at the
// end of a run and for `mcp-fuzz report` with --verbose (without it:
// [TerminalSummary]): the run (version, seed, server, tools),
// one line per case grouped by tool, the metadata problems, then the summary:
// score and grade, coverage, the critical callout, dimensions, caps, findings
// grouped by tool (each with its JSON-RPC reproducer), and tools not called.
// ANSI colour is used only when colour is true; text from the report never
// carries escape sequences or control characters either way.
func Terminal(rep *report.Report, colour bool) string {
	m := newSummary(rep)
	w := &termWriter{p: ansi(colour)}
	w.cases(m)
	w.b.WriteString("\n")
	w.head(m)
	w.dimensions(m)
	w.findings(m)
	w.checks(m)
	w.tools(m)
	// A tool's name starts a line: none may read as a workflow command
	// in an Actions step.
	return escape.WorkflowLines(w.b.String())
}

// termWriter writes the full terminal output.
type termWriter struct {
	b strings.Builder
	p ansi
}

// printf writes format with args, server text escaped ([text.Medium]).
func (w *termWriter) printf(format string, args ...any) { term.Fprintf(&w.b, format, args...) }

// paint is s in style, when colour is on.
func (w *termWriter) paint(style, s string) string { return w.p.paint(style, s) }

// jsonCommandSafe spells every "##[" of a JSON-RPC reproducer (or the
// shell line that pipes one) as "##\u005b": the JSON decodes to the same
// call, where the "## [" that [escape.Terminal] makes of it (the Actions
// runner reads "##[" anywhere in a line as a workflow command) would
// change the tool's name. Outside JSON strings a JSON text has no "#".
func jsonCommandSafe(u text.Untrusted) text.Untrusted { return u.ReplaceAll("##[", `##\u005b`) }

// head writes the server, the grade, the run and the critical callout.
func (w *termWriter) head(m *summary) {
	w.printf("%s %s — %s\n", w.paint(ansiBold, "mcp-fuzz"), m.Run.Version, w.paint(ansiBold, serverName(m.Server, term)))

	g := m.Grade
	share := ""
	if g.Untested != "" {
		share = "   (" + g.Untested + ")"
	}
	if !g.Graded {
		w.printf("\n  %s%s\n", w.paint(ansiBold, score.NotGraded), share)
	} else {
		grade := "-"
		if g.HasLetter {
			grade = term(g.Letter)
		}
		capped := ""
		if g.CappedFrom != "" {
			capped = " (capped from " + g.CappedFrom + ")"
		}
		w.printf("\n  Grade %s%s   score %d/100%s\n", w.paint(ansiBold+gradeStyle(grade), grade), capped, g.Score, share)
	}
	r := m.Run
	w.printf("  %s tested, %d skipped · %s · %s · seed %d · %s s\n",
		plural(r.Tested, "tool", "tools"), r.Skipped, plural(r.Cases, "case", "cases"), m.Server.Transport.Or("—"), r.Seed, r.Seconds)
	w.printf("  %s\n", w.paint(ansiDim, r.Verdicts))
	if !r.Containment.Empty() {
		w.printf("  %s\n", w.paint(ansiDim, "containment: "+term(r.Containment)))
	}
	if !r.Warning.Empty() {
		w.printf("  %s %s\n", w.paint(ansiYellow+ansiBold, "warning:"), r.Warning)
	}
	if line := eraLine(r.Eras, term); line != "" {
		w.printf("  %s %s\n", w.paint(ansiBold, "eras:"), line)
	}
	for _, n := range r.EraNotes {
		w.printf("  %s %s\n", w.paint(ansiYellow+ansiBold, "eras note:"), n)
	}
	if !r.EndedEarly.Empty() {
		w.printf("  %s %s\n", w.paint(ansiYellow+ansiBold, "ended early:"), r.EndedEarly)
	}

	if len(g.Critical) > 0 {
		w.printf("\n  %s\n", w.paint(ansiRed+ansiBold, "CRITICAL"))
		for _, c := range g.Critical {
			w.printf("    %s %s\n", w.paint(ansiRed, "!"), c)
		}
	}
}

// dimensions writes the dimensions and the caps.
func (w *termWriter) dimensions(m *summary) {
	w.printf("\n  %s\n", w.paint(ansiBold, "Dimensions"))
	for _, d := range m.Dimensions {
		points := w.paint(ansiDim, "  —")
		if d.Score != nil {
			points = w.paint(scoreStyle(*d.Score), fmt.Sprintf("%3d", *d.Score))
		}
		weight := "   "
		if d.Weight > 0 {
			weight = fmt.Sprintf("×%-2d", d.Weight)
		}
		w.printf("    %-14s %s %s  %s\n", d.Title.Cut(30), points, w.paint(ansiDim, weight), d.Reason)
	}
	if len(m.Caps) > 0 {
		w.printf("\n  %s\n", w.paint(ansiBold, "Caps"))
		for _, c := range m.Caps {
			prefix := "at most "
			if c.NotGraded {
				prefix = ""
			}
			w.printf("    %s%s: %s\n", prefix, w.paint(ansiBold, term(c.Grade)), c.Reason)
		}
	}
}

// findings writes the findings by tool, each with its reproducers: the
// JSON-RPC line, and the shell line once per code.
func (w *termWriter) findings(m *summary) {
	if m.Findings.Count == 0 {
		return
	}
	w.printf("\n  %s (%d)\n", w.paint(ansiBold, "Findings"), m.Findings.Count)
	for _, g := range m.Findings.ByTool {
		tool := "server"
		if !g.Tool.Empty() {
			tool = "tool " + term(g.Tool)
		}
		w.printf("    %s\n", w.paint(ansiCyan+ansiBold, tool))
		shellShown := map[text.Untrusted]bool{} // the shell reproducer once per code
		placeholderShown := false
		for _, f := range g.Findings {
			sev := fmt.Sprintf("%-8s", term(f.Severity))
			line := fmt.Sprintf("      %s %s", w.paint(toneStyle(f.Tone), sev), w.paint(ansiBold, term(f.Code)))
			if !f.CaseID.Empty() {
				line += " " + w.paint(ansiDim, term(f.CaseID))
			}
			w.printf("%s: %s\n", line, f.Message)
			if !f.JSONRPC.Empty() {
				w.printf("        %s\n", w.paint(ansiDim, term(jsonCommandSafe(f.JSONRPC).Cut(terminalReproMax))))
			}
			switch sh := f.Shell; {
			case sh.Empty():
			case f.JSONRPC.Empty():
				// A replay command, the only reproducer of its case.
				w.printf("        reproduce: %s\n", sh.Cut(terminalShellMax))
				if !f.Placeholder.Empty() && !placeholderShown {
					placeholderShown = true
					w.printf("        %s\n", w.paint(ansiDim, term(f.Placeholder)))
				}
			case !shellShown[f.Code] && sh.Len() <= terminalShellMax:
				shellShown[f.Code] = true
				w.printf("        reproduce: %s\n", jsonCommandSafe(sh).Cut(terminalShellMax))
			}
		}
	}
}

// checks writes how the protocol and lifecycle checks went, with the
// skipped protocol checks and every lifecycle check.
func (w *termWriter) checks(m *summary) {
	c := m.Checks
	if !c.Line.Empty() {
		note := ""
		if len(c.Protocol) > 0 {
			note = term.Sprintf(" (%s era; failed ones are findings, which change the grade only when the server crashed or hung)", m.Server.Era.Or("—"))
		}
		w.printf("\n  %s%s\n", w.paint(ansiBold, term(c.Line)), note)
		for _, p := range c.Protocol {
			if p.Skipped {
				w.printf("    skipped %s: %s\n", p.ID, p.Detail)
			}
		}
	}
	if l := c.Lifecycle; l != nil {
		// Few: each is listed, failed ones are findings above.
		w.printf("\n  %s\n", w.paint(ansiBold, term(l.Line)))
		for _, p := range l.Checks {
			w.printf("    %s %s: %s\n", p.Outcome, p.ID, p.Detail)
		}
	}
}

// tools writes the learned valid calls, the tools not called and the
// count of metadata problems (listed above the summary).
func (w *termWriter) tools(m *summary) {
	if len(m.Learned) > 0 {
		w.printf("\n  %s (synthetic arguments errored)\n", w.paint(ansiBold, "Learned valid calls"))
		for _, l := range m.Learned {
			w.printf("    %s: %s, from %s: %s\n", l.Tool, l.Verdict, l.From, l.Arguments)
		}
	}
	if len(m.NotCalled.Tools) > 0 {
		w.printf("\n  %s\n", w.paint(ansiBold, "Tools not called"))
		for _, t := range m.NotCalled.Tools {
			w.printf("    %s: %s\n", t.Name, t.Reason)
		}
	}
	if len(m.Lint.Rows) > 0 {
		w.printf("\n  Metadata lint: %s (listed above)\n", m.Lint.Counts)
	}
}

// cases writes the run, then every case of the tested tools, one line
// each, then the metadata problems.
func (w *termWriter) cases(m *summary) {
	s := m.Server
	w.printf("\nmcp-fuzz %s  seed %d\n", m.Run.Version, m.Run.Seed)
	era := ""
	if !s.Era.Empty() {
		era = term.Sprintf(", %s era", s.Era)
	}
	w.printf("server  %s %s (protocol %s%s, %s)\n", s.Name.Cut(60), s.Version.Cut(30), s.ProtocolVersion, era, s.Transport)
	if !s.EraReason.Empty() {
		w.printf("era     %s: %s\n", s.Era, s.EraReason)
	}
	w.printf("tools   %d listed, %d tested, %d skipped\n", s.Listed, m.Run.Tested, m.Run.Skipped)
	for _, n := range s.Notes {
		w.printf("note    %s\n", n)
	}

	for _, t := range m.Tools {
		if !t.Tested {
			continue
		}
		task := ""
		if t.Task {
			// Else nothing in the text says the calls went through tasks/get
			// and tasks/result (the JSON's task field).
			task = "; task-augmented calls"
		}
		w.printf("\n%s  (%s%s)\n", t.Name.Cut(80), countLine(t.Counts), task)
		for _, c := range t.Cases {
			verdict := fmt.Sprintf("%-18s", term(c.Verdict))
			w.printf("  %s %-52s %7.1fms", w.paint(toneStyle(c.Tone), verdict), c.ID.Cut(52), c.DurationMs)
			if len(c.Flags) > 0 {
				w.printf("  [%s]", text.Join(",", c.Flags...).Cut(textMax))
			}
			if !c.Timing.Empty() {
				w.printf("  %s", c.Timing)
			}
			if c.ShowDetail {
				w.printf("  %s", c.Detail)
			} else if !c.LearnedFrom.Empty() {
				w.printf("  learned from %s", c.LearnedFrom)
			}
			w.b.WriteString("\n")
		}
	}
	if len(m.Lint.Rows) > 0 {
		w.printf("\nmetadata lint (%d):\n", len(m.Lint.Rows))
		for _, l := range m.Lint.Rows {
			w.printf("  %-7s %-26s %s: %s\n", l.Severity, l.Code.Cut(40), l.Where, l.Message.Cut(160))
		}
	}
}

// countLine renders "3 handled, 1 crash": the known verdicts in their
// order, then the others sorted.
func countLine(counts []verdictCount) string {
	var parts, rest []string
	for _, c := range counts {
		if c.Known {
			parts = append(parts, term.Sprintf("%d %s", c.N, c.Verdict))
		} else {
			rest = append(rest, term.Sprintf("%d %s", c.N, c.Verdict))
		}
	}
	sort.Strings(rest)
	parts = append(parts, rest...)
	if len(parts) == 0 {
		return "no cases"
	}
	return strings.Join(parts, ", ")
}
