package oracle

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/casegen"
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

// same leaves text as it is, for judging without secrets.
func same(s string) string { return s }

// A secret the wire's redaction missed (written with escapes it does not
// know) is plain text once the result is decoded; where the detail's cut
// falls inside it, it must be redacted whole before the cut, not left as a
// prefix no later redaction can recognise.
func TestIsErrorDetailRedactedBeforeTheCut(t *testing.T) {
	t.Parallel()
	const secret = "sekrit-canary-1234567"
	d := leak.NewDetector(map[string]string{"--env API_TOKEN": secret})
	text := strings.Repeat("x", 190) + " " + secret + " tail"
	result, _ := json.Marshal(map[string]any{"isError": true, "content": []any{map[string]any{"type": "text", "text": text}}})
	for _, kind := range []casegen.Kind{casegen.Valid, casegen.Structural} {
		j := Judge(Case{Kind: kind, Leak: d, Args: json.RawMessage(`{}`)}, Outcome{Result: result})
		if strings.Contains(j.Detail, "sekrit") {
			t.Errorf("%v: detail %q keeps part of the secret", kind, j.Detail)
		}
	}
}
