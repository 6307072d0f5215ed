package engine

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/oracle"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// envelopeIDs are the stdio envelope checks, in the order they run.
var envelopeIDs = []string{
	"envelope/no-meta", "envelope/no-protocol-version", "envelope/unsupported-version",
	"envelope/malformed-version", "envelope/no-capabilities", "envelope/malformed-capabilities",
	"envelope/malformed-client-info", "envelope/tampered-request-state",
}

// checkFinding is the finding of check id, failing the test when there is
// none.
func checkFinding(t *testing.T, rep *report.Report, id string) report.Finding {
	t.Helper()
	for _, f := range rep.Findings {
		if strings.HasPrefix(f.ID, "protocol/"+id+"#") {
			return f
		}
	}
	t.Fatalf("no finding of check %s in %+v", id, rep.Findings)
	return report.Finding{}
}

// TestEnvelopeChecksStrict: a modern server that checks every request's
// envelope, and the requestState it handed out, passes every check over
// stdio, and the HTTP-only checks are not listed.
func TestEnvelopeChecksStrict(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "modern-only", nil)
	var ids []string
	for _, c := range rep.Checks {
		if c.Group != "envelope" {
			continue
		}
		ids = append(ids, c.ID)
		if c.Status != report.CheckPass {
			t.Errorf("%s: %s %s: %s", c.ID, c.Status, c.Code, c.Detail)
		}
	}
	if strings.Join(ids, " ") != strings.Join(envelopeIDs, " ") {
		t.Errorf("checks %v, want %v", ids, envelopeIDs)
	}
	if c := checkByID(t, rep, "envelope/unsupported-version"); c.ErrorCode == nil || *c.ErrorCode != oracle.CodeUnsupportedProtocolVersion {
		t.Errorf("unsupported-version: %+v", c)
	}
	for _, f := range rep.Findings {
		if strings.HasPrefix(f.ID, "protocol/") {
			t.Errorf("finding %s on a strict server", f.ID)
		}
	}
}

// TestEnvelopeChecksLenient: the same server ignoring the envelope and
// the requestState gets a finding per check, the broken required fields
// as warnings, client info and the tampered state as notes; the
// reproducer shows the request served as printed; the score and grade do
// not move (no tool's input caused them).
func TestEnvelopeChecksLenient(t *testing.T) {
	parallel(t)
	strict := runFixture(t, "modern-only", nil)
	rep := runFixture(t, "modern-only", func(c *Config) { c.Command = append(c.Command, "--lenient") })
	want := map[string]string{
		"envelope/no-meta":                report.CodeEnvelopeIgnored,
		"envelope/no-protocol-version":    report.CodeEnvelopeIgnored,
		"envelope/unsupported-version":    report.CodeEnvelopeIgnored,
		"envelope/malformed-version":      report.CodeEnvelopeIgnored,
		"envelope/no-capabilities":        report.CodeEnvelopeIgnored,
		"envelope/malformed-capabilities": report.CodeEnvelopeIgnored,
		"envelope/malformed-client-info":  report.CodeEnvelopeLenient,
		"envelope/tampered-request-state": report.CodeEnvelopeLenient,
	}
	for id, code := range want {
		c := checkByID(t, rep, id)
		if c.Status != report.CheckFail || c.Code != code {
			t.Errorf("%s: %s %s, want fail %s", id, c.Status, c.Code, code)
		}
		f := checkFinding(t, rep, id)
		if sev := report.DescribeCode(code).Severity; f.ID != "protocol/"+id+"#"+code || f.Severity != sev || f.Tool != "" {
			t.Errorf("finding %+v, want severity %s and no tool", f, sev)
		}
	}
	f := checkFinding(t, rep, "envelope/unsupported-version")
	if !strings.Contains(f.Reproducer.JSONRPC, unsupportedVersion) {
		t.Errorf("reproducer %q does not send the unsupported version", f.Reproducer.JSONRPC)
	}
	if out := runShell(t, f.Reproducer.Shell); strings.Count(out, `"tools"`) < 2 {
		t.Errorf("reproducer %s printed %q; want the check's request served", f.Reproducer.Shell, out)
	}
	if *rep.Score != *strict.Score || *rep.Grade != *strict.Grade {
		t.Errorf("lenient %d %s, strict %d %s: warnings of the checks moved the score", *rep.Score, *rep.Grade, *strict.Score, *strict.Grade)
	}
}

