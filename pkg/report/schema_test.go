package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/report.schema.json")

// The published schema must match the Go types; regenerate it with
// go test ./pkg/report -update.
func TestPublishedSchemaIsCurrent(t *testing.T) {
	got, err := Schema()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "..", "docs", "report.schema.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./pkg/report -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("docs/report.schema.json is stale: run go test ./pkg/report -update and commit it")
	}
}

func TestValidateJSONRejectsBrokenReports(t *testing.T) {
	for _, doc := range []string{`{"version": 1}`, `[]`, `not json`} {
		if err := ValidateJSON([]byte(doc)); err == nil {
			t.Errorf("ValidateJSON(%s) = nil, want an error", doc)
		}
	}
}
