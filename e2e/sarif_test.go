//go:build e2e

package e2e

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
	"github.com/mcp-fuzz/mcp-fuzz/internal/render"
	"github.com/mcp-fuzz/mcp-fuzz/internal/sarifcheck"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// The SARIF files of real runs pass the official SARIF 2.1.0 (rtm.5)
// schema and code scanning's documented requirements (package sarifcheck,
// which embeds the schema the npm package @microsoft/jest-sarif ships): a
// clean reference server, and the demo server with findings of every
// severity, located in this repository's go.mod.
func TestSARIFValidatesAgainstOfficialSchema(t *testing.T) {
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
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	for name, rep := range map[string]*report.Report{"demo": demo, "everything": everything} {
		b, err := render.SARIF(rep, render.SARIFOptions{Location: render.SARIFLocation{URI: "go.mod"}, Category: name})
		if err != nil {
			t.Fatal(err)
		}
		if err := sarifcheck.Check(b, sarifcheck.Options{Root: root}); err != nil {
			t.Errorf("SARIF of the %s run fails the checks: %v", name, err)
		}
	}
	// The schema is strict enough to catch a broken log.
	if sarifcheck.Schema([]byte(`{"version":"2.1.0","runs":[{"results":[]}]}`)) == nil {
		t.Fatal("a run without a tool validates: the schema check cannot fail")
	}
}
