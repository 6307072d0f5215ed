package comment

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

var update = flag.Bool("update", false, "rewrite docs/comment-example.md")

// docs/comment-example.md is the comment reviewers see for a two-leg matrix
// (the demo server and server-memory; reports from real runs, oversize
// arguments elided). Regenerate with go test ./internal/comment -update.
func TestCommentExampleIsCurrent(t *testing.T) {
	t.Parallel()
	var sections []SectionData
	for _, leg := range []struct{ key, file string }{
		{"fuzz (demo)", "leg-demo.json"},
		{"fuzz (memory)", "leg-memory.json"},
	} {
		b, err := os.ReadFile(filepath.Join("testdata", leg.file))
		if err != nil {
			t.Fatal(err)
		}
		var rep report.Report
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatal(err)
		}
		sections = append(sections, newSection(leg.key, "", &rep, MaxBodyBytes/2))
	}
	prev := 70
	sections[0].Previous = &prev // the demo leg scored 70 on the previous push
	got := []byte(Render(sections))
	path := filepath.Join("..", "..", "docs", "comment-example.md")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/comment -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("docs/comment-example.md is stale: run go test ./internal/comment -update")
	}
	if parsed, ok := Parse(string(got)); !ok || len(parsed) != 2 {
		t.Fatalf("the example does not parse back into two sections: %v %d", ok, len(parsed))
	}
}
