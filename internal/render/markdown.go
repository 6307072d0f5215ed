package render

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/render/escape"
	"github.com/mcp-fuzz/mcp-fuzz/internal/score"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// MaxMarkdownBytes is the size [Markdown] keeps under: GitHub's limit for a
// job summary (1 MiB).
const MaxMarkdownBytes = 1 << 20

// Lengths, in runes, that server text is cut to in Markdown.
const (
	nameMax       = 100
	textMax       = 300
	reproducerMax = 2000
	stderrMax     = 2000
)

// Markdown renders rep as a Markdown report for a job summary or a file,
// kept under [MaxMarkdownBytes]. See [MarkdownLimit].
func Markdown(rep *report.Report) string { return MarkdownLimit(rep, MaxMarkdownBytes) }

// MarkdownLimit renders rep as Markdown of at most maxBytes bytes (GitHub
// flavoured: tables, alerts, <details>). When the whole report does not fit,
// the table of all cases is dropped first, then findings are cut with a note
// pointing at the JSON report. All server-supplied text is escaped.
func MarkdownLimit(rep *report.Report, maxBytes int) string {
	head := mdHead(rep)
	fixes := mdFixes(rep)
	tail := mdChecks(rep) + mdLifecycle(rep) + mdLint(rep) + mdLearned(rep) + mdUntested(rep)
	cases := mdCases(rep)
	const findingsHeading = "### Findings\n\n"

	var b strings.Builder
	b.WriteString(head)
	fixed := len(head) + len(fixes) + len(tail)
	budget := maxBytes - fixed
	if len(rep.Findings) > 0 {
		budget -= len(findingsHeading)
	}
	findings, all := mdFindings(rep, budget-len(cases))
	if !all && cases != "" {
		// Dropping the case table makes room for more findings.
		cases = "_The table of all cases was left out to keep this report under " + sizeText(maxBytes) + "; see the JSON report._\n\n"
		findings, _ = mdFindings(rep, budget-len(cases))
	}
	if len(rep.Findings) > 0 {
		b.WriteString(findingsHeading)
		b.WriteString(findings)
	}
	b.WriteString(fixes)
	b.WriteString(tail)
	if len(head)+len(findings)+len(fixes)+len(tail)+len(cases)+len(findingsHeading) <= maxBytes {
		b.WriteString(cases)
	}
	out := b.String()
	if len(out) > maxBytes {
		// Only reachable with tiny limits: cut on a rune boundary.
		out = strings.ToValidUTF8(out[:max(maxBytes-len("…\n"), 0)], "") + "…\n"
		if len(out) > maxBytes {
			out = ""
		}
	}
	return out
}

func sizeText(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return strconv.Itoa(n>>20) + " MiB"
	}
	return strconv.Itoa(n) + " bytes"
}

