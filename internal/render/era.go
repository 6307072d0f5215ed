package render

import (
	"fmt"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/render/text"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// erasPart is the two audits of an --era both report, modern first.
type erasPart struct {
	Sides [2]eraSide
	// Differ says how many verdicts differ ([differText]); "" when the
	// other era was not audited.
	Differ string
}

// eraSide is one era's part of [eraLine]: "modern 2026-07-28: D 80".
type eraSide struct {
	Era, Version, Grade text.Untrusted
	Audited             bool
}

// erasOf is the eras of rep, nil for a report of one era.
func erasOf(rep *report.Report) *erasPart {
	cmp := rep.EraComparison
	if cmp == nil {
		return nil
	}
	side := func(era, version, grade string) eraSide {
		return eraSide{Era: text.New(era, 20).Or("—"), Version: text.New(version, 20).Or("—"), Grade: text.New(grade, 30), Audited: grade != ""}
	}
	own := side(rep.Server.Era, rep.Server.ProtocolVersion, gradeText(rep))
	other := side(cmp.Era, "", "")
	e := &erasPart{}
	if cmp.Audited() {
		other = side(cmp.Era, cmp.ProtocolVersion, gradeOf(cmp.Graded, cmp.Score, cmp.Grade))
		e.Differ = differText(len(cmp.Differences), cmp.Compared)
	}
	e.Sides = [2]eraSide{own, other}
	if rep.Server.Era == report.EraLegacy {
		e.Sides = [2]eraSide{other, own}
	}
	return e
}

// eraLine puts the two audits of an --era both report side by side, modern
// first, as m writes them: "modern 2026-07-28: D 80 · legacy 2025-11-25: C
// 70 · 2 verdicts differ", or "… · legacy: not audited" when the server
// speaks one era. It is "" for a report of one era (e nil).
func eraLine(e *erasPart, m text.Medium) string {
	if e == nil {
		return ""
	}
	parts := make([]string, 0, 3)
	for _, s := range e.Sides {
		if !s.Audited {
			parts = append(parts, m(s.Era)+": not audited")
			continue
		}
		parts = append(parts, m.Sprintf("%s %s: %s", s.Era, s.Version, s.Grade))
	}
	if e.Differ != "" {
		parts = append(parts, e.Differ)
	}
	return strings.Join(parts, " · ")
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
