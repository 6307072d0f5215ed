package repro

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/mcptool"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// TestReproduceEscapesControls checks that the reproducer's JSON-RPC line
// writes the control characters of a tool name and its arguments as \uXXXX,
// so every report format can print it unchanged, and that it still carries
// the same name and arguments.
func TestReproduceEscapesControls(t *testing.T) {
	t.Parallel()
	name := "t\u202e\u009b"
	args, _ := json.Marshal(map[string]string{"q": "\u009b[31m\x7f\u2066\u061c"})
	for _, target := range []Target{{Command: []string{"node", "server.js"}}, {URL: "http://localhost:3000/mcp"}} {
		r := Case(&report.Report{}, target, name, report.Case{Arguments: args})
		if strings.ContainsAny(r.JSONRPC+r.Shell, "\u202e\u009b\x7f\u2066\u061c") {
			t.Errorf("raw control character in reproducer: %q / %q", r.JSONRPC, r.Shell)
		}
		if !strings.Contains(r.Shell, r.JSONRPC) {
			t.Errorf("shell line %q does not send %q", r.Shell, r.JSONRPC)
		}
		var call struct {
			Params struct {
				Name      string            `json:"name"`
				Arguments map[string]string `json:"arguments"`
			} `json:"params"`
		}
		if err := json.Unmarshal([]byte(r.JSONRPC), &call); err != nil {
			t.Fatalf("%q: %v", r.JSONRPC, err)
		}
		if call.Params.Name != name || call.Params.Arguments["q"] != "\u009b[31m\x7f\u2066\u061c" {
			t.Errorf("reproducer changed the call: %+v", call.Params)
		}
	}
}

func TestTaskParams(t *testing.T) {
	t.Parallel()
	got := string(mcptool.TaskParams(mcptool.CallParams("r", []byte(`{"q":"x"}`)), 1500*1e6))
	if want := `{"name":"r","arguments":{"q":"x"},"task":{"ttl":1500}}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
