package engine

import (
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/secret"
)

func TestRedactURL(t *testing.T) {
	parallel(t)
	for in, want := range map[string]string{
		"http://127.0.0.1:3000/mcp":                   "http://127.0.0.1:3000/mcp",
		"https://alice:pw@example.com/mcp":            "https://%2A%2A%2A@example.com/mcp",
		"https://example.com/mcp?token=abc&region=eu": "https://example.com/mcp?region=eu&token=%2A%2A%2A",
		"https://example.com/mcp?API_KEY=abc":         "https://example.com/mcp?API_KEY=%2A%2A%2A",
	} {
		if got := secret.RedactURL(in); got != want {
			t.Errorf("secret.RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}