// mdHead renders the header, badge, coverage, critical callout, dimensions
// and caps.
func mdHead(rep *report.Report) string {
	var b strings.Builder
	name := escape.MarkdownInline(rep.Server.Name, nameMax)
	if name == "" {
		name = "unnamed server"
	}
	if v := escape.MarkdownInline(rep.Server.Version, 40); v != "" {
		name += " " + v
	}
	fmt.Fprintf(&b, "## mcp-fuzz: %s — %s\n\n", name, mdGrade(rep))
	fmt.Fprintf(&b, "![mcp-fuzz %s](%s)\n\n", escape.MarkdownInline(gradeText(rep), 40), BadgeURL(rep))

	s := rep.Summary
	transport := escape.MarkdownInline(orDash(rep.Target.Transport), 40)
	if rep.Server.Era != "" {
		// The protocol era spoken, and its version: "stdio, modern era (2026-07-28)".
		transport += fmt.Sprintf(", %s era (%s)", escape.MarkdownInline(rep.Server.Era, 20), escape.MarkdownInline(orDash(rep.Server.ProtocolVersion), 20))
	}
	fmt.Fprintf(&b, "**Coverage:** %s tested, %d skipped · %s · transport %s · seed %d · %s s · mcp-fuzz %s\n\n",
		plural(s.ToolsTested, "tool", "tools"), s.ToolsSkipped, plural(s.Cases, "case", "cases"),
		transport, rep.Seed,
		seconds(float64(rep.DurationMs)), escape.MarkdownInline(orDash(rep.Version), 40))
	fmt.Fprintf(&b, "**Verdicts:** %s\n\n", verdictLine(s))
	if rep.Run != nil && len(rep.Run.Containment) > 0 {
		fmt.Fprintf(&b, "<details><summary><b>Containment:</b> %s</summary>\n\n", escape.MarkdownInline(containmentShort(rep), 0))
		for _, l := range rep.Run.Containment {
			fmt.Fprintf(&b, "- %s\n", escape.MarkdownInline(l, 0))
		}
		b.WriteString("\n</details>\n\n")
	}
	if rep.Run != nil && rep.Run.Warning != "" {
		fmt.Fprintf(&b, "> [!WARNING]\n> %s\n\n", escape.MarkdownInline(rep.Run.Warning, textMax))
	}
	if line := eraLine(rep, escape.MarkdownInline); line != "" {
		fmt.Fprintf(&b, "**Eras:** %s\n\n", line)
	}
	if notes := eraNotes(rep.EraComparison); len(notes) > 0 {
		b.WriteString("> [!NOTE]\n")
		for i, n := range notes {
			if i > 0 {
				b.WriteString(">\n")
			}
			fmt.Fprintf(&b, "> Eras: %s\n", escape.MarkdownInline(n, textMax))
		}
		b.WriteString("\n")
	}
	if rep.EndedEarly != "" {
		fmt.Fprintf(&b, "> [!WARNING]\n> The run ended early: %s\n\n", escape.MarkdownInline(rep.EndedEarly, textMax))
	}
	if len(rep.Critical) > 0 {
		b.WriteString("> [!CAUTION]\n> **Critical:**\n")
		for _, c := range rep.Critical {
			fmt.Fprintf(&b, "> - %s\n", escape.MarkdownInline(c, textMax))
		}
		b.WriteString("\n")
	}

	b.WriteString("| Dimension | Score | Weight | Reason |\n|---|---:|---:|---|\n")
	for _, d := range dimensions(rep) {
		dim, ok := rep.Dimensions[d.Dimension]
		points := "not measured"
		if ok && dim.Score != nil {
			points = strconv.Itoa(*dim.Score)
		}
		weight := "—"
		if d.Weight > 0 {
			weight = strconv.Itoa(d.Weight)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", escape.MarkdownInline(d.Title, nameMax), points, weight, escape.MarkdownInline(dimReason(dim), textMax))
	}
	b.WriteString("\n")
	if len(rep.Caps) > 0 {
		b.WriteString("**Grade caps:**\n\n")
		for _, c := range rep.Caps {
			prefix := "at most "
			if c.Grade == score.NotGraded {
				prefix = ""
			}
			fmt.Fprintf(&b, "- %s**%s**: %s\n", prefix, escape.MarkdownInline(c.Grade, 20), escape.MarkdownInline(c.Reason, textMax))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// mdGrade is "grade **C**, score 81/100", "**not graded**", each followed by
// ", 6 of 9 tools untested" when some tools were not called.
func mdGrade(rep *report.Report) string {
	g := "**" + score.NotGraded + "**"
	switch {
	case !rep.Graded || rep.Score == nil:
	case rep.Grade == nil:
		g = fmt.Sprintf("score %d/100", *rep.Score)
	default:
		g = fmt.Sprintf("grade **%s**, score %d/100", escape.MarkdownInline(*rep.Grade, 20), *rep.Score)
		if l := cappedFrom(rep); l != "" {
			g = fmt.Sprintf("grade **%s** (capped from %s), score %d/100", escape.MarkdownInline(*rep.Grade, 20), l, *rep.Score)
		}
	}
	if u := score.Untested(rep); u != "" {
		g += ", " + u
	}
	return g
}

// verdictLine lists the non-zero verdict and flag counts.
func verdictLine(s report.Summary) string {
	var parts []string
	add := func(n int, name string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, name))
		}
	}
	add(s.Crash, "crash")
	add(s.Hang, "hang")
	add(s.ProtocolViolation, "protocol violation")
	add(s.Leak, "leak")
	add(s.Accepted, "accepted")
	add(s.OutputViolation, "output violation")
	add(s.Errored, "errored")
	add(s.EmptySuccess, "empty success")
	add(s.GeneratorGap, "generator gap")
	add(s.Handled, "handled")
	add(s.Rejected, "rejected")
	add(s.Tolerated, "tolerated")
	add(s.OK, "ok")
	add(s.NotRun, "not run")
	add(s.Unconfirmed, "unconfirmed")
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " · ")
}

