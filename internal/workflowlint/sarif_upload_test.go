package workflowlint

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every workflow and README snippet that uploads SARIF does it the way
// code scanning needs: upload-sarif@v4 (the current major), the
// security-events: write permission, and no continue-on-error hiding a
// failed upload or gate (if: always() on the upload instead).
func TestSARIFUploads(t *testing.T) {
	root := repoRoot(t)
	files := append(workflowFiles(t, root), filepath.Join(root, "README.md"), filepath.Join(root, "examples", "README.md"))
	uploads := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		rel, _ := filepath.Rel(root, f)
		for _, m := range regexp.MustCompile(`github/codeql-action/upload-sarif@\S+`).FindAllString(s, -1) {
			uploads++
			if !strings.HasSuffix(m, "@v4") {
				t.Errorf("%s uses %s, want upload-sarif@v4", rel, m)
			}
		}
		if !strings.Contains(s, "uses: github/codeql-action/upload-sarif@") {
			continue // prose about the upload, no step
		}
		if !strings.Contains(s, "security-events: write") {
			t.Errorf("%s uploads SARIF without security-events: write", rel)
		}
		if strings.Contains(s, "continue-on-error") {
			t.Errorf("%s has continue-on-error: it hides a failed upload or gate", rel)
		}
		if !regexp.MustCompile(`(?s)if: (>-\s+)?always\(\)[^\n]*(\n[^\n]*){0,3}\n\s+uses: github/codeql-action/upload-sarif@`).MatchString(s) {
			t.Errorf("%s: the upload step lacks if: always(), so a failed gate skips the upload", rel)
		}
	}
	if uploads == 0 {
		t.Fatal("no workflow uploads SARIF: the examples lost their upload step")
	}
}
