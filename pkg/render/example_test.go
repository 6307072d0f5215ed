package render_test

import (
	"fmt"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/render"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

func ExampleBadgeURL() {
	score, grade := 93, "A"
	rep := &report.Report{Graded: true, Score: &score, Grade: &grade}
	fmt.Println(render.BadgeURL(rep))
	fmt.Println(render.BadgeURL(&report.Report{}))
	// Output:
	// https://img.shields.io/badge/mcp--fuzz-A%2093-brightgreen
	// https://img.shields.io/badge/mcp--fuzz-not%20graded-lightgrey
}
