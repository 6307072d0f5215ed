package action

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
)

// runClean runs the action in-process on the clean fixture server (one
// tool, add_numbers) with the given inputs; it returns the exit code, the
// workflow commands, the progress and the job summary.
func runClean(t *testing.T, inputs map[string]string) (code int, stdout, stderr, summary string) {
	t.Helper()
	return runFixture(t, "clean", inputs)
}

// runFixture runs the action in-process on the fixture server name; see
// [runClean].
func runFixture(t *testing.T, name string, inputs map[string]string) (code int, stdout, stderr, summary string) {
	t.Helper()
	ws := t.TempDir()
	env := map[string]string{
		"GITHUB_WORKSPACE": ws, "GITHUB_OUTPUT": filepath.Join(ws, "o"), "GITHUB_STEP_SUMMARY": filepath.Join(ws, "s"),
		"INPUT_COMMAND": fixture.Build(t, name), "INPUT_TIMEOUT": "2", "INPUT_CASES": "2", "INPUT_COMMENT": "off",
	}
	for k, v := range inputs {
		env["INPUT_"+strings.ToUpper(k)] = v
	}
	var out, progress bytes.Buffer
	code = Run(context.Background(), Env{Getenv: func(k string) string { return env[k] }, Stdout: &out, Stderr: &progress})
	b, _ := os.ReadFile(env["GITHUB_STEP_SUMMARY"])
	return code, out.String(), progress.String(), string(b)
}

// TestInputToolsMatchingNothing: the tools input names no tool of the
// server: bad inputs (exit 2), said as the input, with the nearest name.
func TestInputToolsMatchingNothing(t *testing.T) {
	t.Parallel()
	code, out, _, summary := runClean(t, map[string]string{"tools": "add_number"})
	want := `input tools add_number matches no tool of the server; did you mean "add_numbers"?`
	if code != ExitUsage || !strings.Contains(out, "::error::mcp-fuzz: "+want+"\n") || !strings.Contains(summary, want) {
		t.Errorf("code %d; want %d and %q in\n%s\nsummary:\n%s", code, ExitUsage, want, out, summary)
	}
}

// TestInputSkipReason: a tool skipped by the skip-tools input says so, not
// "--skip-tools".
func TestInputSkipReason(t *testing.T) {
	t.Parallel()
	code, _, progress, summary := runClean(t, map[string]string{"skip-tools": "add_*"})
	if code != ExitOK || !strings.Contains(progress, "add_numbers skipped (skipped by input skip-tools add_*)") ||
		!strings.Contains(summary, `add\_numbers: skipped by input skip-tools add\_\*`) || strings.Contains(summary, "--skip-tools") {
		t.Errorf("code %d, progress:\n%s\nsummary:\n%s", code, progress, summary)
	}
}

// TestServerViolationAnnotation: a banner on stdout before initialize is
// annotated as the server's protocol violation, and fail-on protocol
// fails the step.
func TestServerViolationAnnotation(t *testing.T) {
	t.Parallel()
	code, out, _, summary := runFixture(t, "stdout-banner", map[string]string{"fail-on": "protocol"})
	want := "::error title=mcp-fuzz%3A protocol_violation in the server::protocol_violation in the server: 1 finding (server/stdout): the server broke the protocol outside any tool call (1 violation): at startup: non jsonrpc line on stdout: "
	if code != ExitGate || !strings.Contains(out, want) || !strings.Contains(summary, "#### Server") {
		t.Errorf("code %d; want %d and %q in\n%s\nsummary:\n%s", code, ExitGate, want, out, summary)
	}
}
