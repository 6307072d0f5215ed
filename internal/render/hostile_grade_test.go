package render

import (
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// A report file is input: a grade that is no grade (HTML, a Markdown link,
// a terminal escape, a newline) is shown as text in every Markdown place.
func TestHostileGradeStaysText(t *testing.T) {
	grade := "C | <img src=x onerror=alert(1)> [click](https://evil.example) \x1b[2J\n## forged heading)"
	score := 70
	rep := &report.Report{Graded: true, Score: &score, Grade: &grade}
	rep.Normalize()
	for name, out := range map[string]string{
		"markdown": Markdown(rep),
		"merged":   MergedMarkdown([]*report.Report{rep, rep}),
		"badge":    BadgeURL(rep),
	} {
		for _, bad := range []string{"<img", "\x1b", "\n## forged", "](https://evil"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s output carries %q raw", name, bad)
			}
		}
	}
	if u := BadgeURL(rep); strings.ContainsAny(u, " ()<>\n") {
		t.Errorf("badge URL %q can end a Markdown link", u)
	}
}
