package session

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestStartupFailure: the reason of a failed start says who ended the
// server (mcp-fuzz at the deadline, or the server by itself), and the
// quoted output is its last stderr lines, redacted and cut, then its
// non-JSON-RPC stdout lines.
func TestStartupFailure(t *testing.T) {
	t.Parallel()
	expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	redact := func(s string) string { return strings.ReplaceAll(s, "hunter2", "***") }
	var stderr strings.Builder
	for i := range 25 {
		stderr.WriteString("line " + string(rune('a'+i)) + "\n")
	}
	stderr.WriteString("password hunter2 " + strings.Repeat("y", 300) + "\n")
	log := &startupLog{}
	for range startupStdoutLines + 2 {
		log.add("Server listening")
	}
	for _, tc := range []struct {
		name              string
		ctx               context.Context
		status, signalled string
		reason            string
		timedOut          bool
	}{
		{"deadline", expired, "signal SIGTERM", "SIGTERM", "timed out after 1m0s waiting for the initialize answer (mcp-fuzz stopped it)", true},
		{"own exit", context.Background(), "exit code 1", "", "server exited by itself (exit code 1) before answering initialize", false},
		{"own signal", context.Background(), "signal SIGSEGV", "", "server exited by itself (signal SIGSEGV) before answering initialize", false},
		{"stdout closed", context.Background(), "", "", "server closed its stdout before answering initialize", false},
	} {
		msg, mark := startupFailure(tc.ctx, "initialize", time.Minute, tc.status, tc.signalled, stderr.String(), log, redact)
		lines := strings.Split(msg, "\n")
		if lines[0] != tc.reason {
			t.Errorf("%s: reason %q, want %q", tc.name, lines[0], tc.reason)
		}
		if errors.Is(mark, ErrStartupTimedOut) != tc.timedOut {
			t.Errorf("%s: marked %v", tc.name, mark)
		}
		if lines[1] != "its stderr, last 20 of 26 lines:" || lines[2] != "  | line g" || !strings.HasPrefix(lines[21], "  | password *** yyy") || !strings.HasSuffix(lines[21], "…") {
			t.Errorf("%s: stderr quoted as\n%s", tc.name, msg)
		}
		if n := len([]rune(lines[21])); n != len("  | ")+startupLineWidth+1 {
			t.Errorf("%s: a line of %d characters", tc.name, n)
		}
		if !strings.HasSuffix(msg, "its stdout, lines that are not JSON-RPC:"+strings.Repeat("\n  | Server listening", startupStdoutLines)+"\n  (and 2 more)") {
			t.Errorf("%s: stdout quoted as\n%s", tc.name, msg)
		}
	}
	if got := startupOutput("", &startupLog{}, redact); got != "" {
		t.Errorf("nothing written, quoted as %q", got)
	}
}
