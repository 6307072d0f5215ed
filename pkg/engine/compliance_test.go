package engine

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/leak"
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

func TestCacheHintProblem(t *testing.T) {
	parallel(t)
	for in, want := range map[string]string{
		`{"ttlMs":60000,"cacheScope":"private"}`: "",
		`{"ttlMs":0,"cacheScope":"public"}`:      "",
		`{}`:                                     "no ttlMs, no cacheScope",
		`{"ttlMs":-1,"cacheScope":"public"}`:     "ttlMs -1 is not a non-negative integer",
		`{"ttlMs":1.5,"cacheScope":"public"}`:    "ttlMs 1.5 is not a non-negative integer",
		`{"ttlMs":"60","cacheScope":"public"}`:   `ttlMs is not a number: "60"`,
		`{"ttlMs":1e15,"cacheScope":"public"}`:   "ttlMs 1e15 is over a year",
		`{"ttlMs":5,"cacheScope":"shared"}`:      `cacheScope "shared" is neither "public" nor "private"`,
		`{"ttlMs":5,"cacheScope":null}`:          `cacheScope null is neither`,
	} {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal([]byte(in), &fields); err != nil {
			t.Fatal(err)
		}
		got := cacheHintProblem(fields)
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("cacheHintProblem(%s) = %q, want %q", in, got, want)
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

// TestObservedBounded: a server that sends many distinct methods, and
// input requests of many kinds, costs a few entries, and names cut short.
func TestObservedBounded(t *testing.T) {
	parallel(t)
	o := &observed{}
	long := strings.Repeat("m", 10000)
	for i := 0; i < 1000; i++ {
		o.sawServerMessage(long+string(rune('a'+i%26))+strings.Repeat("x", i), true)
		o.sawInputRequests("tools/call", map[string]json.RawMessage{"k": json.RawMessage(`{"method":"` + long + strings.Repeat("y", i) + `"}`)})
		o.sawError("tools/call", int64(-32020-i%80))
	}
	if len(o.serverMessages) > maxObservedNames || len(o.inputKinds) > maxObservedNames || len(o.codes) > maxObservedNames {
		t.Errorf("kept %d messages, %d input kinds, %d codes", len(o.serverMessages), len(o.inputKinds), len(o.codes))
	}
	for m := range o.serverMessages {
		if len(m) > 64 {
			t.Errorf("a method of %d bytes kept", len(m))
		}
	}
}

// TestObservedRedactsBeforeCut: a secret the server puts where a cut
// would split it (a method name at its 64th byte, a cache hint at its
// 40th character) is redacted whole, so that no part of it reaches a
// check's detail; the run's later redaction of details cannot see a
// secret already cut.
func TestObservedRedactsBeforeCut(t *testing.T) {
	parallel(t)
	secret := "canary-0123456789abcdef"
	o := &observed{leak: leak.NewDetector(map[string]string{"--env TOKEN": secret})}
	o.sawServerMessage(strings.Repeat("m", 55)+secret, true)
	o.sawInputRequests("tools/call", map[string]json.RawMessage{"k": json.RawMessage(`{"method":"` + strings.Repeat("y", 55) + secret + `"}`)})
	o.sawResult("tools/list", map[string]json.RawMessage{"ttlMs": json.RawMessage(`1`), "cacheScope": json.RawMessage(`"` + strings.Repeat("s", 30) + secret + `"`)})
	var kept []string
	for m := range o.serverMessages {
		kept = append(kept, m)
	}
	kept = append(kept, o.inputKinds...)
	kept = append(kept, o.results["tools/list"].cacheProblem)
	if len(kept) != 3 || kept[2] == "" {
		t.Fatalf("kept %q", kept)
	}
	for _, k := range kept {
		if strings.Contains(k, secret[:8]) {
			t.Errorf("%q keeps part of the secret", k)
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
