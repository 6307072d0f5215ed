package action

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestActionProtocolInput: the protocol input sends the probes (their
// checks land in the report), no "not supported yet" warning is left for
// it, and a value that is no boolean is a usage error.
func TestActionProtocolInput(t *testing.T) {
	t.Parallel()
	bin := mcpFuzzBinary(t)
	run := func(protocol string) (int, string, map[string]any) {
		t.Helper()
		ws := t.TempDir()
		rep := filepath.Join(ws, "r.json")
		env := map[string]string{
			"GITHUB_WORKSPACE": ws, "GITHUB_OUTPUT": filepath.Join(ws, "out"), "GITHUB_STEP_SUMMARY": filepath.Join(ws, "summary"),
			"GITHUB_EVENT_NAME": "push", "PATH": os.Getenv("PATH"),
			"INPUT_COMMAND": bin + " demo-server", "INPUT_TIMEOUT": "1", "INPUT_TOOLS": "get_stats", "INPUT_FAIL-ON": "none",
			"INPUT_PROTOCOL": protocol, "INPUT_REPORT": rep,
		}
		var out bytes.Buffer
		code := Run(context.Background(), Env{Getenv: func(k string) string { return env[k] }, Stdout: &out})
		var r map[string]any
		if b, err := os.ReadFile(rep); err == nil {
			_ = json.Unmarshal(b, &r)
		}
		return code, out.String(), r
	}
	code, out, r := run("true")
	if code != ExitOK || strings.Contains(out, "not supported yet") {
		t.Fatalf("protocol true: exit %d\n%s", code, out)
	}
	b, _ := json.Marshal(r["checks"])
	if !strings.Contains(string(b), `"probe/unknown-method"`) {
		t.Errorf("no probe in the report's checks: %s", b)
	}
	if _, _, r := run(""); strings.Contains(mustMarshal(r["checks"]), "probe/") {
		t.Error("probes sent without the input")
	}
	if code, out, _ := run("yes please"); code != ExitUsage || !strings.Contains(out, `input protocol "yes please": want true or false`) {
		t.Errorf("protocol 'yes please': exit %d\n%s", code, out)
	}
}

func mustMarshal(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
