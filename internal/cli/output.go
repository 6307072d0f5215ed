package cli

import (
	"fmt"
	"os"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/render"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// formatOf returns the format of an -o file, from its extension.
func formatOf(path string) (render.Format, error) {
	f, err := render.ForPath(path)
	if err != nil {
		return f, fmt.Errorf("-o %s: %w", path, err)
	}
	return f, nil
}

// checkFormat checks the name given to --format.
func checkFormat(name string) error {
	if _, err := render.ByName(name); err != nil {
		return fmt.Errorf("--format: %w", err)
	}
	return nil
}

// writeOutput writes rep to the -o file path, in the format of its
// extension.
func writeOutput(path string, rep *report.Report) error {
	f, err := formatOf(path)
	if err != nil {
		return err
	}
	b, err := f.Render(rep, render.Options{})
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
