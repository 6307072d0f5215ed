package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// concurrencyFixture audits fixture name (with args) with --concurrency
// n, in a working directory of its own (concurrency-race keeps its state
// there).
func concurrencyFixture(t *testing.T, name string, n int, args ...string) *report.Report {
	t.Helper()
	return runFixture(t, name, func(c *Config) {
		c.Command = append(c.Command, args...)
		c.Cases = 3
		c.Concurrency = n
		c.Cwd = t.TempDir()
	})
}

func concurrencyFinding(rep *report.Report, id string) *report.Finding {
	for i := range rep.Findings {
		if rep.Findings[i].ID == id {
			return &rep.Findings[i]
		}
	}
	return nil
}

// A tool whose shared state has no lock succeeds alone and fails when
// several sessions call it at once: a concurrency_failure that names the
// tool and reproduces as that many processes at once, and that the
// concurrency fail-on kind gates on. One session at a time, the server is
// fine.
func TestConcurrencyRaceFlagged(t *testing.T) {
	parallel(t)
	rep := concurrencyFixture(t, "concurrency-race", 4)
	if rep.Config.Concurrency != 4 {
		t.Errorf("settings concurrency = %d, want 4", rep.Config.Concurrency)
	}
	if v := validCase(t, rep, "reserve"); !v.Verdict.Confirms() {
		t.Fatalf("reserve's valid call alone = %s (%s), want a success", v.Verdict, v.Detail)
	}
	c := checkByID(t, rep, "concurrency/reserve")
	if c.Status != report.CheckFail || c.Code != report.CodeConcurrencyFailure || c.Tool != "reserve" || c.Group != "concurrency" {
		t.Fatalf("concurrency/reserve = %+v, want a concurrency_failure of tool reserve", c)
	}
	if !strings.Contains(c.Detail, "of 4 calls made at once did not succeed") || !strings.Contains(c.Detail, "busy") {
		t.Errorf("detail = %q, want how many of 4 calls failed and what they said", c.Detail)
	}
	f := concurrencyFinding(rep, "concurrency/reserve#concurrency_failure")
	if f == nil {
		t.Fatalf("no finding concurrency/reserve#concurrency_failure in %+v", rep.Findings)
	}
	if f.Severity != report.SeverityError || f.Tool != "reserve" || !strings.HasPrefix(f.Reproducer.Shell, "for i in $(seq 4); do ( ") || !strings.Contains(f.Reproducer.JSONRPC, `"reserve"`) {
		t.Errorf("finding = %+v, want an error of tool reserve reproduced 4 times at once", f)
	}
	for _, id := range []string{"concurrency/same-session", "concurrency/cancel"} {
		if c := checkByID(t, rep, id); c.Status != report.CheckPass {
			t.Errorf("%s = %+v, want a pass: one session at a time the server is fine", id, c)
		}
	}
	for _, cp := range rep.Caps {
		if strings.Contains(cp.Reason, "concurrency") {
			t.Errorf("cap %+v: a concurrency failure is no crash and caps nothing", cp)
		}
	}
}

// The clean twin, the same tool without shared state, passes every check.
func TestConcurrencySafeTwin(t *testing.T) {
	parallel(t)
	rep := concurrencyFixture(t, "concurrency-race", 4, "--safe")
	for _, id := range []string{"concurrency/reserve", "concurrency/same-session", "concurrency/cancel"} {
		if c := checkByID(t, rep, id); c.Status != report.CheckPass {
			t.Errorf("%s = %+v, want a pass", id, c)
		}
	}
	for _, f := range rep.Findings {
		if strings.HasPrefix(f.ID, "concurrency/") {
			t.Errorf("finding %s on the clean twin", f.ID)
		}
	}
}

// A server that answers requests in flight together under each other's
// ids breaks the protocol on one session (a critical finding that caps
// the grade), though each of many sessions, with one request each, is
// answered right.
func TestConcurrencySwappedIDs(t *testing.T) {
	parallel(t)
	rep := concurrencyFixture(t, "concurrency-swapped-ids", 4)
	if c := checkByID(t, rep, "concurrency/echo"); c.Status != report.CheckPass {
		t.Errorf("concurrency/echo = %+v, want a pass: one request per session is answered right", c)
	}
	c := checkByID(t, rep, "concurrency/same-session")
	if c.Status != report.CheckFail || c.Code != string(report.ProtocolViolation) || !strings.Contains(c.Detail, "was answered with a tools/list result") {
		t.Fatalf("concurrency/same-session = %+v, want a protocol violation naming the mixed-up answers", c)
	}
	if f := concurrencyFinding(rep, "concurrency/same-session#protocol_violation"); f == nil || f.Severity != report.SeverityCritical {
		t.Errorf("finding = %+v, want a critical concurrency/same-session#protocol_violation", f)
	}
	capped := false
	for _, cp := range rep.Caps {
		capped = capped || cp.Grade == "D"
	}
	if !capped || !strings.Contains(strings.Join(rep.Critical, "\n"), "the concurrency checks") {
		t.Errorf("caps %+v, critical %q: want the D cap and the concurrency checks named", rep.Caps, rep.Critical)
	}
}

// Without --concurrency there are no concurrency checks; above the bound
// the run is refused before anything starts.
func TestConcurrencyOffAndBounded(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "concurrency-race", func(c *Config) { c.Command = append(c.Command, "--safe"); c.Cases = 1; c.Cwd = t.TempDir() })
	for _, c := range rep.Checks {
		if c.Group == "concurrency" {
			t.Errorf("check %s without --concurrency", c.ID)
		}
	}
	for _, n := range []int{1, MaxConcurrency + 1, -2} {
		_, err := Run(context.Background(), Config{Command: []string{"true"}, Concurrency: n})
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "want 2 to 16") {
			t.Errorf("Concurrency %d: err = %v, want a configuration error", n, err)
		}
	}
}

// Over Streamable HTTP (127.0.0.1) the sessions are connections, and a
// well-behaved server passes every concurrency check.
func TestConcurrencyHTTP(t *testing.T) {
	parallel(t)
	srv := httpServer(t, false)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := Run(ctx, Config{URL: srv.URL, Headers: []string{"X-Tenant: t1"}, Bearer: "s3cret-bearer", Timeout: 5 * time.Second, StartupTimeout: 10 * time.Second, Cases: 2, Concurrency: 4})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range rep.Checks {
		if c.Group != "concurrency" {
			continue
		}
		n++
		if c.Status != report.CheckPass {
			t.Errorf("%s = %+v, want a pass", c.ID, c)
		}
	}
	if n != 3 {
		t.Errorf("%d concurrency checks, want 3 (lookup_user, same-session, cancel): %+v", n, rep.Checks)
	}
}
