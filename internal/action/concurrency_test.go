package action

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/audit"
	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
)

// TestActionConcurrency runs the whole Action with the concurrency input
// on a simulated runner: no "not supported yet" warning any more; a tool
// that fails when called from several sessions at once fails a fail-on
// concurrency gate, and its clean twin passes it.
func TestActionConcurrency(t *testing.T) {
	t.Parallel()
	run := func(args string) (int, string) {
		t.Helper()
		ws := t.TempDir() // also the server's working directory
		env := map[string]string{
			"GITHUB_WORKSPACE": ws, "GITHUB_OUTPUT": filepath.Join(ws, "out"), "GITHUB_STEP_SUMMARY": filepath.Join(ws, "summary"),
			"GITHUB_EVENT_NAME": "push", "PATH": os.Getenv("PATH"),
			"INPUT_COMMAND": fixture.Build(t, "concurrency-race") + args, "INPUT_TIMEOUT": "2", "INPUT_CASES": "2",
			"INPUT_CONCURRENCY": "3", "INPUT_FAIL-ON": "concurrency",
		}
		var out bytes.Buffer
		code := Run(context.Background(), Env{Getenv: func(k string) string { return env[k] }, Stdout: &out})
		return code, out.String()
	}
	code, out := run("")
	if code != ExitGate || !strings.Contains(out, "gate missed: 1 concurrency_failure finding (fail-on concurrency): concurrency/reserve#concurrency_failure") {
		t.Errorf("concurrency-race: exit %d, want %d with the concurrency gate missed\n%s", code, ExitGate, out)
	}
	if strings.Contains(out, "not supported yet") {
		t.Errorf("the concurrency input is still warned about:\n%s", out)
	}
	if code, out := run(" --safe"); code != ExitOK || strings.Contains(out, "gate missed") {
		t.Errorf("concurrency-race --safe: exit %d, want %d\n%s", code, ExitOK, out)
	}
}

// The concurrency input becomes the engine's Concurrency; out of bounds it
// is a configuration error that names the input.
func TestConcurrencyInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		value, err string
		want       int
	}{
		{"", "", 0},
		{"4", "", 4},
		{"many", "input concurrency \"many\": want an integer", 0},
		{"17", "input concurrency 17: want 2 to 16, or 0 for none", 0},
		{"1", "input concurrency 1: want 2 to 16, or 0 for none", 0},
	} {
		in := map[string]string{"command": "x", "concurrency": tc.value}
		s, err := readInputs(func(n string) string { return in[n] }, t.TempDir())
		if err == nil {
			var o audit.Options
			o, err = audit.Build(s.audit, inputNames, func(string) (string, bool) { return "", false })
			if err == nil && o.Engine.Concurrency != tc.want {
				t.Errorf("concurrency %q: Concurrency %d, want %d", tc.value, o.Engine.Concurrency, tc.want)
			}
			if len(s.warnings) > 0 {
				t.Errorf("concurrency %q: warnings %v", tc.value, s.warnings)
			}
		}
		if got := ""; err != nil {
			got = audit.Describe(err, inputNames)
			if tc.err == "" || !strings.Contains(got, tc.err) {
				t.Errorf("concurrency %q: error %q, want %q", tc.value, got, tc.err)
			}
		} else if tc.err != "" {
			t.Errorf("concurrency %q: no error, want %q", tc.value, tc.err)
		}
	}
}
