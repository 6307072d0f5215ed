package render

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/render/escape"
	"github.com/mcp-fuzz/mcp-fuzz/internal/score"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// Lengths, in runes, of server text in the terminal summary.
const (
	terminalReproMax = 400
	// terminalShellMax: longer shell reproducers (oversize arguments) are
	// left to the JSON report.
	terminalShellMax = 4096
)

// Terminal renders rep for a terminal in full, as mcp-fuzz prints it at the
// end of a run and for `mcp-fuzz report` with --verbose (without it:
// [TerminalSummary]): the run (version, seed, server, tools),
// one line per case grouped by tool, the metadata problems, then the summary:
// score and grade, coverage, the critical callout, dimensions, caps, findings
// grouped by tool (each with its JSON-RPC reproducer), and tools not called.
// ANSI colour is used only when colour is true; text from the report never
// carries escape sequences or control characters either way.
func Terminal(rep *report.Report, colour bool) string {
	var b strings.Builder
	p := ansi(colour)
	terminalCases(&b, rep, p)
	b.WriteString("\n")
	terminalSummary(&b, rep, p)
	// A tool's name starts a line: none may read as a workflow command
	// in an Actions step.
	return escape.WorkflowLines(b.String())
}

// jsonCommandSafe spells every "##[" of a JSON-RPC reproducer (or the
// shell line that pipes one) as "##\u005b": the JSON decodes to the same
// call, where the "## [" that [escape.Terminal] makes of it (the Actions
// runner reads "##[" anywhere in a line as a workflow command) would
// change the tool's name. Outside JSON strings a JSON text has no "#".
func jsonCommandSafe(s string) string { return strings.ReplaceAll(s, "##[", `##\u005b`) }

