package engine

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/leak"
)

// The leak flag is for the run's secrets and internals, never for an echo of
// what mcp-fuzz itself sent.
func TestLeaksIgnoreEchoOfArguments(t *testing.T) {
	d := leak.NewDetector(map[string]string{"--env API_TOKEN": "canary-7f3a9c1e5b"})
	trace := "Error: boom\n    at handler (/srv/app/index.js:12:5)"
	for _, tc := range []struct {
		name, args, text string
		seen             []string
		want             []string
	}{
		{"secret seen", `{"q":"x"}`, "token ***", []string{"--env API_TOKEN"}, []string{"value of --env API_TOKEN"}},
		{"secret echoed from a user example", `{"q":"canary-7f3a9c1e5b"}`, "token ***", []string{"--env API_TOKEN"}, nil},
		{"stack trace", `{"q":"x"}`, trace, nil, []string{"Node stack frame"}},
		{"probe string echoed", `{"q":"at handler (/srv/app/index.js:12:5)"}`, "no such item: at handler (/srv/app/index.js:12:5)", nil, nil},
		{"echo of a JSON-escaped argument", `{"q":"line\nat handler (/srv/app/index.js:12:5)"}`, "got: line\nat handler (/srv/app/index.js:12:5)", nil, nil},
	} {
		got := leaks(d, json.RawMessage(tc.args), tc.text, tc.seen)
		if len(tc.want) == 0 && len(got) == 0 {
			continue
		}
		if len(got) == 0 || !slices.Equal(got[:len(tc.want)], tc.want) {
			t.Errorf("%s: leaks = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestSecretValuesFollowSPEC(t *testing.T) {
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
	t.Parallel()
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
	text := "config: ghp_own0123456789abcdef"
	_, seen := d.RedactText(text)
	if l := leaks(d, json.RawMessage(`{"q":"x"}`), text, seen); !slices.Contains(l, "value of mcp-fuzz's own GITHUB_TOKEN") {
		t.Errorf("leaks = %q, want the own token named", l)
	}
}
