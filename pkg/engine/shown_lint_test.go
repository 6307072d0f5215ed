package engine

import (
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/session"
)

func TestStaticLintNamesTheEraRequest(t *testing.T) {
	parallel(t)
	for era, want := range map[string]string{
		EraModern: `the server/discover result has no "instructions"`,
		EraLegacy: `the initialize result has no "instructions"`,
	} {
		s := &session.Session{Era: era}
		var got string
		for _, l := range staticLint(s, nil) {
			if l.Code == "no_instructions" {
				got = l.Message
			}
		}
		if got != want {
			t.Errorf("era %s: no_instructions says %q, want %q", era, got, want)
		}
	}
}
