package score

import (
	"slices"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// Dimension keys of [report.Report.Dimensions].
const (
	Robustness   = "robustness"
	Validation   = "validation"
	ErrorQuality = "errorQuality"
	Liveness     = "liveness"
	Performance  = "performance"
	Schema       = "schema"
)

// NotGraded is the grade of the only cap of a report that could not be graded.
const NotGraded = "not graded"

// Formula is the human text of one dimension's formula and its weight.
type Formula struct {
	Dimension string // a dimension key, e.g. [Robustness]
	Weight    int
	Text      string
}

// formulas lists the dimensions in display order.
var formulas = []Formula{
	{Robustness, 30, "bad-input cases (every kind but valid) not answered with crash, hang or protocol_violation ÷ bad-input cases run (not_run and generator_gap excluded)"},
	{Validation, 25, "forbidden bad inputs handled or rejected ÷ forbidden bad inputs run, on confirmed tools only (a tool is confirmed when its valid call succeeded: ok, empty_success or output_violation); rejections on unconfirmed tools are not credited"},
	{ErrorQuality, 10, "over bad inputs handled or rejected on confirmed tools: (1 × handled + 0.5 × rejected − those cases flagged leak) ÷ their count, floor 0"},
	{Liveness, 15, "valid calls ok ÷ valid calls run (generator_gap and not_run excluded); errored counts 0 (possibly synthetic input)"},
	{Performance, 5, "tools whose answered valid call (ok, empty_success, output_violation or errored) is neither slow nor bloated ÷ tools so measured"},
	{Schema, 15, "mean over listed tools of max(0, 100 − 10 × errors − 4 × warnings − 1 × info) of that tool's lint, minus the same penalty once for server-level lint (no tool, or a tool not listed), floor 0"},
}

// Formulas returns the formula text and weight of every dimension, in display
// order, for renderers to print next to the numbers.
func Formulas() []Formula { return slices.Clone(formulas) }

// Grading returns the human text of how the dimensions become the overall
// score and grade, one rule a line.
func Grading() []string {
	return []string{
		"every dimension is a whole percent, rounded; one with any deduction shows at most 99 and one with any credit at least 1",
		"a dimension with nothing to measure is \"not measured\" and left out of the overall",
		"overall = round(Σ weight × score ÷ Σ weight) over measured dimensions",
		"grade: A ≥ 90, B ≥ 75, C ≥ 60, D ≥ 40, else F; then the lowest of that and every cap that applied",
	}
}

// CapRules returns the grade caps of SPEC §10 as rules: the highest grade
// allowed and the condition.
func CapRules() []report.Cap {
	return []report.Cap{
		{Grade: "F", Reason: "robustness < 50"},
		{Grade: "C", Reason: "any crash, hang or protocol violation"},
		{Grade: "D", Reason: "validation < 50"},
		{Grade: "C", Reason: "validation < 80"},
		{Grade: "C", Reason: "any leak of a secret or of a stack trace"},
		{Grade: "C", Reason: "no tested tool is confirmed (no valid call succeeded)"},
		{Grade: NotGraded, Reason: "nothing tested"},
	}
}
