package action

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/mcp-fuzz/mcp-fuzz/internal/options"
	"github.com/mcp-fuzz/mcp-fuzz/internal/options/optionstest"
)

// yamlInput is an input of an action.yml.
type yamlInput struct {
	Description string
	Default     *string
}

// readInputsOf returns the inputs of the action.yml at rel (from the
// repository's root), in order.
func readInputsOf(t *testing.T, rel string) ([]string, map[string]yamlInput) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", rel))
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ Inputs yaml.Node }
	if err := yaml.Unmarshal(b, &f); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	var names []string
	inputs := map[string]yamlInput{}
	for i := 0; i+1 < len(f.Inputs.Content); i += 2 {
		var in yamlInput
		if err := f.Inputs.Content[i+1].Decode(&in); err != nil {
			t.Fatalf("%s: input %s: %v", rel, f.Inputs.Content[i].Value, err)
		}
		names = append(names, f.Inputs.Content[i].Value)
		inputs[f.Inputs.Content[i].Value] = in
	}
	return names, inputs
}

// hostOnly are the inputs of host/action.yml that install mcp-fuzz rather
// than set anything of a run.
var hostOnly = []string{"version", "build-from-source"}

// The three action.yml files declare exactly the table's inputs (the host
// variant two more of its own), the root and local ones in the table's
// order, each with the table's default: and a description whose stated
// default and range are the table's.
func TestActionYAMLInputsAreTheTables(t *testing.T) {
	for _, rel := range []string{"action.yml", ".github/actions/local/action.yml", "host/action.yml"} {
		names, inputs := readInputsOf(t, rel)
		want := options.InputNames()
		if rel == "host/action.yml" {
			names = slices.DeleteFunc(names, func(n string) bool { return slices.Contains(hostOnly, n) })
			slices.Sort(names)
			slices.Sort(want)
		}
		if !slices.Equal(names, want) {
			t.Errorf("%s declares the inputs\n%v\nthe table has\n%v", rel, names, want)
		}
		for _, name := range names {
			o, ok := options.ByInput(name)
			if !ok {
				continue
			}
			in := inputs[name]
			if d := in.Default; (d != nil || rel != "host/action.yml") && (d == nil || *d != o.Input.Default) {
				t.Errorf("%s: input %s: default: %v, the table %q", rel, name, yamlDefault(d), o.Input.Default)
			}
			for _, m := range optionstest.For(o).Mismatches(in.Description) {
				t.Errorf("%s: input %s %s", rel, name, m)
			}
		}
	}
}

func yamlDefault(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}
