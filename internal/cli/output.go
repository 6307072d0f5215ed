package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/audit"
	"github.com/mcp-fuzz/mcp-fuzz/internal/boundedfile"
	"github.com/mcp-fuzz/mcp-fuzz/internal/render"
	"github.com/mcp-fuzz/mcp-fuzz/internal/sarifloc"
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

// output is an -o file: its path and its directory, opened by
// [openOutputs].
type output struct {
	path string
	dest *boundedfile.Dest
	err  error // why the directory could not be opened (dest is nil)
}

// outputs are the -o files of a command.
type outputs []output

// openOutputs opens the directory of each path in paths, as it is now
// (symbolic links followed: the user's own layout), and holds it open.
// A run calls it before the server starts, so that whatever the server
// does to the paths meanwhile (replace a directory with a symbolic link
// to another, rename it) cannot redirect the reports: each is written
// into the directory opened here, and a directory removed since fails
// its write (see [boundedfile.Dest]). A directory that cannot be opened
// is not an error yet: its write fails, saying why. The caller closes
// the outputs.
func openOutputs(paths []string) outputs {
	outs := make(outputs, 0, len(paths))
	for _, path := range paths {
		d, err := boundedfile.OpenDest(path)
		outs = append(outs, output{path: path, dest: d, err: err})
	}
	return outs
}

// paths returns the paths of outs, in order.
func (outs outputs) paths() []string {
	p := make([]string, len(outs))
	for i, o := range outs {
		p[i] = o.path
	}
	return p
}

// close closes the directories of outs.
func (outs outputs) close() {
	for _, o := range outs {
		if o.dest != nil {
			_ = o.dest.Close()
		}
	}
}

// write writes data to o's path, through the directory opened for it.
func (o output) write(data []byte, opts boundedfile.Options) error {
	switch {
	case o.err != nil:
		return fmt.Errorf("%s: %w", o.path, o.err)
	case o.dest == nil:
		return fmt.Errorf("%s: its directory was not opened", o.path)
	}
	return o.dest.Write(data, opts)
}

// moved says whether o's directory no longer is where its path leads, so
// that the file written is not at the path.
func (o output) moved() bool {
	return o.dest != nil && o.dest.Moved()
}

// movedWarning is the warning about an output written into a directory
// that was moved or replaced since it was opened.
func movedWarning(path string) string {
	return fmt.Sprintf("the directory of %s was moved or replaced during the run: the file was written in the directory that was there when mcp-fuzz started, not where the path leads now", path)
}

// writeOutput writes rep to the -o file o, in the format of its
// extension.
func writeOutput(o output, rep *report.Report, opts render.Options) error {
	f, err := formatOf(o.path)
	if err != nil {
		return err
	}
	b, err := f.Render(rep, opts)
	if err != nil {
		return err
	}
	return o.write(b, boundedfile.Options{Perm: 0o644})
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
