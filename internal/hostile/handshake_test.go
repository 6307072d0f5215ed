package hostile

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
)

// TestGarbageInitialize runs a server that stays alive but answers
// initialize with something that is not an InitializeResult: mcp-fuzz must
// exit 3 and say the answer was malformed, not that the server went away.
func TestGarbageInitialize(t *testing.T) {
	t.Parallel()
	for _, result := range []string{"number", "string", "array", "null", "fields", "secret", "secret-escaped"} {
		t.Run(result, func(t *testing.T) {
			t.Parallel()
			r := run(t, opts{
				server: []string{fixture.Build(t, "hostile-garbage-init"), "-result", result},
				bound:  60 * time.Second,
			}, "--startup-timeout", "20s")
			assertNoProcessLeft(t, r)
			r.assertNoCanary(t)
			if strings.Contains(unescapeU(r.stderr), canary) {
				t.Errorf("stderr spells the secret in \\u escapes: %s", tail(r.stderr))
			}
			if r.code != 3 {
				t.Fatalf("exit %d, want 3 (could not connect)\nstderr:\n%s", r.code, tail(r.stderr))
			}
			msg := strings.TrimSpace(r.stderr)
			t.Logf("stderr: %s", msg)
			if !malformedInit.MatchString(msg) {
				t.Errorf("the message does not say the initialize answer was malformed: %s", msg)
			}
			if strings.Contains(msg, "before answering") || strings.Contains(msg, "exited") {
				t.Errorf("the message blames the server's exit, but it answered and was alive: %s", msg)
			}
		})
	}
}

// unescapeU decodes the \uXXXX escapes of s.
func unescapeU(s string) string {
	return regexp.MustCompile(`\\u[0-9a-fA-F]{4}`).ReplaceAllStringFunc(s, func(e string) string {
		n, _ := strconv.ParseUint(e[2:], 16, 16)
		return string(rune(n))
	})
}

// malformedInit matches a message that says the initialize answer was
// malformed.
var malformedInit = regexp.MustCompile(`(?i)initialize.*(malformed|not an? (valid )?InitializeResult|invalid|no protocolVersion)`)
