package engine

import (
	"context"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/oracle"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// checkByID is the check id of rep, failing the test when there is none.
func checkByID(t *testing.T, rep *report.Report, id string) report.Check {
	t.Helper()
	for _, c := range rep.Checks {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("no check %s in %+v", id, rep.Checks)
	return report.Check{}
}

// TestEnvelopeChecksHTTP: go-sdk's stateless Streamable HTTP handler
// refuses a routing header that contradicts the body with -32020, and the
// Mcp-Name check sends the valid call of a confirmed read-only tool.
func TestEnvelopeChecksHTTP(t *testing.T) {
	parallel(t)
	srv, _ := recordingServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := Run(ctx, Config{URL: srv.URL, Timeout: 5 * time.Second, StartupTimeout: 10 * time.Second, Cases: 6})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Checks {
		t.Logf("%s %s %s %s %v", c.ID, c.Status, c.Code, c.Detail, c.Headers)
	}
	for _, id := range []string{"envelope/header-version-mismatch", "envelope/header-method-mismatch", "envelope/header-method-missing", "envelope/header-name-mismatch"} {
		c := checkByID(t, rep, id)
		if c.Status != report.CheckPass || c.ErrorCode == nil || *c.ErrorCode != oracle.CodeHeaderMismatch {
			t.Errorf("%s: %s %s %s", id, c.Status, c.Code, c.Detail)
		}
	}
}
