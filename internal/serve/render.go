package serve

import (
	"context"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-fuzz/mcp-fuzz/internal/render"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// RenderInput is the input of render_report.
type RenderInput struct {
	ReportPath string `json:"report_path" jsonschema:"a JSON report written by audit's output_path (or mcp-fuzz -o FILE.json)"`
	Format     string `json:"format,omitempty" jsonschema:"markdown (default), terminal (plain text), sarif or junit"`
	MaxChars   int    `json:"max_chars,omitempty" jsonschema:"cut the rendering at this many characters (default 8000, at most 200000)"`
}

// RenderOutput is what render_report returns.
type RenderOutput struct {
	Format    string  `json:"format"`
	Text      string  `json:"text"`
	Truncated bool    `json:"truncated"`
	Chars     int     `json:"chars" jsonschema:"length of the whole rendering in characters"`
	Score     *int    `json:"score"`
	Grade     *string `json:"grade"`
}

// renderNames maps render_report's format names to the renderers'.
var renderNames = map[string]string{"markdown": "markdown", "terminal": "text", "sarif": "sarif", "junit": "junit"}

func addRender(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{
		Name: "render_report",
		Description: "Render a saved JSON report (audit's output_path) as markdown, terminal (plain text, no colour), sarif (SARIF 2.1.0) or junit (JUnit XML), " +
			"cut at max_chars. Reads the file only: starts nothing and calls nothing.",
		InputSchema: inputSchema[RenderInput](map[string]bound{
			"format":    {enum: []any{"markdown", "terminal", "sarif", "junit"}},
			"max_chars": {min: 1, max: float64(maxReportChars)},
		}),
		Annotations: &mcp.ToolAnnotations{Title: "Render a saved mcp-fuzz report", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in RenderInput) (*mcp.CallToolResult, RenderOutput, error) {
		format := in.Format
		if format == "" {
			format = "markdown"
		}
		name, ok := renderNames[format]
		if !ok {
			return nil, RenderOutput{}, fmt.Errorf("format %q: use markdown, terminal, sarif or junit", format)
		}
		rep, err := report.ReadFile(in.ReportPath)
		if err != nil {
			return nil, RenderOutput{}, fmt.Errorf("reading report_path: %w", err)
		}
		engine.SetReportPath(rep, in.ReportPath)
		text, err := renderText(rep, name)
		if err != nil {
			return nil, RenderOutput{}, err
		}
		limit := in.MaxChars
		if limit <= 0 {
			limit = defaultReportChars
		}
		out := RenderOutput{Format: format, Chars: utf8.RuneCountInString(text), Score: rep.Score, Grade: rep.Grade}
		out.Text, out.Truncated = cut(text, min(limit, maxReportChars), renderCutHint)
		return nil, out, nil
	})
}

// renderCutHint and auditCutHint say how to get the rest of a text cut
// short: render_report reads a file already, so only a larger max_chars
// gives more; audit can write the whole report to output_path.
var (
	renderCutHint = fmt.Sprintf("a larger max_chars gives more, up to %d characters", maxReportChars)
	auditCutHint  = "write output_path for the whole report"
)

// renderText renders rep with the renderer called name, without colour.
func renderText(rep *report.Report, name string) (string, error) {
	f, err := render.ByName(name)
	if err != nil {
		return "", err
	}
	b, err := f.Render(rep, render.Options{})
	if err != nil {
		return "", fmt.Errorf("rendering %s: %w", name, err)
	}
	return string(b), nil
}

// cut returns s cut to at most n characters (runes), ending in "…" and,
// when hint is not empty, a line "… (cut: hint)" saying how to get the
// rest; and whether it was cut.
func cut(s string, n int, hint string) (string, bool) {
	if utf8.RuneCountInString(s) <= n {
		return s, false
	}
	marker := "…"
	if hint != "" {
		marker = "\n… (cut: " + hint + ")\n"
	}
	i, count := 0, 0
	for j := range s {
		if count == n {
			i = j
			break
		}
		count++
	}
	return s[:i] + marker, true
}

// severityRank orders severities, most severe first.
var severityRank = map[report.Severity]int{report.SeverityCritical: 0, report.SeverityError: 1, report.SeverityWarning: 2, report.SeverityInfo: 3}

// bySeverity returns fs sorted most severe first, stable otherwise.
func bySeverity(fs []report.Finding) []report.Finding {
	fs = slices.Clone(fs)
	slices.SortStableFunc(fs, func(a, b report.Finding) int { return severityRank[a.Severity] - severityRank[b.Severity] })
	return fs
}
