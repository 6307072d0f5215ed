package score

import "slices"

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

// Formula is one dimension of the score: its key, its title in reports and
// its weight in the overall score. How each is computed is docs/BEHAVIOUR.md#score-grade-gates-and-exit-codes.
type Formula struct {
	Dimension string // a dimension key, e.g. [Robustness]
	Title     string // "Robustness"
	Weight    int
}

// formulas lists the dimensions in display order; the weights sum to 100.
var formulas = []Formula{
	{Robustness, "Robustness", 30},
	{Validation, "Validation", 25},
	{ErrorQuality, "Error quality", 10},
	{Liveness, "Liveness", 15},
	{Performance, "Performance", 5},
	{Schema, "Schema", 15},
}

// Formulas returns every dimension with its title and weight, in display
// order, for renderers to print next to the numbers.
func Formulas() []Formula { return slices.Clone(formulas) }
