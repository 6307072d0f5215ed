package engine

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/casegen"
	"github.com/mcp-fuzz/mcp-fuzz/internal/leak"
	"github.com/mcp-fuzz/mcp-fuzz/internal/oracle"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

func TestSecretValuesFollowSPEC(t *testing.T) {
	parallel(t)
	cfg := Config{
		Command: []string{"srv"},
		Env:     []string{"API_TOKEN=canary-7f3a9c1e5b", "DEBUG=true", "N8N_MCP_TELEMETRY_DISABLED=true", "PORT=3000"},
		Secrets: []string{"VENDOR"},
		LookupEnv: func(n string) (string, bool) {
			if n == "VENDOR" {
				return "vendor-value-1", true
			}
			return "", false
		},
	}
	got := cfg.SecretValues()
	want := []string{"canary-7f3a9c1e5b", "vendor-value-1"}
	if !slices.Equal(got, want) {
		t.Errorf("SecretValues = %q, want %q", got, want)
	}
}

// mcp-fuzz's own secrets join the set under a source of their own, after
// those given to the server: a value also given keeps that source, and an
// ineligible one is left out.
func TestOwnSecretsJoinTheSet(t *testing.T) {
	parallel(t)
	cfg := Config{
		Command: []string{"srv"},
		Env:     []string{"API_TOKEN=canary-7f3a9c1e5b"},
		OwnSecrets: map[string]string{
			"GITHUB_TOKEN": "ghp_own0123456789abcdef",
			"CI_TOKEN":     "canary-7f3a9c1e5b", // also given to the server
			"SHORT_TOKEN":  "abc",
			"FLAG_TOKEN":   "true",
		},
	}
	got := cfg.secrets()
	want := map[string]string{"--env API_TOKEN": "canary-7f3a9c1e5b", "mcp-fuzz's own GITHUB_TOKEN": "ghp_own0123456789abcdef"}
	if len(got) != len(want) || got["--env API_TOKEN"] != want["--env API_TOKEN"] || got["mcp-fuzz's own GITHUB_TOKEN"] != want["mcp-fuzz's own GITHUB_TOKEN"] {
		t.Errorf("secrets = %q, want %q", got, want)
	}
	if v := cfg.SecretValues(); !slices.Equal(v, []string{"canary-7f3a9c1e5b", "ghp_own0123456789abcdef"}) {
		t.Errorf("SecretValues = %q", v)
	}
	// An answer carrying the own token is a leak, named as mcp-fuzz's own.
	d := leak.NewDetector(got)
	redacted, seen := d.RedactText("config: ghp_own0123456789abcdef")
	answer, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": redacted}}})
	j := oracle.Judge(oracle.Case{Kind: casegen.Valid, Leak: d, Args: json.RawMessage(`{"q":"x"}`)}, oracle.Outcome{Result: answer, Secrets: seen})
	if !slices.Contains(j.Flags, report.FlagLeak) || !strings.Contains(j.Detail, "value of mcp-fuzz's own GITHUB_TOKEN") {
		t.Errorf("flags %q, detail %q: want the own token named as a leak", j.Flags, j.Detail)
	}
}
