package engine

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/mcpheader"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// TestReproducerQuotesTheServersVersion: the protocolVersion a legacy HTTP
// server answered goes into the curl reproducer's header; a hostile one
// must not break out of the quoting (it is dropped, being no version token).
func TestReproducerQuotesTheServersVersion(t *testing.T) {
	parallel(t)
	marker := filepath.Join(t.TempDir(), "pwned")
	hostile := `2025-11-25' -H "X: $(touch ` + marker + `)" '`
	rep := &report.Report{Server: report.Server{ProtocolVersion: hostile, Era: EraLegacy}}
	cfg := Config{URL: "http://127.0.0.1:1/mcp"}
	c := report.Case{ID: "t/valid", Kind: report.KindValid, Arguments: []byte(`{}`)}
	for _, era := range []string{EraLegacy, EraModern} {
		rep.Server.Era = era
		r := reproduce(rep, cfg, "t", c)
		// (Inside the modern era's JSON body the text is quoted, not dropped.)
		if era == EraLegacy && strings.Contains(r.Shell, "$(touch") {
			t.Errorf("%s era: the server's version reached the reproducer: %s", era, r.Shell)
		}
		// Run it: curl fails to connect, but nothing the server chose runs.
		cmd := exec.Command("sh", "-c", r.Shell)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
		_ = cmd.Run()
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("%s era: running the reproducer ran the server's command: %s", era, r.Shell)
		}
	}
	if got := mcpheader.Token("2025-11-25"); got != "2025-11-25" {
		t.Errorf("mcpheader.Token(2025-11-25) = %q", got)
	}
	for _, bad := range []string{"", "a\r\nX: y", "2025 11", strings.Repeat("9", 65), "v'1"} {
		if got := mcpheader.Token(bad); got != "" {
			t.Errorf("mcpheader.Token(%q) = %q, want empty", bad, got)
		}
	}
}
