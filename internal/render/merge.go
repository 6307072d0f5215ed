package render

import (
	"fmt"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/render/text"
	"github.com/mcp-fuzz/mcp-fuzz/internal/score"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// TargetName names a report's target in one line: the server's name and
// version, then the command or URL.
func TargetName(rep *report.Report) string {
	where := rep.Target.URL
	if where == "" {
		where = rep.Target.Command
	}
	name := strings.TrimSpace(rep.Server.Name + " " + rep.Server.Version)
	if name == "" {
		return where
	}
	return name + " (" + where + ")"
}

// MergedMarkdown renders several reports (the legs of a matrix) as one
// document: a table with a row per target, then each report's own section,
// all within [MaxMarkdownBytes].
func MergedMarkdown(reps []*report.Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## mcp-fuzz: %d targets\n\n", len(reps))
	b.WriteString("| Target | Grade | Score | Crashes | Hangs | Protocol violations | Silent accepts | Leaks |\n|---|---|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range reps {
		points, grade := "—", score.NotGraded
		if r.Graded && r.Score != nil && r.Grade != nil {
			points, grade = fmt.Sprint(*r.Score), md(text.New(*r.Grade, 20))
		}
		if u := score.Untested(r); u != "" {
			grade += " (" + u + ")"
		}
		s := r.Summary
		md.Fprintf(&b, "| %s | %s | %s | %d | %d | %d | %d | %d |\n",
			text.New(TargetName(r), 120), grade, points,
			s.Crash, s.Hang, s.ProtocolViolation, s.Accepted, s.Leak)
	}
	if len(reps) == 0 {
		return b.String()
	}
	share := (MaxMarkdownBytes - b.Len()) / len(reps)
	for _, r := range reps {
		b.WriteString("\n---\n\n")
		// Each section starts one heading level down.
		section := strings.ReplaceAll("\n"+MarkdownLimit(r, share-16), "\n## ", "\n### ")
		b.WriteString(strings.TrimPrefix(section, "\n"))
	}
	return b.String()
}
