package imagetest

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

var updateReadme = flag.Bool("update-readme", false, "rewrite the action tables in README.md from action.yml")

const (
	tableStart = "<!-- action-table:start (generated from action.yml: go test ./internal/imagetest -update-readme) -->"
	tableEnd   = "<!-- action-table:end -->"
)

// actionTables renders the inputs and outputs of action.yml as Markdown, in
// the order the file lists them.
func actionTables(t *testing.T, actionYML []byte) string {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal(actionYML, &doc); err != nil {
		t.Fatal(err)
	}
	root := doc.Content[0]
	section := func(name string) *yaml.Node {
		for i := 0; i+1 < len(root.Content); i += 2 {
			if root.Content[i].Value == name {
				return root.Content[i+1]
			}
		}
		t.Fatalf("action.yml has no %s", name)
		return nil
	}
	field := func(m *yaml.Node, key string) string {
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == key {
				return m.Content[i+1].Value
			}
		}
		return ""
	}
	cell := func(s string) string {
		return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", `\|`)
	}
	var b strings.Builder
	b.WriteString("| input | default | description |\n|---|---|---|\n")
	in := section("inputs")
	for i := 0; i+1 < len(in.Content); i += 2 {
		def := field(in.Content[i+1], "default")
		if def != "" {
			def = "`" + def + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", in.Content[i].Value, def, cell(field(in.Content[i+1], "description")))
	}
	b.WriteString("\n| output | description |\n|---|---|\n")
	out := section("outputs")
	for i := 0; i+1 < len(out.Content); i += 2 {
		fmt.Fprintf(&b, "| `%s` | %s |\n", out.Content[i].Value, cell(field(out.Content[i+1], "description")))
	}
	return b.String()
}

// The README's inputs/outputs tables are generated from action.yml; this
// test fails when they drift apart.
func TestReadmeActionTablesMatchActionYML(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	action, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	readmePath := filepath.Join(root, "README.md")
	readme, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	i, j := strings.Index(text, tableStart), strings.Index(text, tableEnd)
	if i < 0 || j < i {
		t.Fatalf("README.md lacks the %q … %q markers", tableStart, tableEnd)
	}
	want := tableStart + "\n" + actionTables(t, action) + tableEnd
	got := text[i : j+len(tableEnd)]
	if got == want {
		return
	}
	if *updateReadme {
		if err := os.WriteFile(readmePath, []byte(text[:i]+want+text[j+len(tableEnd):]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatal("README.md's action tables differ from action.yml: run go test ./internal/imagetest -update-readme")
}
