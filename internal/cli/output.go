package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/render"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// formats maps a format name to its renderer.
var formats = map[string]func(*report.Report) ([]byte, error){
	"json":     render.JSON,
	"markdown": func(r *report.Report) ([]byte, error) { return []byte(render.Markdown(r)), nil },
	"sarif":    func(r *report.Report) ([]byte, error) { return render.SARIF(r, render.SARIFOptions{}) },
	"junit":    render.JUnit,
	"jsonl": func(r *report.Report) ([]byte, error) {
		var b bytes.Buffer
		err := render.JSONL(r, &b)
		return b.Bytes(), err
	},
	"badge": func(r *report.Report) ([]byte, error) { return render.BadgeSVG(r), nil },
}

// extensions maps an output file extension to its format.
var extensions = map[string]string{
	".json": "json", ".md": "markdown", ".sarif": "sarif", ".xml": "junit", ".jsonl": "jsonl", ".svg": "badge",
}

// formatOf returns the format of an output file, from its extension.
func formatOf(path string) (string, error) {
	ext := strings.ToLower(filepath.Ext(path))
	if f, ok := extensions[ext]; ok {
		return f, nil
	}
	return "", fmt.Errorf("-o %s: unknown extension %q (want .json, .md, .sarif, .xml, .jsonl or .svg)", path, ext)
}

func checkFormat(name string) error {
	if name == "text" {
		return nil
	}
	if _, ok := formats[name]; !ok {
		return fmt.Errorf("--format %q: want text, json, markdown, sarif, junit, jsonl or badge", name)
	}
	return nil
}

func writeOutput(path string, rep *report.Report) error {
	f, err := formatOf(path)
	if err != nil {
		return err
	}
	b, err := formats[f](rep)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
