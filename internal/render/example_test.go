package render_test

import (
	"fmt"

	"github.com/mcp-fuzz/mcp-fuzz/internal/render"
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

func ExampleTerminalWidth() {
	// $COLUMNS or the terminal's width; 0 when neither is known.
	for _, columns := range []int{0, 60, 100, 200} {
		fmt.Println(columns, "→", render.TerminalWidth(columns))
	}
	// Output:
	// 0 → 100
	// 60 → 80
	// 100 → 100
	// 200 → 120
}
