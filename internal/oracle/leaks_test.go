package oracle

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
