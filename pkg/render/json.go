package render

import (
	"encoding/json"
	"fmt"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/render/escape"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// JSON renders rep as the JSON report (SPEC §11): indented, ending in a
// newline, with the control characters encoding/json leaves raw escaped
// (see [escape.JSON]).
func JSON(rep *report.Report) ([]byte, error) { return indentJSON(rep) }

// MergedJSON renders several reports (the legs of a matrix) as one JSON
// array of reports, escaped as [JSON] is.
func MergedJSON(reps []*report.Report) ([]byte, error) { return indentJSON(reps) }

func indentJSON(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding report: %w", err)
	}
	return append(escape.JSON(b), '\n'), nil
}