// mdFindings renders findings grouped by tool within budget bytes; all is
// false when some were left out (a note says how many).
func mdFindings(rep *report.Report, budget int) (out string, all bool) {
	var b strings.Builder
	total, shown := len(rep.Findings), 0
	const noteMax = 200 // room kept for the note
	for _, g := range groupByTool(rep.Findings) {
		heading := "#### Server\n\n"
		if g.Tool != "" {
			heading = fmt.Sprintf("#### Tool %s (%s)\n\n", escape.MarkdownInline(g.Tool, nameMax), plural(len(g.Findings), "finding", "findings"))
		}
		wroteHeading := false
		for _, f := range g.Findings {
			one := mdFinding(rep, f)
			need := len(one)
			if !wroteHeading {
				need += len(heading)
			}
			if b.Len()+need > budget-noteMax {
				goto done
			}
			if !wroteHeading {
				b.WriteString(heading)
				wroteHeading = true
			}
			b.WriteString(one)
			shown++
		}
	}
done:
	if shown < total {
		fmt.Fprintf(&b, "_%d of %d findings are not shown to keep this report small; see the JSON report._\n\n", total-shown, total)
		return b.String(), false
	}
	return b.String(), true
}

// mdFinding renders one finding with its reproducer.
func mdFinding(rep *report.Report, f report.Finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "- **%s** %s", escape.MarkdownInline(string(f.Severity), 20), escape.MarkdownInline(f.Code, 40))
	if f.CaseID != "" {
		fmt.Fprintf(&b, " · case %s", escape.MarkdownInline(f.CaseID, nameMax))
	}
	fmt.Fprintf(&b, ": %s\n", escape.MarkdownInline(f.Message, textMax))
	code := func(label, text, lang string, max int) {
		if text == "" {
			return
		}
		note := ""
		if n := len([]rune(text)); n > max {
			note = fmt.Sprintf(" (first %d of %d characters; the JSON report has all)", max, n)
		}
		fmt.Fprintf(&b, "\n  %s%s:\n\n", label, note)
		block := escape.MarkdownCodeLang(text, lang, max)
		b.WriteString("  " + strings.ReplaceAll(block, "\n", "\n  ") + "\n")
	}
	code("JSON-RPC", f.Reproducer.JSONRPC, "json", reproducerMax)
	code("Shell", f.Reproducer.Shell, "sh", reproducerMax)
	if note := placeholderNote(f.Reproducer.Shell); note != "" {
		fmt.Fprintf(&b, "\n  %s.\n", escape.MarkdownInline(note, 0))
	}
	generatorLabel := "Generator (prints the tools/call line; pipe it to the server after initialize)"
	if rep.Server.Era == "modern" {
		generatorLabel = "Generator (prints the tools/call line, envelope included; pipe it to the server)"
	}
	code(generatorLabel, f.Reproducer.Generator, "sh", reproducerMax)
	if c, ok := findCase(rep, f); ok && c.Crash != nil && c.Crash.Stderr != "" {
		code("Stderr tail", c.Crash.Stderr, "text", stderrMax)
	}
	b.WriteString("\n")
	return b.String()
}

// mdFixes renders one recommended fix per finding code, worst first.
func mdFixes(rep *report.Report) string {
	if len(rep.Findings) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("### Recommended fixes\n\n")
	for _, f := range recommendedFixes(rep) {
		fmt.Fprintf(&b, "- **%s** (%s, %s, %s): %s\n", escape.MarkdownInline(f.Title, nameMax), escape.MarkdownInline(f.Code, 40),
			escape.MarkdownInline(string(f.Severity), 20), f.Count, escape.MarkdownInline(f.Fix, 0))
	}
	b.WriteString("\n")
	return b.String()
}

func countText(c codeCount) string {
	n := plural(c.Count, "finding", "findings")
	switch {
	case c.Server && c.Tools > 0:
		return n + " in " + plural(c.Tools, "tool", "tools") + " and the server"
	case c.Tools <= 1:
		return n
	}
	return n + " in " + plural(c.Tools, "tool", "tools")
}

// mdLint renders the metadata findings table.
func mdLint(rep *report.Report) string {
	if len(rep.Lint) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("### Metadata findings\n\n| Severity | Tool | Where | Code | Message | Hint |\n|---|---|---|---|---|---|\n")
	for _, l := range rep.Lint {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n",
			escape.MarkdownInline(string(l.Severity), 20), escape.MarkdownInline(orDash(l.Tool), nameMax),
			escape.MarkdownInline(orDash(l.Pointer), nameMax), escape.MarkdownInline(l.Code, 60),
			escape.MarkdownInline(l.Message, textMax), escape.MarkdownInline(l.Hint, textMax))
	}
	b.WriteString("\n")
	return b.String()
}

