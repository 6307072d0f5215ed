package sarifloc

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/render"
)

// tree writes files (path -> content) under a new directory and returns it.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

const config = `timeout: 5s
per-tool:
  get_weather:
    example: {city: Paris}
  "delete_all":
    skip: true
`

const workflow = `on: push
jobs:
  fuzz:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: mcp-fuzz/mcp-fuzz@v1
`

func TestFind(t *testing.T) {
	root := tree(t, map[string]string{
		"go.mod":                         "module x\n",
		"servers/weather/package.json":   "{}\n",
		"servers/weather/pyproject.toml": "[project]\n",
		"servers/weather/.mcp-fuzz.yml":  config,
		"servers/empty/README.md":        "\n",
		"servers/registry/server.json":   "{}\n",
		"servers/registry/package.json":  "{}\n",
		".github/workflows/fuzz.yml":     workflow,
		"docs/notes.md":                  "\n",
	})
	weather := filepath.Join(root, "servers", "weather")
	for _, tc := range []struct {
		name string
		in   Input
		want render.SARIFLocation
		from string
	}{
		{"named, relative to dir", Input{Dir: weather, Named: "../../docs/notes.md", Config: ".mcp-fuzz.yml"},
			render.SARIFLocation{URI: "docs/notes.md", Line: 1}, FromNamed},
		{"config with tool lines", Input{Dir: weather, Config: filepath.Join(weather, ".mcp-fuzz.yml")},
			render.SARIFLocation{URI: "servers/weather/.mcp-fuzz.yml", Line: 1, ToolLines: map[string]int{"get_weather": 3, "delete_all": 5}}, FromConfig},
		{"config outside the repository is skipped", Input{Dir: weather, Config: os.DevNull},
			render.SARIFLocation{URI: "servers/weather/package.json", Line: 1}, FromManifest},
		{"manifest order in one directory", Input{Dir: filepath.Join(root, "servers", "registry")},
			render.SARIFLocation{URI: "servers/registry/server.json", Line: 1}, FromManifest},
		{"nearest manifest up the tree", Input{Dir: filepath.Join(root, "servers", "empty")},
			render.SARIFLocation{URI: "go.mod", Line: 1}, FromManifest},
		{"dir outside the repository searches the root", Input{Dir: t.TempDir()},
			render.SARIFLocation{URI: "go.mod", Line: 1}, FromManifest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.in.Root = root
			got, from, err := Find(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if got.URI != tc.want.URI || got.Line != tc.want.Line || from != tc.from || len(got.ToolLines) != len(tc.want.ToolLines) {
				t.Fatalf("Find = %+v from %s, want %+v from %s", got, from, tc.want, tc.from)
			}
			for k, v := range tc.want.ToolLines {
				if got.ToolLines[k] != v {
					t.Errorf("line of %s = %d, want %d", k, got.ToolLines[k], v)
				}
			}
		})
	}
}

// Without a manifest: the workflow file, at its mcp-fuzz step; when it is
// not checked out, only if the workflow ran from the analysed commit; else
// nothing.
func TestFindWorkflow(t *testing.T) {
	root := tree(t, map[string]string{".github/workflows/fuzz.yml": workflow})
	got, from, err := Find(Input{Root: root, Dir: root, Workflow: ".github/workflows/fuzz.yml"})
	if err != nil || got.URI != ".github/workflows/fuzz.yml" || got.Line != 7 || from != FromWorkflow {
		t.Errorf("checked out: %+v %s %v", got, from, err)
	}
	empty := t.TempDir()
	got, _, _ = Find(Input{Root: empty, Dir: empty, Workflow: ".github/workflows/fuzz.yml", WorkflowAtCommit: true})
	if got.URI != ".github/workflows/fuzz.yml" || got.Line != 1 {
		t.Errorf("at the commit: %+v", got)
	}
	got, from, err = Find(Input{Root: empty, Dir: empty, Workflow: ".github/workflows/fuzz.yml"})
	if err != nil || got.URI != "" || from != "" {
		t.Errorf("not checked out, another commit: %+v %s %v", got, from, err)
	}
	got, _, _ = Find(Input{Root: empty, Dir: empty, Workflow: "../elsewhere.yml", WorkflowAtCommit: true})
	if got.URI != "" {
		t.Errorf("workflow outside the repository: %+v", got)
	}
}

// A named file must exist inside the repository.
func TestFindNamedMissing(t *testing.T) {
	root := tree(t, map[string]string{"go.mod": "module x\n"})
	outside := tree(t, map[string]string{"x.json": "{}"})
	for _, named := range []string{"nope.json", filepath.Join(outside, "x.json"), "."} {
		_, _, err := Find(Input{Root: root, Dir: root, Named: named})
		if !errors.Is(err, ErrNamed) {
			t.Errorf("%s: err = %v, want ErrNamed", named, err)
		}
	}
}

// A symlinked config resolves to its target (code scanning cannot show a
// result in a symlink); a link that leaves the repository is skipped.
func TestFindSymlink(t *testing.T) {
	root := tree(t, map[string]string{"conf/real.yml": config, "package.json": "{}"})
	if err := os.Symlink(filepath.Join(root, "conf", "real.yml"), filepath.Join(root, ".mcp-fuzz.yml")); err != nil {
		t.Skip(err)
	}
	got, _, _ := Find(Input{Root: root, Dir: root, Config: ".mcp-fuzz.yml"})
	if got.URI != "conf/real.yml" {
		t.Errorf("symlinked config at %q", got.URI)
	}
	outside := tree(t, map[string]string{"o.yml": config})
	os.Remove(filepath.Join(root, ".mcp-fuzz.yml"))
	os.Symlink(filepath.Join(outside, "o.yml"), filepath.Join(root, ".mcp-fuzz.yml"))
	got, _, _ = Find(Input{Root: root, Dir: root, Config: ".mcp-fuzz.yml"})
	if got.URI != "package.json" {
		t.Errorf("config linked outside: %q", got.URI)
	}
}

func TestRoot(t *testing.T) {
	root := tree(t, map[string]string{".git/HEAD": "ref\n", "a/b/c.txt": ""})
	if got := Root(filepath.Join(root, "a", "b")); got != root {
		t.Errorf("Root = %s, want %s", got, root)
	}
	bare := t.TempDir()
	if got := Root(bare); got != bare {
		t.Errorf("Root without .git = %s", got)
	}
}

func TestWorkflow(t *testing.T) {
	env := map[string]string{
		"GITHUB_WORKFLOW_REF": "octo/repo/.github/workflows/fuzz.yml@refs/pull/7/merge",
		"GITHUB_REPOSITORY":   "octo/repo",
		"GITHUB_WORKFLOW_SHA": "abc", "GITHUB_SHA": "abc",
	}
	get := func(k string) string { return env[k] }
	if p, at := Workflow(get); p != ".github/workflows/fuzz.yml" || !at {
		t.Errorf("Workflow = %q %v", p, at)
	}
	env["GITHUB_SHA"] = "def"
	if _, at := Workflow(get); at {
		t.Error("another commit counts as the workflow's")
	}
	env["GITHUB_REPOSITORY"] = "other/repo"
	if p, _ := Workflow(get); p != "" {
		t.Errorf("another repository's workflow: %q", p)
	}
	if p, _ := Workflow(func(string) string { return "" }); p != "" {
		t.Errorf("outside Actions: %q", p)
	}
}
