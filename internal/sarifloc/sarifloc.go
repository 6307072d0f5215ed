package sarifloc

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mcp-fuzz/mcp-fuzz/internal/render"
)

// Manifests are the files that define a server, most specific first: the
// MCP Registry's server.json, then the package files of the languages MCP
// servers are written in.
var Manifests = []string{
	"server.json",
	"package.json",
	"pyproject.toml",
	"setup.py",
	"Cargo.toml",
	"go.mod",
	"pom.xml",
	"build.gradle.kts",
	"build.gradle",
	"composer.json",
	"Gemfile",
}

// Where a location came from.
const (
	FromNamed    = "named"
	FromConfig   = "config"
	FromManifest = "manifest"
	FromWorkflow = "workflow"
)

// Input is what [Find] looks at. Paths are absolute or relative to Dir.
type Input struct {
	// Root is the repository root: GITHUB_WORKSPACE in the Action, the
	// enclosing git work tree on the command line ([Root]). Locations are
	// relative to it, and a file outside it is never one.
	Root string
	// Dir is where the server lives: the Action's working-directory, the
	// command line's current directory.
	Dir string
	// Named is the file the user named (sarif-location), or "".
	Named string
	// Config is the config file in use, or "".
	Config string
	// Workflow is the running workflow's file relative to Root
	// (".github/workflows/ci.yml", from GITHUB_WORKFLOW_REF), or "".
	// WorkflowAtCommit says the workflow ran from the commit being
	// analysed (GITHUB_WORKFLOW_SHA is GITHUB_SHA), so the file is in the
	// repository even when the job did not check it out.
	Workflow         string
	WorkflowAtCommit bool
}

// ErrNamed is wrapped by the error about a named file that cannot be a
// location.
var ErrNamed = errors.New("not a file in the repository")

// Find returns the location of SARIF results and where it came from, the
// first of:
//
//  1. the named file (an error when it is not a regular file inside Root);
//  2. the config file, its line 1, and each per-tool entry's line for that
//     tool's results;
//  3. the nearest manifest ([Manifests], in that order) in Dir or a parent
//     of it up to Root;
//  4. the workflow file, at the first line that uses mcp-fuzz, when it is
//     checked out or WorkflowAtCommit;
//
// and a zero location when none exists: the caller warns, since code
// scanning refuses results without one. A file is never one that does not
// exist, and symlinks are resolved (code scanning cannot show a result in
// a symlink).
func Find(in Input) (render.SARIFLocation, string, error) {
	root, err := resolve(in.Root)
	if err != nil {
		return render.SARIFLocation{}, "", fmt.Errorf("repository root %s: %w", in.Root, err)
	}
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(in.Dir, p)
	}
	if in.Named != "" {
		uri, ok := inside(root, abs(in.Named))
		if !ok {
			return render.SARIFLocation{}, "", fmt.Errorf("%s: %w %s", in.Named, ErrNamed, in.Root)
		}
		return render.SARIFLocation{URI: uri, Line: 1}, FromNamed, nil
	}
	if in.Config != "" {
		if uri, ok := inside(root, abs(in.Config)); ok {
			return render.SARIFLocation{URI: uri, Line: 1, ToolLines: toolLines(abs(in.Config))}, FromConfig, nil
		}
	}
	if dir, err := resolve(in.Dir); err == nil {
		if _, ok := within(root, dir); !ok {
			dir = root
		}
		for {
			for _, m := range Manifests {
				if uri, ok := inside(root, filepath.Join(dir, m)); ok {
					return render.SARIFLocation{URI: uri, Line: 1}, FromManifest, nil
				}
			}
			if dir == root || filepath.Dir(dir) == dir {
				break
			}
			dir = filepath.Dir(dir)
		}
	}
	if w := filepath.ToSlash(filepath.Clean(in.Workflow)); in.Workflow != "" && !filepath.IsAbs(in.Workflow) && !strings.HasPrefix(w, "../") {
		if uri, ok := inside(root, filepath.Join(root, filepath.FromSlash(w))); ok {
			return render.SARIFLocation{URI: uri, Line: usesLine(filepath.Join(root, filepath.FromSlash(uri)))}, FromWorkflow, nil
		}
		if in.WorkflowAtCommit {
			return render.SARIFLocation{URI: w, Line: 1}, FromWorkflow, nil
		}
	}
	return render.SARIFLocation{}, "", nil
}

// Root returns the repository root for dir: the nearest directory at or
// above it with a .git entry, else dir itself.
func Root(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

// resolve makes p absolute with its symlinks resolved.
func resolve(p string) (string, error) {
	a, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(a)
}

// inside returns the slash path of file relative to root when file is a
// regular file (symlinks resolved) inside root.
func inside(root, file string) (string, bool) {
	real, err := resolve(file)
	if err != nil {
		return "", false
	}
	if st, err := os.Stat(real); err != nil || !st.Mode().IsRegular() {
		return "", false
	}
	return within(root, real)
}

// within returns path relative to root, when it lies inside it.
func within(root, path string) (string, bool) {
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// toolLines returns the line of each tool's entry under per-tool in the
// config file at path; nil when it cannot be read (the file was already
// validated by the audit, so this only loses the better lines).
func toolLines(path string) map[string]int {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var doc yaml.Node
	if yaml.Unmarshal(b, &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	top := doc.Content[0].Content
	for i := 0; i+1 < len(top); i += 2 {
		if top[i].Value != "per-tool" || top[i+1].Kind != yaml.MappingNode {
			continue
		}
		out := map[string]int{}
		tools := top[i+1].Content
		for j := 0; j+1 < len(tools); j += 2 {
			out[tools[j].Value] = tools[j].Line
		}
		return out
	}
	return nil
}

// usesLine returns the first line of the workflow at path that uses
// mcp-fuzz (its step), or 1.
func usesLine(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 1
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for n := 1; s.Scan(); n++ {
		if l := s.Text(); strings.Contains(l, "uses:") && strings.Contains(l, "mcp-fuzz") {
			return n
		}
	}
	return 1
}

// Workflow reads the running workflow's file from the GitHub Actions
// environment (getenv): its path relative to the repository root, from
// GITHUB_WORKFLOW_REF ("owner/repo/.github/workflows/ci.yml@refs/heads/main")
// when that names this repository (GITHUB_REPOSITORY), and whether it ran
// from the analysed commit (GITHUB_WORKFLOW_SHA is GITHUB_SHA). "" outside
// Actions.
func Workflow(getenv func(string) string) (path string, atCommit bool) {
	ref, repo := getenv("GITHUB_WORKFLOW_REF"), getenv("GITHUB_REPOSITORY")
	if ref == "" || repo == "" {
		return "", false
	}
	if i := strings.LastIndex(ref, "@"); i >= 0 {
		ref = ref[:i]
	}
	path, ok := strings.CutPrefix(ref, repo+"/")
	if !ok || path == "" {
		return "", false
	}
	sha := getenv("GITHUB_WORKFLOW_SHA")
	return path, sha != "" && sha == getenv("GITHUB_SHA")
}
