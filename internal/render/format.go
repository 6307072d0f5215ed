package render

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/words"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// A Format is one way to write a report: its name (as the --format flag
// spells it), the extension of a file written in it (an -o file), and its
// renderer. [Formats] lists them; [ByName] and [ForPath] look one up.
type Format struct {
	Name        string // "markdown"
	Ext         string // ".md"; empty for text, which goes to a terminal, not a file
	Description string // "Markdown report"

	render func(*report.Report, Options) ([]byte, error)
	merge  func([]*report.Report) ([]byte, error) // nil: one report only
}

// Options tune [Format.Render].
type Options struct {
	// Colour turns on ANSI colour in the text format (see [Terminal]); the
	// other formats ignore it.
	Colour bool
	// Width is the terminal's width in columns (0: unknown), which the
	// text format's summary fits (see [TerminalSummary]).
	Width int
	// Verbose makes the text format list every case and reproducer
	// ([Terminal]) instead of the summary.
	Verbose bool
	// Outputs are the files the run wrote (-o), which the text format's
	// summary names.
	Outputs []string
	// SARIF locates the results of the sarif format (see [SARIF]).
	SARIF SARIFOptions
}

// Render renders rep in format f.
func (f Format) Render(rep *report.Report, opts Options) ([]byte, error) {
	return f.render(rep, opts)
}

// CanMerge reports whether f combines several reports into one document
// (see [Format.Merge]).
func (f Format) CanMerge() bool { return f.merge != nil }

// Merge renders several reports (the legs of a matrix) as one document in
// format f, or fails when f cannot ([Format.CanMerge]).
func (f Format) Merge(reps []*report.Report) ([]byte, error) {
	if f.merge == nil {
		return nil, fmt.Errorf("format %q cannot hold merged reports", f.Name)
	}
	return f.merge(reps)
}

// formats is the registry, in the order error messages and help list it.
var formats = []Format{
	{
		Name: "text", Description: "terminal summary (coloured on a terminal)",
		render: func(r *report.Report, o Options) ([]byte, error) {
			if o.Verbose {
				return []byte(Terminal(r, o.Colour)), nil
			}
			return []byte(TerminalSummary(r, TerminalOptions{Colour: o.Colour, Width: o.Width, Outputs: o.Outputs})), nil
		},
	},
	{
		Name: "json", Ext: ".json", Description: "JSON report",
		render: func(r *report.Report, _ Options) ([]byte, error) { return JSON(r) },
		merge:  MergedJSON,
	},
	{
		Name: "markdown", Ext: ".md", Description: "Markdown report",
		render: func(r *report.Report, _ Options) ([]byte, error) { return []byte(Markdown(r)), nil },
		merge:  func(rs []*report.Report) ([]byte, error) { return []byte(MergedMarkdown(rs)), nil },
	},
	{
		Name: "sarif", Ext: ".sarif", Description: "SARIF 2.1.0",
		render: func(r *report.Report, o Options) ([]byte, error) { return SARIF(r, o.SARIF) },
	},
	{
		Name: "junit", Ext: ".xml", Description: "JUnit XML",
		render: func(r *report.Report, _ Options) ([]byte, error) { return JUnit(r) },
	},
	{
		Name: "jsonl", Ext: ".jsonl", Description: "full trace, one line per call",
		render: func(r *report.Report, _ Options) ([]byte, error) {
			var b bytes.Buffer
			err := JSONL(r, &b)
			return b.Bytes(), err
		},
	},
	{
		Name: "badge", Ext: ".svg", Description: "SVG badge",
		render: func(r *report.Report, _ Options) ([]byte, error) { return BadgeSVG(r), nil },
	},
}

// Formats returns every format: text, json, markdown, sarif, junit, jsonl
// and badge.
func Formats() []Format { return slices.Clone(formats) }

// ByName returns the format called name, or an error listing the names.
func ByName(name string) (Format, error) {
	if f, ok := byName(formats, name); ok {
		return f, nil
	}
	return Format{}, fmt.Errorf("unknown format %q (want %s)", name, names(formats))
}

// ForPath returns the format of a file, from its extension (in any case), or
// an error listing the extensions.
func ForPath(path string) (Format, error) {
	ext := strings.ToLower(filepath.Ext(path))
	if f, ok := byExt(formats, ext); ok {
		return f, nil
	}
	return Format{}, fmt.Errorf("unknown extension %q (want %s)", ext, exts(formats))
}

// MergeByName is [ByName] among the formats that can hold merged reports
// ([Format.CanMerge]): markdown and json.
func MergeByName(name string) (Format, error) {
	m := mergeable()
	if f, ok := byName(m, name); ok {
		return f, nil
	}
	if _, ok := byName(formats, name); ok {
		return Format{}, fmt.Errorf("format %q cannot hold merged reports (want %s)", name, names(m))
	}
	return Format{}, fmt.Errorf("unknown format %q (want %s)", name, names(m))
}

// MergeForPath is [ForPath] among the formats that can hold merged reports
// ([Format.CanMerge]): .md and .json files.
func MergeForPath(path string) (Format, error) {
	m := mergeable()
	ext := strings.ToLower(filepath.Ext(path))
	if f, ok := byExt(m, ext); ok {
		return f, nil
	}
	if _, ok := byExt(formats, ext); ok {
		return Format{}, fmt.Errorf("a %s file cannot hold merged reports (want %s)", ext, exts(m))
	}
	return Format{}, fmt.Errorf("unknown extension %q (want %s)", ext, exts(m))
}

func byName(fs []Format, name string) (Format, bool) {
	i := slices.IndexFunc(fs, func(f Format) bool { return f.Name == name })
	if i < 0 {
		return Format{}, false
	}
	return fs[i], true
}

func byExt(fs []Format, ext string) (Format, bool) {
	i := slices.IndexFunc(fs, func(f Format) bool { return f.Ext != "" && f.Ext == ext })
	if i < 0 {
		return Format{}, false
	}
	return fs[i], true
}

// mergeable returns the formats that can hold merged reports.
func mergeable() []Format {
	return slices.DeleteFunc(Formats(), func(f Format) bool { return !f.CanMerge() })
}

// names lists the names of fs: "json, markdown or badge".
func names(fs []Format) string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Name)
	}
	return words.OrList(out)
}

// exts lists the extensions of fs: ".json, .md or .svg".
func exts(fs []Format) string {
	var out []string
	for _, f := range fs {
		if f.Ext != "" {
			out = append(out, f.Ext)
		}
	}
	return words.OrList(out)
}