// terminalSummary writes the summary that ends the terminal output.
func terminalSummary(b *strings.Builder, rep *report.Report, p ansi) {
	st := p.paint
	name := escape.Terminal(rep.Server.Name, nameMax)
	if name == "" {
		name = "unnamed server"
	}
	if v := escape.Terminal(rep.Server.Version, 40); v != "" {
		name += " " + v
	}
	fmt.Fprintf(b, "%s %s — %s\n", st(ansiBold, "mcp-fuzz"), escape.Terminal(rep.Version, 40), st(ansiBold, name))

	share := ""
	if u := score.Untested(rep); u != "" {
		share = "   (" + u + ")"
	}
	if !rep.Graded || rep.Score == nil {
		fmt.Fprintf(b, "\n  %s%s\n", st(ansiBold, score.NotGraded), share)
	} else {
		grade := "-"
		if rep.Grade != nil {
			grade = escape.Terminal(*rep.Grade, 20)
		}
		capped := ""
		if l := cappedFrom(rep); l != "" {
			capped = " (capped from " + l + ")"
		}
		fmt.Fprintf(b, "\n  Grade %s%s   score %d/100%s\n", st(ansiBold+gradeStyle(grade), grade), capped, *rep.Score, share)
	}
	s := rep.Summary
	fmt.Fprintf(b, "  %s tested, %d skipped · %s · %s · seed %d · %s s\n",
		plural(s.ToolsTested, "tool", "tools"), s.ToolsSkipped, plural(s.Cases, "case", "cases"),
		escape.Terminal(orDash(rep.Target.Transport), 40), rep.Seed, seconds(float64(rep.DurationMs)))
	fmt.Fprintf(b, "  %s\n", st(ansiDim, verdictLine(s)))
	if c := containmentShort(rep); c != "" {
		fmt.Fprintf(b, "  %s\n", st(ansiDim, "containment: "+escape.Terminal(c, 0)))
	}
	if rep.Run != nil && rep.Run.Warning != "" {
		fmt.Fprintf(b, "  %s %s\n", st(ansiYellow+ansiBold, "warning:"), escape.Terminal(rep.Run.Warning, textMax))
	}
	if line := eraLine(rep, escape.Terminal); line != "" {
		fmt.Fprintf(b, "  %s %s\n", st(ansiBold, "eras:"), line)
	}
	for _, n := range eraNotes(rep.EraComparison) {
		fmt.Fprintf(b, "  %s %s\n", st(ansiYellow+ansiBold, "eras note:"), escape.Terminal(n, textMax))
	}
	if rep.EndedEarly != "" {
		fmt.Fprintf(b, "  %s %s\n", st(ansiYellow+ansiBold, "ended early:"), escape.Terminal(rep.EndedEarly, textMax))
	}

	if len(rep.Critical) > 0 {
		fmt.Fprintf(b, "\n  %s\n", st(ansiRed+ansiBold, "CRITICAL"))
		for _, c := range rep.Critical {
			fmt.Fprintf(b, "    %s %s\n", st(ansiRed, "!"), escape.Terminal(c, textMax))
		}
	}

	fmt.Fprintf(b, "\n  %s\n", st(ansiBold, "Dimensions"))
	for _, d := range dimensions(rep) {
		dim := rep.Dimensions[d.Dimension]
		points := st(ansiDim, "  —")
		if dim.Score != nil {
			points = st(scoreStyle(*dim.Score), fmt.Sprintf("%3d", *dim.Score))
		}
		weight := "   "
		if d.Weight > 0 {
			weight = fmt.Sprintf("×%-2d", d.Weight)
		}
		fmt.Fprintf(b, "    %-14s %s %s  %s\n", escape.Terminal(d.Title, 30), points, st(ansiDim, weight), escape.Terminal(dim.Reason, textMax))
	}
	if len(rep.Caps) > 0 {
		fmt.Fprintf(b, "\n  %s\n", st(ansiBold, "Caps"))
		for _, c := range rep.Caps {
			prefix := "at most "
			if c.Grade == score.NotGraded {
				prefix = ""
			}
			fmt.Fprintf(b, "    %s%s: %s\n", prefix, st(ansiBold, escape.Terminal(c.Grade, 20)), escape.Terminal(c.Reason, textMax))
		}
	}

	if len(rep.Findings) > 0 {
		fmt.Fprintf(b, "\n  %s (%d)\n", st(ansiBold, "Findings"), len(rep.Findings))
		for _, g := range groupByTool(rep.Findings) {
			tool := "server"
			if g.Tool != "" {
				tool = "tool " + escape.Terminal(g.Tool, nameMax)
			}
			fmt.Fprintf(b, "    %s\n", st(ansiCyan+ansiBold, tool))
			shellShown := map[string]bool{} // the shell reproducer once per code
			placeholderShown := false       // the note on the report placeholder once
			for _, f := range g.Findings {
				sev := fmt.Sprintf("%-8s", escape.Terminal(string(f.Severity), 20))
				line := fmt.Sprintf("      %s %s", st(severityStyle(f.Severity), sev), st(ansiBold, escape.Terminal(f.Code, 40)))
				if f.CaseID != "" {
					line += " " + st(ansiDim, escape.Terminal(f.CaseID, nameMax))
				}
				fmt.Fprintf(b, "%s: %s\n", line, escape.Terminal(f.Message, textMax))
				if f.Reproducer.JSONRPC != "" {
					fmt.Fprintf(b, "        %s\n", st(ansiDim, escape.Terminal(jsonCommandSafe(f.Reproducer.JSONRPC), terminalReproMax)))
				}
				switch sh := f.Reproducer.Shell; {
				case sh == "":
				case f.Reproducer.JSONRPC == "":
					// A replay command, the only reproducer of its case.
					fmt.Fprintf(b, "        reproduce: %s\n", escape.Terminal(sh, terminalShellMax))
					if note := placeholderNote(sh); note != "" && !placeholderShown {
						placeholderShown = true
						fmt.Fprintf(b, "        %s\n", st(ansiDim, note))
					}
				case !shellShown[f.Code] && len(sh) <= terminalShellMax:
					shellShown[f.Code] = true
					fmt.Fprintf(b, "        reproduce: %s\n", escape.Terminal(jsonCommandSafe(sh), terminalShellMax))
				}
			}
		}
	}

	if line := checkLine(rep); line != "" {
		checks := protocolChecks(rep)
		note := " (" + escape.Terminal(orDash(rep.Server.Era), 20) + " era; failed ones are findings, which change the grade only when the server crashed or hung)"
		if len(checks) == 0 {
			note = ""
		}
		fmt.Fprintf(b, "\n  %s%s\n", st(ansiBold, escape.Terminal(line, textMax)), note)
		for _, c := range checks {
			if c.Status == report.CheckSkip {
				fmt.Fprintf(b, "    skipped %s: %s\n", escape.Terminal(c.ID, nameMax), escape.Terminal(c.Detail, textMax))
			}
		}
	}
	if line := lifecycleLine(rep); line != "" {
		// Few: each is listed, failed ones are findings above.
		fmt.Fprintf(b, "\n  %s\n", st(ansiBold, escape.Terminal(line, textMax)))
		for _, c := range lifecycleChecks(rep) {
			status := c.Status
			if c.Status == report.CheckSkip {
				status = "skipped"
			}
			fmt.Fprintf(b, "    %s %s: %s\n", escape.Terminal(checkStatus(status, c), 40), escape.Terminal(c.ID, nameMax), escape.Terminal(c.Detail, textMax))
		}
	}

	var learned []string
	for _, t := range rep.Tools {
		for _, c := range t.Cases {
			if c.Kind == report.KindValid && c.LearnedFrom != "" {
				learned = append(learned, fmt.Sprintf("    %s: %s, from %s: %s\n", escape.Terminal(t.Name, nameMax), escape.Terminal(string(c.Verdict), 40),
					escape.Terminal(c.LearnedFrom, nameMax), escape.Terminal(string(c.Arguments), 120)))
			}
		}
	}
	if len(learned) > 0 {
		fmt.Fprintf(b, "\n  %s (synthetic arguments errored)\n%s", st(ansiBold, "Learned valid calls"), strings.Join(learned, ""))
	}

	var untested []string
	for _, t := range rep.Tools {
		if !t.Tested {
			untested = append(untested, fmt.Sprintf("    %s: %s\n", escape.Terminal(t.Name, nameMax), escape.Terminal(orText(t.SkipReason, "no reason recorded"), textMax)))
		}
	}
	if len(untested) > 0 {
		fmt.Fprintf(b, "\n  %s\n%s", st(ansiBold, "Tools not called"), strings.Join(untested, ""))
	}
	if n := len(rep.Lint); n > 0 {
		// terminalCases listed them, above the summary.
		fmt.Fprintf(b, "\n  Metadata lint: %s (listed above)\n", lintCounts(rep.Lint))
	}
}

