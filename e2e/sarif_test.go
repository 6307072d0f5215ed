//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/render"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// sarifSchema is the official SARIF 2.1.0 (rtm.5) JSON Schema, as shipped in
// the pinned npm package @microsoft/jest-sarif (installed by setup.sh; it is
// not part of this repository).
func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	requireNode(t)
	path := filepath.Join(testdataDir, "node_modules", "@microsoft", "jest-sarif", "lib", "schemas", "sarif-2.1.0-rtm.5.json")
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("SARIF schema not installed: %v", err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("sarif-2.1.0.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("sarif-2.1.0.json")
	if err != nil {
		t.Fatalf("compiling the SARIF schema: %v", err)
	}
	return s
}

// The SARIF files of real runs validate against the official schema: a
// clean reference server, and the demo server with findings of every
// severity.
func TestSARIFValidatesAgainstOfficialSchema(t *testing.T) {
	schema := sarifSchema(t)
	bin := fixture.Program(t, "./cmd/mcp-fuzz", "mcp-fuzz")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	demo, err := engine.Run(ctx, engine.Config{Command: []string{bin, "demo-server"}, Timeout: time.Second, Cases: 8})
	if err != nil {
		t.Fatal(err)
	}
	if len(demo.Findings) == 0 {
		t.Fatal("the demo run has no findings")
	}
	everything := audit(t, engine.Config{Command: everythingStdio(t), SkipTools: []string{"trigger-long-running-operation"}})
	for name, rep := range map[string]*report.Report{"demo": demo, "everything": everything} {
		b, err := render.SARIF(rep, render.SARIFOptions{})
		if err != nil {
			t.Fatal(err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(inst); err != nil {
			t.Errorf("SARIF of the %s run does not validate: %v", name, err)
		}
	}
	// The schema is strict enough to catch a broken log.
	broken, _ := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(`{"version":"2.1.0","runs":[{"results":[]}]}`)))
	if schema.Validate(broken) == nil {
		t.Fatal("a run without a tool validates: the schema check cannot fail")
	}
}
