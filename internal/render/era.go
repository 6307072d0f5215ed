package render

import (
	"fmt"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// eraSide is one era's part of [eraLine]: "modern 2026-07-28: D 80".
type eraSide struct {
	era, version, grade string
}

// eraLine puts the two audits of an --era both report side by side, modern
// first: "modern 2026-07-28: D 80 · legacy 2025-11-25: C 70 · 2 verdicts
// differ", or "… · legacy: not audited" when the server speaks one era.
// It is "" for a report of one era. esc escapes the server's words (the
// protocol versions, and grades, which a report file may hold anything in)
// for the output format.
func eraLine(rep *report.Report, esc func(string, int) string) string {
	cmp := rep.EraComparison
	if cmp == nil {
		return ""
	}
	own := eraSide{rep.Server.Era, rep.Server.ProtocolVersion, gradeText(rep)}
	other := eraSide{era: cmp.Era}
	if cmp.Audited() {
		other.version, other.grade = cmp.ProtocolVersion, gradeOf(cmp.Graded, cmp.Score, cmp.Grade)
	}
	sides := []eraSide{own, other}
	if own.era == "legacy" {
		sides = []eraSide{other, own}
	}
	parts := make([]string, 0, 3)
	for _, s := range sides {
		parts = append(parts, s.text(esc))
	}
	if cmp.Audited() {
		parts = append(parts, differText(len(cmp.Differences), cmp.Compared))
	}
	return strings.Join(parts, " · ")
}

func (s eraSide) text(esc func(string, int) string) string {
	name := esc(orDash(s.era), 20)
	if s.grade == "" {
		return name + ": not audited"
	}
	return fmt.Sprintf("%s %s: %s", name, esc(orDash(s.version), 20), esc(s.grade, 30))
}

// differText says "0 verdicts differ" or "1 verdict differs", with how many
// cases were compared.
func differText(n, compared int) string {
	verb := "verdicts differ"
	if n == 1 {
		verb = "verdict differs"
	}
	return fmt.Sprintf("%d %s (%s compared)", n, verb, plural(compared, "case", "cases"))
}

// eraNotes are the lines an --era both report's eras note says: why the
// eras were not compared, or what limits the comparison, then the tools
// listed in one era only, "tools only the legacy era lists: x, y", whose
// cases no comparison covers (their failures are findings all the same).
// The tool names are the server's words: escape the lines for the format.
func eraNotes(cmp *report.EraComparison) []string {
	if cmp == nil {
		return nil
	}
	var out []string
	if cmp.Note != "" {
		out = append(out, cmp.Note)
	}
	if len(cmp.ToolsOnlyInOtherEra) > 0 {
		out = append(out, fmt.Sprintf("tools only the %s era lists: %s", cmp.Era, strings.Join(cmp.ToolsOnlyInOtherEra, ", ")))
	}
	if len(cmp.ToolsMissingInOtherEra) > 0 {
		out = append(out, fmt.Sprintf("tools the %s era does not list: %s", cmp.Era, strings.Join(cmp.ToolsMissingInOtherEra, ", ")))
	}
	return out
}
