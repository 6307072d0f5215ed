package engine

import (
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/oracle"
	"github.com/mcp-fuzz/mcp-fuzz/internal/protocheck"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// complianceIDs are the compliance checks, in the order they are listed.
var complianceIDs = []string{
	"compliance/ping-removed", "compliance/set-level-removed", "compliance/roots-not-served",
	"compliance/result-type", "compliance/cache-hints", "compliance/error-codes", "compliance/input-requests", "compliance/deprecated-features",
}

// TestComplianceClean: a server of the revision passes every compliance
// check (the resource one is skipped: it declares no resources).
func TestComplianceClean(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "modern-only", nil)
	for _, id := range complianceIDs {
		c := checkByID(t, rep, id)
		want := report.CheckPass
		if c.Status != want {
			t.Errorf("%s: %s %s: %s", id, c.Status, c.Code, c.Detail)
		}
	}
}

// TestComplianceLegacyHabits: the same server keeping what the revision
// removed fails each check with its own code, in words that name what it
// did.
func TestComplianceLegacyHabits(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "modern-only", func(c *Config) { c.Command = append(c.Command, "--legacy-habits") })
	for id, want := range map[string]struct{ code, says string }{
		"compliance/ping-removed":        {report.CodeRemovedMethodServed, "served"},
		"compliance/set-level-removed":   {report.CodeRemovedMethodServed, "served"},
		"resources/read-missing":         {report.CodeLegacyErrorCode, "-32002 (resource not found) is replaced by -32602"},
		"compliance/result-type":         {report.CodeMissingResultType, "tools/call ("},
		"compliance/cache-hints":         {report.CodeMissingCacheHints, "tools/list: ttlMs -5 is not a non-negative integer, no cacheScope"},
		"compliance/error-codes":         {report.CodeLegacyErrorCode, "-32050 is in the range"},
		"compliance/input-requests":      {report.CodeUndeclaredInputRequest, "sampling/createMessage on tools/call"},
		"compliance/deprecated-features": {report.CodeDeprecatedFeature, "notifications/message"},
	} {
		c := checkByID(t, rep, id)
		if c.Status != report.CheckFail || c.Code != want.code || !strings.Contains(c.Detail, want.says) {
			t.Errorf("%s: %s %s %q; want fail %s saying %q", id, c.Status, c.Code, c.Detail, want.code, want.says)
		}
		if f := checkFinding(t, rep, id); f.Severity != report.DescribeCode(want.code).Severity {
			t.Errorf("finding %+v", f)
		}
	}
	if c := checkByID(t, rep, "compliance/roots-not-served"); c.Status != report.CheckPass {
		t.Errorf("roots-not-served: %+v", c)
	}
}

// TestCompliance2026RefusalsAreNotCrashes: -32020…-32022 answering a tool
// call are refusals of the request, not escaped exceptions.
func TestCompliance2026RefusalsAreNotCrashes(t *testing.T) {
	parallel(t)
	for _, code := range []int64{oracle.CodeHeaderMismatch, oracle.CodeMissingClientCapabilities, oracle.CodeUnsupportedProtocolVersion} {
		if oracle.Classify(code) == oracle.ClassInternal {
			t.Errorf("%d classified as an internal error", code)
		}
	}
}

func TestSupersededCode(t *testing.T) {
	parallel(t)
	for code, bad := range map[int64]bool{
		-32002: true, -32001: true, -32003: true, -32004: true, -32050: true, -32099: true, -32023: true,
		-32020: false, -32021: false, -32022: false, -32602: false, -32603: false, -32000: false, -32019: false, -32100: false, 1: false,
	} {
		if got := protocheck.Superseded(code) != ""; got != bad {
			t.Errorf("supersededCode(%d) = %q", code, protocheck.Superseded(code))
		}
	}
}

// TestHandshakeRequiredFallsBack: a server that answers server/discover
// but refuses the stateless tools/list until initialize is audited in the
// legacy era, saying why, with a handshake_required finding; with --era
// modern it is a connect error.
func TestHandshakeRequiredFallsBack(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "legacy-only", func(c *Config) { c.Env = []string{"LEGACY_ONLY_DISCOVER=claims"} })
	if rep.Server.Era != EraLegacy || !strings.Contains(rep.Server.EraReason, "refused the stateless tools/list with -32600") {
		t.Fatalf("era %q, reason %q", rep.Server.Era, rep.Server.EraReason)
	}
	if rep.Summary.OK != 1 {
		t.Errorf("summary %+v: the audit should go on in the legacy era", rep.Summary)
	}
	c := checkByID(t, rep, "compliance/no-handshake")
	if c.Status != report.CheckFail || c.Code != report.CodeHandshakeRequired {
		t.Errorf("no-handshake: %+v", c)
	}
	if f := checkFinding(t, rep, "compliance/no-handshake"); f.Severity != report.SeverityError {
		t.Errorf("finding %+v", f)
	}
	if len(rep.Checks) != 1 {
		t.Errorf("checks in the legacy era: %+v", rep.Checks)
	}
	modern := runFixture(t, "modern-only", nil)
	if c := checkByID(t, modern, "compliance/no-handshake"); c.Status != report.CheckPass {
		t.Errorf("modern-only: %+v", c)
	}
}

// TestHandshakeRequiredInOtherEras: --era modern says why it cannot go
// on, and --era both keeps the finding on the legacy audit's report.
func TestHandshakeRequiredInOtherEras(t *testing.T) {
	parallel(t)
	_, err := runFixtureErr(t, "legacy-only", func(c *Config) { c.Env = []string{"LEGACY_ONLY_DISCOVER=claims"}; c.Era = EraModern })
	if err == nil || !strings.Contains(err.Error(), "answered server/discover (supportedVersions 2026-07-28, 2025-11-25) but refused the stateless tools/list with -32600") {
		t.Errorf("--era modern: %v", err)
	}
	rep := runFixture(t, "legacy-only", func(c *Config) { c.Env = []string{"LEGACY_ONLY_DISCOVER=claims"}; c.Era = EraBoth })
	if c := checkByID(t, rep, "compliance/no-handshake"); c.Status != report.CheckFail || c.Code != report.CodeHandshakeRequired {
		t.Errorf("--era both: %+v", c)
	}
	checkFinding(t, rep, "compliance/no-handshake")
}