// terminalCases writes the run, then every case of the tested tools, one
// line each, then the metadata problems.
func terminalCases(b *strings.Builder, rep *report.Report, p ansi) {
	fmt.Fprintf(b, "\nmcp-fuzz %s  seed %d\n", escape.Terminal(rep.Version, 40), rep.Seed)
	era := ""
	if rep.Server.Era != "" {
		era = ", " + escape.Terminal(rep.Server.Era, 20) + " era"
	}
	fmt.Fprintf(b, "server  %s %s (protocol %s%s, %s)\n", escape.Terminal(rep.Server.Name, 60), escape.Terminal(rep.Server.Version, 30),
		escape.Terminal(rep.Server.ProtocolVersion, 20), era, escape.Terminal(rep.Target.Transport, 40))
	if rep.Server.EraReason != "" {
		fmt.Fprintf(b, "era     %s: %s\n", escape.Terminal(rep.Server.Era, 20), escape.Terminal(rep.Server.EraReason, 200))
	}
	fmt.Fprintf(b, "tools   %d listed, %d tested, %d skipped\n", rep.Discovery.Tools, rep.Summary.ToolsTested, rep.Summary.ToolsSkipped)
	for _, n := range rep.Discovery.Notes {
		fmt.Fprintf(b, "note    %s\n", escape.Terminal(n, 200))
	}

	for _, t := range rep.Tools {
		if !t.Tested {
			continue
		}
		task := ""
		if slices.ContainsFunc(t.Cases, func(c report.Case) bool { return c.Task }) {
			// Else nothing in the text says the calls went through tasks/get
			// and tasks/result (the JSON's task field).
			task = "; task-augmented calls"
		}
		fmt.Fprintf(b, "\n%s  (%s%s)\n", escape.Terminal(t.Name, 80), countLine(t.Cases), task)
		for _, c := range t.Cases {
			verdict := fmt.Sprintf("%-18s", escape.Terminal(string(c.Verdict), 40))
			fmt.Fprintf(b, "  %s %-52s %7.1fms", p.paint(verdictStyle(c.Verdict), verdict), escape.Terminal(c.ID, 52), c.DurationMs)
			if len(c.Flags) > 0 {
				fmt.Fprintf(b, "  [%s]", escape.Terminal(strings.Join(c.Flags, ","), textMax))
			}
			if tt := timingText(c); tt != "" {
				fmt.Fprintf(b, "  %s", escape.Terminal(tt, textMax))
			}
			if c.Detail != "" && c.Verdict != report.OK && c.Verdict != report.Handled {
				fmt.Fprintf(b, "  %s", escape.Terminal(c.Detail, 140))
			} else if c.LearnedFrom != "" {
				fmt.Fprintf(b, "  learned from %s", escape.Terminal(c.LearnedFrom, nameMax))
			}
			b.WriteString("\n")
		}
	}
	if len(rep.Lint) > 0 {
		fmt.Fprintf(b, "\nmetadata lint (%d):\n", len(rep.Lint))
		for _, l := range rep.Lint {
			loc := l.Tool
			if l.Pointer != "" {
				loc += " " + l.Pointer
			}
			fmt.Fprintf(b, "  %-7s %-26s %s: %s\n", escape.Terminal(string(l.Severity), 20), escape.Terminal(l.Code, 40),
				escape.Terminal(loc, 80), escape.Terminal(l.Message, 160))
		}
	}
}

// verdictOrder is the order [countLine] lists verdicts in, worst first.
var verdictOrder = []report.Verdict{
	report.Crash, report.Hang, report.ProtocolViolation, report.Accepted, report.OutputViolation,
	report.Errored, report.EmptySuccess, report.GeneratorGap, report.NotRun,
	report.Tolerated, report.Rejected, report.Handled, report.OK,
}

// countLine renders "3 handled, 1 crash": the verdicts of cases in
// verdictOrder, then any others by name.
func countLine(cases []report.Case) string {
	counts := map[report.Verdict]int{}
	for _, c := range cases {
		counts[c.Verdict]++
	}
	var parts []string
	for _, v := range verdictOrder {
		if n := counts[v]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, v))
			delete(counts, v)
		}
	}
	var rest []string
	for v, n := range counts {
		rest = append(rest, fmt.Sprintf("%d %s", n, escape.Terminal(string(v), 40)))
	}
	sort.Strings(rest)
	parts = append(parts, rest...)
	if len(parts) == 0 {
		return "no cases"
	}
	return strings.Join(parts, ", ")
}
