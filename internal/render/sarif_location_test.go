package render

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/sarifcheck"
)

// TestSARIFLocationURIEncoded checks that a location whose path holds "#",
// "?", "%" or a space is written as a URI reference that names that file:
// "c#1/x.yml" unencoded is the file "c" with a fragment.
func TestSARIFLocationURIEncoded(t *testing.T) {
	root := t.TempDir()
	rel := "c #1/50%?/mcp-fuzz.yml"
	if err := os.MkdirAll(filepath.Join(root, filepath.Dir(rel)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, rel), []byte("x: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := SARIF(gradedReport(), SARIFOptions{Location: SARIFLocation{URI: rel, Line: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"uri": "c%20%231/50%25%3F/mcp-fuzz.yml"`) {
		t.Errorf("no encoded uri in:\n%.3000s", out)
	}
	if err := sarifcheck.Check(out, sarifcheck.Options{Root: root}); err != nil {
		t.Error(err)
	}
}
