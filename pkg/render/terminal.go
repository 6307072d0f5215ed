package render

import (
	"fmt"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/render/escape"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// ANSI styles used by [Terminal].
const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiDim    = "\x1b[2m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
)

// Lengths, in runes, of server text in the terminal summary.
const (
	terminalReproMax = 400
	// terminalShellMax: longer shell reproducers (oversize arguments) are
	// left to the JSON report.
	terminalShellMax = 4096
)

// Terminal renders the end-of-run summary of rep for a terminal: score and
// grade, coverage, the critical callout, dimensions, caps, findings grouped
// by tool (each with its JSON-RPC reproducer), and tools not called. ANSI
// colour is used only when colour is true; server text never carries escape
// sequences or control characters either way.
func Terminal(rep *report.Report, colour bool) string {
	st := func(style, s string) string {
		if !colour || s == "" {
			return s
		}
		return style + s + ansiReset
	}
	var b strings.Builder
	name := escape.Terminal(rep.Server.Name, nameMax)
	if name == "" {
		name = "unnamed server"
	}
	if v := escape.Terminal(rep.Server.Version, 40); v != "" {
		name += " " + v
	}
	fmt.Fprintf(&b, "%s %s — %s\n", st(ansiBold, "mcp-fuzz"), escape.Terminal(rep.Version, 40), st(ansiBold, name))

	if !rep.Graded || rep.Score == nil {
		fmt.Fprintf(&b, "\n  %s\n", st(ansiBold, "not graded"))
	} else {
		grade := "-"
		if rep.Grade != nil {
			grade = escape.Terminal(*rep.Grade, 20)
		}
		fmt.Fprintf(&b, "\n  Grade %s   score %d/100\n", st(ansiBold+gradeStyle(grade), grade), *rep.Score)
	}
	s := rep.Summary
	fmt.Fprintf(&b, "  %s tested, %d skipped · %s · %s · seed %d · %s s\n",
		plural(s.ToolsTested, "tool", "tools"), s.ToolsSkipped, plural(s.Cases, "case", "cases"),
		escape.Terminal(orDash(rep.Target.Transport), 40), rep.Seed, seconds(float64(rep.DurationMs)))
	fmt.Fprintf(&b, "  %s\n", st(ansiDim, verdictLine(s)))
	if rep.EndedEarly != "" {
		fmt.Fprintf(&b, "  %s %s\n", st(ansiYellow+ansiBold, "ended early:"), escape.Terminal(rep.EndedEarly, textMax))
	}

	if len(rep.Critical) > 0 {
		fmt.Fprintf(&b, "\n  %s\n", st(ansiRed+ansiBold, "CRITICAL"))
		for _, c := range rep.Critical {
			fmt.Fprintf(&b, "    %s %s\n", st(ansiRed, "!"), escape.Terminal(c, textMax))
		}
	}

	fmt.Fprintf(&b, "\n  %s\n", st(ansiBold, "Dimensions"))
	for _, d := range dimensions(rep) {
		dim := rep.Dimensions[d.Dimension]
		score := st(ansiDim, "  —")
		if dim.Score != nil {
			score = st(scoreStyle(*dim.Score), fmt.Sprintf("%3d", *dim.Score))
		}
		weight := "   "
		if d.Weight > 0 {
			weight = fmt.Sprintf("×%-2d", d.Weight)
		}
		fmt.Fprintf(&b, "    %-14s %s %s  %s\n", escape.Terminal(d.Title, 30), score, st(ansiDim, weight), escape.Terminal(dim.Reason, textMax))
	}
	if len(rep.Caps) > 0 {
		fmt.Fprintf(&b, "\n  %s\n", st(ansiBold, "Caps"))
		for _, c := range rep.Caps {
			prefix := "at most "
			if c.Grade == "not graded" {
				prefix = ""
			}
			fmt.Fprintf(&b, "    %s%s: %s\n", prefix, st(ansiBold, escape.Terminal(c.Grade, 20)), escape.Terminal(c.Reason, textMax))
		}
	}

	if len(rep.Findings) > 0 {
		fmt.Fprintf(&b, "\n  %s (%d)\n", st(ansiBold, "Findings"), len(rep.Findings))
		for _, g := range groupByTool(rep.Findings) {
			tool := "server"
			if g.Tool != "" {
				tool = "tool " + escape.Terminal(g.Tool, nameMax)
			}
			fmt.Fprintf(&b, "    %s\n", st(ansiCyan+ansiBold, tool))
			shellShown := map[string]bool{} // the shell reproducer once per code
			for _, f := range g.Findings {
				sev := fmt.Sprintf("%-8s", escape.Terminal(string(f.Severity), 20))
				line := fmt.Sprintf("      %s %s", st(severityStyle(f.Severity), sev), st(ansiBold, escape.Terminal(f.Code, 40)))
				if f.CaseID != "" {
					line += " " + st(ansiDim, escape.Terminal(f.CaseID, nameMax))
				}
				fmt.Fprintf(&b, "%s: %s\n", line, escape.Terminal(f.Message, textMax))
				if f.Reproducer.JSONRPC != "" {
					fmt.Fprintf(&b, "        %s\n", st(ansiDim, escape.Terminal(f.Reproducer.JSONRPC, terminalReproMax)))
				}
				switch sh := f.Reproducer.Shell; {
				case sh == "":
				case f.Reproducer.JSONRPC == "":
					// A replay command, the only reproducer of its case.
					fmt.Fprintf(&b, "        reproduce: %s\n", escape.Terminal(sh, terminalShellMax))
					if note := placeholderNote(sh); note != "" && !shellShown[""] {
						shellShown[""] = true
						fmt.Fprintf(&b, "        %s\n", st(ansiDim, note))
					}
				case !shellShown[f.Code] && len(sh) <= terminalShellMax:
					shellShown[f.Code] = true
					fmt.Fprintf(&b, "        reproduce: %s\n", escape.Terminal(sh, terminalShellMax))
				}
			}
		}
	}

	var untested []string
	for _, t := range rep.Tools {
		if !t.Tested {
			untested = append(untested, fmt.Sprintf("    %s: %s\n", escape.Terminal(t.Name, nameMax), escape.Terminal(orText(t.SkipReason, "no reason recorded"), textMax)))
		}
	}
	if len(untested) > 0 {
		fmt.Fprintf(&b, "\n  %s\n%s", st(ansiBold, "Tools not called"), strings.Join(untested, ""))
	}
	if n := len(rep.Lint); n > 0 {
		fmt.Fprintf(&b, "\n  %s in the metadata (see the Markdown or JSON report)\n", plural(n, "problem", "problems"))
	}
	return b.String()
}

func gradeStyle(grade string) string {
	switch grade {
	case "A", "B":
		return ansiGreen
	case "C":
		return ansiYellow
	}
	return ansiRed
}

func scoreStyle(score int) string {
	switch {
	case score >= 75:
		return ansiGreen
	case score >= 60:
		return ansiYellow
	}
	return ansiRed
}

func severityStyle(sev report.Severity) string {
	switch sev {
	case report.SeverityCritical, report.SeverityError:
		return ansiRed + ansiBold
	case report.SeverityWarning:
		return ansiYellow
	}
	return ansiDim
}