// mdChecks renders the protocol checks, one row each.
func mdChecks(rep *report.Report) string {
	line := checkLine(rep)
	if line == "" {
		return ""
	}
	var b strings.Builder
	checks := protocolChecks(rep)
	if len(checks) == 0 {
		return "### Protocol checks\n\n" + escape.MarkdownInline(line, textMax) + ".\n\n"
	}
	fmt.Fprintf(&b, "### Protocol checks\n\n%s (%s era); a failed check is a finding, which changes the grade only when the server crashed or hung.\n\n| Check | Status | Expected | What came back |\n|---|---|---|---|\n",
		escape.MarkdownInline(line, textMax), escape.MarkdownInline(orDash(rep.Server.Era), 20))
	for _, c := range checks {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", escape.MarkdownInline(c.ID, nameMax), escape.MarkdownInline(checkStatus(c.Status, c), 60),
			escape.MarkdownInline(orDash(c.Expected), textMax), escape.MarkdownInline(orDash(c.Detail), textMax))
	}
	b.WriteString("\n")
	return b.String()
}

// mdLifecycle renders the lifecycle checks (--sequential): the groups
// detected, then one row per check.
func mdLifecycle(rep *report.Report) string {
	if rep.Lifecycle == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "### Lifecycle checks\n\n%s.\n\n", escape.MarkdownInline("--sequential: "+rep.Lifecycle.Summary, textMax))
	checks := lifecycleChecks(rep)
	if len(checks) == 0 {
		return b.String()
	}
	b.WriteString("A successful read after the delete is a `stale_read` finding; a child readable after its parent's delete is an observation (`orphan_readable`, info). A create or read that failed skips the check, saying why.\n\n| Check | Status | What happened |\n|---|---|---|\n")
	for _, c := range checks {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", escape.MarkdownInline(c.ID, nameMax), escape.MarkdownInline(checkStatus(c.Status, c), 60), escape.MarkdownInline(orDash(c.Detail), textMax))
	}
	b.WriteString("\n")
	return b.String()
}

// mdLearned lists the tools whose valid call was learned from the server
// after synthetic arguments errored (report.Case.LearnedFrom).
func mdLearned(rep *report.Report) string {
	var b strings.Builder
	for _, t := range rep.Tools {
		for _, c := range t.Cases {
			if c.Kind != report.KindValid || c.LearnedFrom == "" {
				continue
			}
			if b.Len() == 0 {
				b.WriteString("### Learned valid calls\n\nSynthetic arguments errored for these tools; mcp-fuzz learned arguments from what the server itself said, and derived the bad-input cases from the ones that worked.\n\n")
				b.WriteString("| Tool | Learned from | Arguments | Verdict |\n|---|---|---|---|\n")
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", escape.MarkdownInline(t.Name, nameMax), escape.MarkdownInline(c.LearnedFrom, nameMax),
				escape.MarkdownInline(string(c.Arguments), 120), escape.MarkdownInline(string(c.Verdict), 40))
		}
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	return b.String()
}

// mdUntested lists the tools that were not called, with reasons.
func mdUntested(rep *report.Report) string {
	var b strings.Builder
	for _, t := range rep.Tools {
		if t.Tested {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("### Tools not called\n\n")
		}
		fmt.Fprintf(&b, "- %s: %s\n", escape.MarkdownInline(t.Name, nameMax), escape.MarkdownInline(orText(t.SkipReason, "no reason recorded"), textMax))
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	return b.String()
}

// mdCases renders the collapsed table of all cases.
func mdCases(rep *report.Report) string {
	n := 0
	var rows strings.Builder
	for _, t := range rep.Tools {
		for _, c := range t.Cases {
			n++
			ms := strconv.FormatFloat(c.DurationMs, 'f', 0, 64)
			if tt := timingText(c); tt != "" {
				ms += " (" + escape.MarkdownInline(tt, textMax) + ")"
			}
			flags := slices.Clone(c.Flags)
			if c.Task {
				flags = append(flags, "task-augmented")
			}
			fmt.Fprintf(&rows, "| %s | %s | %s | %s | %s |\n",
				escape.MarkdownInline(t.Name, nameMax), escape.MarkdownInline(c.ID, nameMax),
				escape.MarkdownInline(string(c.Verdict), 40), escape.MarkdownInline(orText(strings.Join(flags, ", "), ""), 100),
				ms)
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("<details><summary>All %d cases</summary>\n\n| Tool | Case | Verdict | Flags | ms |\n|---|---|---|---|---:|\n%s\n</details>\n", n, rows.String())
}

// dimReason is the reason of d without a leading "not measured: ", which
// the score column already says.
func dimReason(d report.Dimension) string {
	if d.Score == nil {
		return strings.TrimPrefix(d.Reason, "not measured: ")
	}
	return d.Reason
}

func orDash(s string) string { return orText(s, "—") }

func orText(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}
