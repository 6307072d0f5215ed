package imagetest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/mcp-fuzz/mcp-fuzz/internal/action"
)

// actionFile is the part of action.yml the tests read.
type actionFile struct {
	Name     string
	Branding struct{ Icon, Color string }
	Inputs   yaml.Node
	Outputs  yaml.Node
	Runs     struct{ Using, Image string }
}

type input struct {
	Description string
	Default     *string
}

// keys returns the keys of a YAML mapping in order, and decodes each value.
func keys[T any](t *testing.T, file string, n yaml.Node) ([]string, map[string]T) {
	t.Helper()
	if n.Kind != yaml.MappingNode {
		t.Fatalf("%s: not a mapping", file)
	}
	var names []string
	vals := map[string]T{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		var v T
		if err := n.Content[i+1].Decode(&v); err != nil {
			t.Fatalf("%s: %s: %v", file, n.Content[i].Value, err)
		}
		names = append(names, n.Content[i].Value)
		vals[n.Content[i].Value] = v
	}
	return names, vals
}

func readAction(t *testing.T, rel string) (actionFile, []string, map[string]input, []string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	var f actionFile
	if err := yaml.Unmarshal(b, &f); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	in, inputs := keys[input](t, rel, f.Inputs)
	out, outputs := keys[input](t, rel, f.Outputs)
	for _, n := range in {
		if inputs[n].Description == "" {
			t.Errorf("%s: input %s has no description", rel, n)
		}
		if inputs[n].Default == nil {
			t.Errorf("%s: input %s has no default", rel, n)
		}
	}
	for _, n := range out {
		if outputs[n].Description == "" {
			t.Errorf("%s: output %s has no description", rel, n)
		}
	}
	return f, in, inputs, out
}

// TestActionYAML checks that action.yml declares exactly the inputs and
// outputs internal/action handles, and that the local twin used by the
// self-test declares the same ones and builds the repository's Dockerfile.
func TestActionYAML(t *testing.T) {
	pub, in, inputs, out := readAction(t, "action.yml")
	if !slices.Equal(in, action.Inputs) {
		t.Errorf("action.yml inputs %v,\ninternal/action handles %v", in, action.Inputs)
	}
	if !slices.Equal(out, action.Outputs) {
		t.Errorf("action.yml outputs %v,\ninternal/action sets %v", out, action.Outputs)
	}
	for name, want := range map[string]string{"github-token": "${{ github.token }}", "comment": "auto"} {
		if d := inputs[name].Default; d == nil || *d != want {
			t.Errorf("input %s: default %v, want %q", name, d, want)
		}
	}
	if pub.Runs.Using != "docker" || pub.Runs.Image != "docker://ghcr.io/mcp-fuzz/mcp-fuzz:1" {
		t.Errorf("action.yml runs %+v, want docker with docker://ghcr.io/mcp-fuzz/mcp-fuzz:1", pub.Runs)
	}
	if pub.Name == "" || pub.Branding.Icon == "" || pub.Branding.Color == "" {
		t.Errorf("action.yml: name %q, branding %+v: all are needed for the Marketplace", pub.Name, pub.Branding)
	}

	const localPath = ".github/actions/local/action.yml"
	local, lin, linputs, lout := readAction(t, localPath)
	if !slices.Equal(lin, in) || !slices.Equal(lout, out) {
		t.Errorf("%s declares inputs %v outputs %v; action.yml declares %v and %v", localPath, lin, lout, in, out)
	}
	for _, n := range in {
		if a, b := inputs[n].Default, linputs[n].Default; a != nil && b != nil && *a != *b {
			t.Errorf("input %s: default %q in action.yml, %q in %s", n, *a, *b, localPath)
		}
	}
	if local.Runs.Using != "docker" {
		t.Errorf("%s: runs.using %q", localPath, local.Runs.Using)
	}
	if got := filepath.Join(filepath.Dir(localPath), local.Runs.Image); got != "Dockerfile" {
		t.Errorf("%s: image %s resolves to %s, want the root Dockerfile", localPath, local.Runs.Image, got)
	}
}
