package render

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/render/text"
	"github.com/mcp-fuzz/mcp-fuzz/internal/score"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// MaxMarkdownBytes is the size [Markdown] keeps under: GitHub's limit for a
// job summary (1 MiB).
const MaxMarkdownBytes = 1 << 20

// Markdown renders rep as a Markdown report for a job summary or a file,
// kept under [MaxMarkdownBytes]. See [MarkdownLimit].
func Markdown(rep *report.Report) string { return MarkdownLimit(rep, MaxMarkdownBytes) }

// MarkdownLimit renders rep as Markdown of at most maxBytes bytes (GitHub
// flavoured: tables, alerts, <details>). When the whole report does not fit,
// the table of all cases is dropped first, then findings are cut with a note
// pointing at the JSON report. All server-supplied text is escaped.
func MarkdownLimit(rep *report.Report, maxBytes int) string {
	m := newSummary(rep)
	head := mdHead(m)
	fixes := mdFixes(m)
	tail := mdChecks(m) + mdLifecycle(m) + mdLint(m) + mdLearned(m) + mdUntested(m)
	cases := mdCases(m)
	const findingsHeading = "### Findings\n\n"

	var b strings.Builder
	b.WriteString(head)
	fixed := len(head) + len(fixes) + len(tail)
	budget := maxBytes - fixed
	if m.Findings.Count > 0 {
		budget -= len(findingsHeading)
	}
	findings, all := mdFindings(m, budget-len(cases))
	if !all && cases != "" {
		// Dropping the case table makes room for more findings.
		cases = "_The table of all cases was left out to keep this report under " + sizeText(maxBytes) + "; see the JSON report._\n\n"
		findings, _ = mdFindings(m, budget-len(cases))
	}
	if m.Findings.Count > 0 {
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

// md writes server text for Markdown.
var md = text.Markdown

// mdHead renders the header, badge, coverage, critical callout, dimensions
// and caps.
func mdHead(m *summary) string {
	var b strings.Builder
	sv, r, g := m.Server, m.Run, m.Grade
	md.Fprintf(&b, "## mcp-fuzz: %s — %s\n\n", serverName(sv, md), mdGrade(g))
	md.Fprintf(&b, "![mcp-fuzz %s](%s)\n\n", g.Text, g.BadgeURL)

	transport := md(sv.Transport.Or("—"))
	if !sv.Era.Empty() {
		// The protocol era spoken, and its version: "stdio, modern era (2026-07-28)".
		transport += md.Sprintf(", %s era (%s)", sv.Era, sv.ProtocolVersion.Or("—"))
	}
	md.Fprintf(&b, "**Coverage:** %s tested, %d skipped · %s · transport %s · seed %d · %s s · mcp-fuzz %s\n\n",
		plural(r.Tested, "tool", "tools"), r.Skipped, plural(r.Cases, "case", "cases"),
		transport, r.Seed, r.Seconds, r.Version.Or("—"))
	md.Fprintf(&b, "**Verdicts:** %s\n\n", r.Verdicts)
	if len(r.ContainmentLines) > 0 {
		md.Fprintf(&b, "<details><summary><b>Containment:</b> %s</summary>\n\n", r.Containment)
		for _, l := range r.ContainmentLines {
			md.Fprintf(&b, "- %s\n", l)
		}
		b.WriteString("\n</details>\n\n")
	}
	if !r.Warning.Empty() {
		md.Fprintf(&b, "> [!WARNING]\n> %s\n\n", r.Warning)
	}
	if line := eraLine(r.Eras, md); line != "" {
		md.Fprintf(&b, "**Eras:** %s\n\n", line)
	}
	if len(r.EraNotes) > 0 {
		b.WriteString("> [!NOTE]\n")
		for i, n := range r.EraNotes {
			if i > 0 {
				b.WriteString(">\n")
			}
			md.Fprintf(&b, "> Eras: %s\n", n)
		}
		b.WriteString("\n")
	}
	if !r.EndedEarly.Empty() {
		md.Fprintf(&b, "> [!WARNING]\n> The run ended early: %s\n\n", r.EndedEarly)
	}
	if len(g.Critical) > 0 {
		b.WriteString("> [!CAUTION]\n> **Critical:**\n")
		for _, c := range g.Critical {
			md.Fprintf(&b, "> - %s\n", c)
		}
		b.WriteString("\n")
	}

	b.WriteString("| Dimension | Score | Weight | Reason |\n|---|---:|---:|---|\n")
	for _, d := range m.Dimensions {
		points, reason := "not measured", d.Reason
		if d.Score != nil {
			points = strconv.Itoa(*d.Score)
		} else {
			// The score column says it already.
			reason = reason.TrimPrefix("not measured: ")
		}
		weight := "—"
		if d.Weight > 0 {
			weight = strconv.Itoa(d.Weight)
		}
		md.Fprintf(&b, "| %s | %s | %s | %s |\n", d.Title, points, weight, reason)
	}
	b.WriteString("\n")
	if len(m.Caps) > 0 {
		b.WriteString("**Grade caps:**\n\n")
		for _, c := range m.Caps {
			prefix := "at most "
			if c.NotGraded {
				prefix = ""
			}
			md.Fprintf(&b, "- %s**%s**: %s\n", prefix, c.Grade, c.Reason)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// mdGrade is "grade **C**, score 81/100", "**not graded**", each followed by
// ", 6 of 9 tools untested" when some tools were not called.
func mdGrade(g gradePart) string {
	s := "**" + score.NotGraded + "**"
	switch {
	case !g.Graded:
	case !g.HasLetter:
		s = fmt.Sprintf("score %d/100", g.Score)
	case g.CappedFrom != "":
		s = md.Sprintf("grade **%s** (capped from %s), score %d/100", g.Letter, g.CappedFrom, g.Score)
	default:
		s = md.Sprintf("grade **%s**, score %d/100", g.Letter, g.Score)
	}
	if g.Untested != "" {
		s += ", " + g.Untested
	}
	return s
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
func mdFindings(m *summary, budget int) (out string, all bool) {
	var b strings.Builder
	total, shown := m.Findings.Count, 0
	const noteMax = 200 // room kept for the note
	for _, g := range m.Findings.ByTool {
		heading := "#### Server\n\n"
		if !g.Tool.Empty() {
			heading = md.Sprintf("#### Tool %s (%s)\n\n", g.Tool, plural(len(g.Findings), "finding", "findings"))
		}
		wroteHeading := false
		for _, f := range g.Findings {
			one := mdFinding(m, f)
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
		md.Fprintf(&b, "_%d of %d findings are not shown to keep this report small; see the JSON report._\n\n", total-shown, total)
		return b.String(), false
	}
	return b.String(), true
}

// mdFinding renders one finding with its reproducers.
func mdFinding(m *summary, f findingRow) string {
	var b strings.Builder
	md.Fprintf(&b, "- **%s** %s", f.Severity, f.Code)
	if !f.CaseID.Empty() {
		md.Fprintf(&b, " · case %s", f.CaseID)
	}
	md.Fprintf(&b, ": %s\n", f.Message)
	code := func(label string, u text.Untrusted, lang string, max int) {
		if u.Empty() {
			return
		}
		note := ""
		if n := u.Runes(); n > max {
			note = fmt.Sprintf(" (first %d of %d characters; the JSON report has all)", max, n)
		}
		md.Fprintf(&b, "\n  %s%s:\n\n", label, note)
		block := u.Cut(max).MarkdownCode(lang)
		b.WriteString("  " + strings.ReplaceAll(block, "\n", "\n  ") + "\n")
	}
	code("JSON-RPC", f.JSONRPC, "json", reproducerMax)
	code("Shell", f.Shell, "sh", reproducerMax)
	if !f.Placeholder.Empty() {
		md.Fprintf(&b, "\n  %s.\n", f.Placeholder)
	}
	generatorLabel := "Generator (prints the tools/call line; pipe it to the server after initialize)"
	if m.Server.Modern {
		generatorLabel = "Generator (prints the tools/call line, envelope included; pipe it to the server)"
	}
	code(generatorLabel, f.Generator, "sh", reproducerMax)
	code("Stderr tail", f.Stderr, "text", stderrMax)
	b.WriteString("\n")
	return b.String()
}

// mdFixes renders one recommended fix per finding code, worst first.
func mdFixes(m *summary) string {
	if m.Findings.Count == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("### Recommended fixes\n\n")
	for _, f := range m.Fixes {
		md.Fprintf(&b, "- **%s** (%s, %s, %s): %s\n", f.Title, f.Code, f.Severity, f.Count, f.Fix)
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
func mdLint(m *summary) string {
	if len(m.Lint.Rows) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("### Metadata findings\n\n| Severity | Tool | Where | Code | Message | Hint |\n|---|---|---|---|---|---|\n")
	for _, l := range m.Lint.Rows {
		md.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", l.Severity, l.Tool.Or("—"), l.Pointer.Or("—"), l.Code, l.Message, l.Hint)
	}
	b.WriteString("\n")
	return b.String()
}

// mdChecks renders the protocol checks, one row each.
func mdChecks(m *summary) string {
	c := m.Checks
	if c.Line.Empty() {
		return ""
	}
	if len(c.Protocol) == 0 {
		return "### Protocol checks\n\n" + md(c.Line) + ".\n\n"
	}
	var b strings.Builder
	md.Fprintf(&b, "### Protocol checks\n\n%s (%s era); a failed check is a finding, which changes the grade only when the server crashed or hung.\n\n| Check | Status | Expected | What came back |\n|---|---|---|---|\n",
		c.Line, m.Server.Era.Or("—"))
	for _, p := range c.Protocol {
		md.Fprintf(&b, "| %s | %s | %s | %s |\n", p.ID, p.Status, p.Expected.Or("—"), p.Detail.Or("—"))
	}
	b.WriteString("\n")
	return b.String()
}

// mdLifecycle renders the lifecycle checks (--sequential): the groups
// detected, then one row per check.
func mdLifecycle(m *summary) string {
	l := m.Checks.Lifecycle
	if l == nil {
		return ""
	}
	var b strings.Builder
	md.Fprintf(&b, "### Lifecycle checks\n\n%s.\n\n", l.Summary)
	if len(l.Checks) == 0 {
		return b.String()
	}
	b.WriteString("A successful read after the delete is a `stale_read` finding; a child readable after its parent's delete is an observation (`orphan_readable`, info). A create or read that failed skips the check, saying why.\n\n| Check | Status | What happened |\n|---|---|---|\n")
	for _, p := range l.Checks {
		md.Fprintf(&b, "| %s | %s | %s |\n", p.ID, p.Status, p.Detail.Or("—"))
	}
	b.WriteString("\n")
	return b.String()
}

// mdLearned lists the tools whose valid call was learned from the server
// after synthetic arguments errored (report.Case.LearnedFrom).
func mdLearned(m *summary) string {
	if len(m.Learned) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("### Learned valid calls\n\nSynthetic arguments errored for these tools; mcp-fuzz learned arguments from what the server itself said, and derived the bad-input cases from the ones that worked.\n\n")
	b.WriteString("| Tool | Learned from | Arguments | Verdict |\n|---|---|---|---|\n")
	for _, l := range m.Learned {
		md.Fprintf(&b, "| %s | %s | %s | %s |\n", l.Tool, l.From, l.Arguments, l.Verdict)
	}
	b.WriteString("\n")
	return b.String()
}

// mdUntested lists the tools that were not called, with reasons.
func mdUntested(m *summary) string {
	if len(m.NotCalled.Tools) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("### Tools not called\n\n")
	for _, t := range m.NotCalled.Tools {
		md.Fprintf(&b, "- %s: %s\n", t.Name, t.Reason)
	}
	b.WriteString("\n")
	return b.String()
}

// mdCases renders the collapsed table of all cases.
func mdCases(m *summary) string {
	n := 0
	var rows strings.Builder
	for _, t := range m.Tools {
		for _, c := range t.Cases {
			n++
			ms := strconv.FormatFloat(c.DurationMs, 'f', 0, 64)
			if !c.Timing.Empty() {
				ms += " (" + md(c.Timing) + ")"
			}
			flags := c.Flags
			if c.Task {
				flags = append(slices.Clip(flags), text.New("task-augmented", 0))
			}
			md.Fprintf(&rows, "| %s | %s | %s | %s | %s |\n", t.Name, c.ID, c.Verdict, text.Join(", ", flags...).Cut(100), ms)
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("<details><summary>All %d cases</summary>\n\n| Tool | Case | Verdict | Flags | ms |\n|---|---|---|---|---:|\n%s\n</details>\n", n, rows.String())
}

func orText(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}
