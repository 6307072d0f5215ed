package engine

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/session"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// A banner on stdout before initialize is no case's violation: it is the
// server's, reported with when it happened, redacted, as one protocol
// violation finding of no tool with a reproducer that shows it.
func TestStdoutBannerIsAServerViolation(t *testing.T) {
	parallel(t)
	const secret = "banner-secret-9d2f41c7"
	rep := runFixture(t, "stdout-banner", func(c *Config) {
		c.Cases = 3
		c.Env = []string{"API_TOKEN=" + secret}
	})
	if rep.ServerViolationCount != 1 || len(rep.ServerViolations) != 1 {
		t.Fatalf("server violations = %d %+v, want the banner", rep.ServerViolationCount, rep.ServerViolations)
	}
	v := rep.ServerViolations[0]
	if v.When != session.PhaseBeforeInit || !strings.Contains(v.Excerpt, "stdout-banner 1.0 ready") || !strings.Contains(v.Excerpt, "on stdout") {
		t.Errorf("violation = %+v, want the banner, at startup", v)
	}
	b, _ := json.Marshal(rep)
	if strings.Contains(string(b), secret) {
		t.Error("the secret in the banner reached the report")
	}
	if !strings.Contains(v.Excerpt, "(token ***") {
		t.Errorf("excerpt %q does not show the secret redacted", v.Excerpt)
	}
	// Every case is the well-behaved tool's: none is a violation.
	if f := failures(rep); len(f) != 0 {
		t.Errorf("case failures: %+v", f)
	}
	var found *report.Finding
	for i, f := range rep.Findings {
		if f.Code == string(report.ProtocolViolation) {
			found = &rep.Findings[i]
		}
	}
	if found == nil {
		t.Fatalf("no protocol_violation finding: %+v", rep.Findings)
	}
	if found.ID != "server/stdout#protocol_violation" || found.Tool != "" || found.CaseID != "" || found.Severity != report.SeverityCritical {
		t.Errorf("finding = %+v", *found)
	}
	if !strings.Contains(found.Message, "outside any tool call") || !strings.Contains(found.Message, "at startup") || !strings.Contains(found.Message, "stdout-banner 1.0 ready") {
		t.Errorf("message = %q", found.Message)
	}
	// Counted for the caps and the callout, not for Robustness.
	if len(rep.Critical) == 0 || !strings.Contains(strings.Join(rep.Critical, "\n"), "protocol violation") {
		t.Errorf("critical = %q, want the protocol violation", rep.Critical)
	}
	if s := rep.Dimensions["robustness"].Score; s == nil || *s != 100 {
		t.Errorf("robustness = %v, want 100: no bad input failed", rep.Dimensions["robustness"])
	}
	if rep.Grade == nil || *rep.Grade == "A" {
		t.Errorf("grade = %v, want it capped", rep.Grade)
	}

	// The reproducer works as printed: its output shows the banner line.
	sh := found.Reproducer.Shell
	if !strings.HasPrefix(sh, "env API_TOKEN=\"$API_TOKEN\" ") && !strings.Contains(sh, "| env API_TOKEN=\"$API_TOKEN\" ") {
		t.Errorf("reproducer %q does not take the secret from the environment", sh)
	}
	cmd := exec.Command("sh", "-c", sh)
	cmd.Env = append(cmd.Environ(), "API_TOKEN="+secret)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("reproducer %q: %v", sh, err)
	}
	if first, _, _ := strings.Cut(string(out), "\n"); !strings.HasPrefix(first, "stdout-banner 1.0 ready") {
		t.Errorf("reproducer's first line = %q, want the banner", first)
	}
}

// A flood of stray lines stays bounded: the first few kept, all counted.
func TestStdoutBannerFlood(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "stdout-banner", func(c *Config) {
		c.Cases = 2
		c.Command = append(c.Command, "-lines", "20000")
	})
	if rep.ServerViolationCount != 20000 || len(rep.ServerViolations) != report.MaxServerViolations {
		t.Errorf("server violations: %d counted, %d kept; want 20000 and %d", rep.ServerViolationCount, len(rep.ServerViolations), report.MaxServerViolations)
	}
	b, _ := json.Marshal(rep)
	if len(b) > 64<<10 {
		t.Errorf("report of %d bytes for a 20000-line banner", len(b))
	}
	for _, f := range rep.Findings {
		if f.Code == string(report.ProtocolViolation) && !strings.Contains(f.Message, "and 19992 more") {
			t.Errorf("message = %q, want the rest counted", f.Message)
		}
	}
}

// A server without stray output has no server violations.
func TestNoServerViolations(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "clean", func(c *Config) { c.Cases = 2 })
	if rep.ServerViolationCount != 0 || rep.ServerViolations != nil {
		t.Errorf("server violations = %d %+v", rep.ServerViolationCount, rep.ServerViolations)
	}
}
