package engine

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every schema problem case generation can report reaches the report with a
// fix hint, unless the static lint rules report it instead. The codes are
// read from casegen's source, so a new code without a hint fails here.
func TestEverySchemaProblemHasAHint(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "internal", "casegen", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("casegen sources: %v", err)
	}
	code := regexp.MustCompile(`(?:Problem\{|\.add\()"([a-z_]+)"`)
	seen := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range code.FindAllStringSubmatch(string(src), -1) {
			seen++
			if c := m[1]; !coveredByLint[c] && hintFor(c) == "" {
				t.Errorf("schema problem %q (%s) has no hint", c, filepath.Base(f))
			}
		}
	}
	if seen < 15 {
		t.Errorf("found only %d problem codes in casegen: the pattern no longer matches its source", seen)
	}
}
