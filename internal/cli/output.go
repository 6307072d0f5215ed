package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/audit"
	"github.com/mcp-fuzz/mcp-fuzz/internal/boundedfile"
	"github.com/mcp-fuzz/mcp-fuzz/internal/sarifloc"
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
func writeOutput(path string, rep *report.Report, opts render.Options) error {
	f, err := formatOf(path)
	if err != nil {
		return err
	}
	b, err := f.Render(rep, opts)
	if err != nil {
		return err
	}
	return boundedfile.Write(path, b, 0o644)
}

// wantsSARIF reports whether stdout's format or an -o file is SARIF.
func wantsSARIF(format string, outs []string) bool {
	if format == "sarif" {
		return true
	}
	for _, o := range outs {
		if f, err := formatOf(o); err == nil && f.Name == "sarif" {
			return true
		}
	}
	return false
}

// sarifOptions locates SARIF results (package sarifloc): relative to the
// repository root (GITHUB_WORKSPACE when the current directory lies in
// it, else the enclosing git work tree), from the current directory. A
// file named by --sarif-location that is not in the repository is a usage
// error.
func (a *App) sarifOptions(s audit.SARIF) (render.SARIFOptions, error) {
	getenv := func(k string) string {
		if a.LookupEnv == nil {
			return ""
		}
		v, _ := a.LookupEnv(k)
		return v
	}
	dir, err := os.Getwd()
	if err != nil {
		return render.SARIFOptions{}, fmt.Errorf("--sarif-location: %w", err)
	}
	root := sarifloc.Root(dir)
	if ws := getenv("GITHUB_WORKSPACE"); ws != "" {
		if rel, err := filepath.Rel(ws, dir); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			root = ws
		}
	}
	wf, atCommit := sarifloc.Workflow(getenv)
	loc, _, err := sarifloc.Find(sarifloc.Input{Root: root, Dir: dir, Named: s.Location, Config: s.Config, Workflow: wf, WorkflowAtCommit: atCommit})
	if errors.Is(err, sarifloc.ErrNamed) {
		return render.SARIFOptions{}, fmt.Errorf("--sarif-location %w", err)
	}
	if err != nil {
		return render.SARIFOptions{}, fmt.Errorf("locating SARIF results: %w", err)
	}
	return render.SARIFOptions{Location: loc, Category: s.Category}, nil
}

// noSARIFLocation is the warning about SARIF results without a location.
const noSARIFLocation = "no file in the repository to locate SARIF results at (no config file, server manifest or --sarif-location): the results have no location, and code scanning refuses such an upload"