// TestEnvelopeCheckCrash: a server that exits on a malformed envelope
// fails the checks with crash findings (a restart between checks), which
// cap the grade at D and raise the critical callout.
func TestEnvelopeCheckCrash(t *testing.T) {
	// Not parallel: under load a restart between checks has been seen to
	// fail fast and be reported as the time budget spent; until that is
	// understood, this test keeps its server starts to itself.
	rep := runFixture(t, "modern-only", func(c *Config) { c.Command = append(c.Command, "--exit-on-bad-envelope") })
	c := checkByID(t, rep, "envelope/no-meta")
	if c.Status != report.CheckFail || c.Code != string(report.Crash) || c.Crash == nil || c.Crash.How != report.CrashExit || !strings.Contains(c.Crash.ExitStatus, "3") {
		t.Fatalf("no-meta: %+v (crash %+v)", c, c.Crash)
	}
	// Every check that breaks the envelope crashed, each on a server
	// started again.
	crashes := 0
	for _, c := range rep.Checks {
		if c.Code == string(report.Crash) {
			crashes++
		}
	}
	if crashes != 7 {
		t.Errorf("%d checks crashed, want 7: %+v", crashes, rep.Checks)
	}
	if *rep.Grade != "D" || !strings.Contains(strings.Join(rep.Critical, " "), "the protocol checks") {
		t.Errorf("grade %s, critical %v: want D and the checks named", *rep.Grade, rep.Critical)
	}
	if f := checkFinding(t, rep, "envelope/no-meta"); f.Severity != report.SeverityCritical {
		t.Errorf("finding %+v", f)
	}
}

// TestEnvelopeCheckHangsBounded: a server that never answers a malformed
// envelope costs two check timeouts, not one per check: the rest are
// skipped, saying why.
func TestEnvelopeCheckHangsBounded(t *testing.T) {
	// Not parallel: it judges wall-clock times (slow, hang), which
	// tests running alongside would distort.
	rep := runFixture(t, "modern-only", func(c *Config) { c.Command = append(c.Command, "--hang-on-bad-envelope") })
	var hangs, skipped int
	for _, c := range rep.Checks {
		if c.Group != "envelope" {
			continue
		}
		switch {
		case c.Code == string(report.Hang):
			hangs++
		case c.Status == report.CheckSkip && strings.Contains(c.Detail, "did not answer 2 checks"):
			skipped++
		}
	}
	if hangs != maxCheckHangs || skipped != len(envelopeIDs)-maxCheckHangs {
		t.Errorf("%d hangs, %d skipped: %+v", hangs, skipped, rep.Checks)
	}
}

// TestEnvelopeChecksLegacy: a legacy server gets no envelope checks.
func TestEnvelopeChecksLegacy(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "legacy-only", nil)
	if len(rep.Checks) != 0 {
		t.Errorf("checks on a legacy server: %+v", rep.Checks)
	}
}

// TestRequestStateNotRecorded: a requestState carrying a secret in base64
// goes back to the server as it was handed out (the valid call succeeds),
// and neither it nor its tampered form reaches the report.
func TestRequestStateNotRecorded(t *testing.T) {
	parallel(t)
	const token = "sk-live-SECRET1234567890abcdef"
	rep := runFixture(t, "modern-only", func(c *Config) {
		c.Command = append(c.Command, "--secret-state")
		c.Env = []string{"UPSTREAM_TOKEN=" + token}
	})
	if c := validCase(t, rep, "confirm"); c.Verdict != report.OK {
		t.Errorf("confirm/valid: %s %s: the state did not go back as it was handed out", c.Verdict, c.Detail)
	}
	c := checkByID(t, rep, "envelope/tampered-request-state")
	if c.Status != report.CheckPass || !strings.Contains(string(c.Request), "REQUEST_STATE: the requestState of the call's input_required answer") {
		t.Errorf("tampered-request-state: %s %s, request %s", c.Status, c.Detail, c.Request)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	enc := base64.StdEncoding.EncodeToString([]byte(`{"user":"bob","upstream_token":"` + token + `"}`))
	for _, s := range []string{token, enc[:24], enc[len(enc)-24:]} {
		if strings.Contains(string(b), s) {
			t.Errorf("the report holds %q", s)
		}
	}
}

// TestCheckBudget: a server that answers each malformed request just under
// the timeout costs the checks' time budget, not a timeout per check. Not
// parallel: it shortens the package's budget, which every other run reads.
func TestCheckBudget(t *testing.T) {
	defer func(b time.Duration) { checkBudget = b }(checkBudget)
	checkBudget = 2 * time.Second
	rep := runFixture(t, "modern-only", func(c *Config) { c.Command = append(c.Command, "--slow-on-bad-envelope") })
	ran, spent := 0, 0
	for _, c := range rep.Checks {
		switch {
		case c.Status == report.CheckSkip && strings.Contains(c.Detail, "time budget of 2s was spent"):
			spent++
		case c.Group == "envelope" && c.Status == report.CheckPass:
			ran++
		}
	}
	if ran == 0 || ran > 3 || spent == 0 {
		t.Errorf("%d envelope checks answered, %d skipped for the budget: %+v", ran, spent, rep.Checks)
	}
}
