package engine

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
	"github.com/mcp-fuzz/mcp-fuzz/internal/score"
	"github.com/mcp-fuzz/mcp-fuzz/internal/session"
	"github.com/mcp-fuzz/mcp-fuzz/internal/stateless"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

func eraBoth(c *Config) { c.Era = EraBoth }

// findingByID returns the finding of rep with id, failing the test when
// there is none.
func findingByID(t *testing.T, rep *report.Report, id string) report.Finding {
	t.Helper()
	i := slices.IndexFunc(rep.Findings, func(f report.Finding) bool { return f.ID == id })
	if i < 0 {
		var ids []string
		for _, f := range rep.Findings {
			ids = append(ids, f.ID)
		}
		t.Fatalf("no finding %s; findings: %s", id, strings.Join(ids, ", "))
	}
	return rep.Findings[i]
}

// TestEraBothFindsValidationThatDiffersByEra: era-split checks arguments
// in the modern era only. An --era both run reports the modern audit (no
// silent accept there), the legacy audit's result, and one era_difference
// finding per forbidden input, whose reproducer shows both answers.
func TestEraBothFindsValidationThatDiffersByEra(t *testing.T) {
	parallel(t)
	var eras []string
	rep := runFixture(t, "era-split", func(c *Config) {
		c.Era = EraBoth
		c.Progress = func(e Event) {
			if e.Kind == EventEra {
				eras = append(eras, e.Reason)
			}
		}
	})
	if got := strings.Join(eras, ","); got != "modern,legacy" {
		t.Errorf("era events %q, want modern,legacy", got)
	}
	if rep.Server.Era != EraModern || rep.Config.Era != EraBoth {
		t.Fatalf("report era %q, config era %q; want the modern audit of an --era both run", rep.Server.Era, rep.Config.Era)
	}
	if n := verdictCounts(rep)[report.Accepted]; n != 0 {
		t.Errorf("%d accepted cases in the modern audit, want 0: it validates", n)
	}
	cmp := rep.EraComparison
	if cmp == nil || cmp.Era != EraLegacy || cmp.ProtocolVersion != session.LegacyVersion || cmp.Note != "" {
		t.Fatalf("comparison %+v; want the legacy era at %s, no note", cmp, session.LegacyVersion)
	}
	if cmp.Summary.Accepted == 0 || cmp.Score == nil || !cmp.Graded || cmp.Compared != rep.Summary.Cases {
		t.Errorf("legacy summary %+v, score %v, compared %d of %d cases", cmp.Summary, cmp.Score, cmp.Compared, rep.Summary.Cases)
	}
	i := slices.IndexFunc(cmp.Differences, func(d report.EraDifference) bool { return d.CaseID == "echo/wrong_type/q" })
	if i < 0 {
		t.Fatalf("no difference for echo/wrong_type/q: %+v", cmp.Differences)
	}
	d := cmp.Differences[i]
	if d.Tool != "echo" || d.Kind != report.KindWrongType || d.Modern.Verdict != report.Rejected || d.Modern.ErrorCode == nil || *d.Modern.ErrorCode != -32602 ||
		d.Legacy.Verdict != report.Accepted || !strings.Contains(d.Modern.Detail, "-32602") {
		t.Errorf("difference %+v", d)
	}
	var diffs int
	for _, f := range rep.Findings {
		if f.Code == report.CodeEraDifference {
			diffs++
		}
	}
	if diffs != len(cmp.Differences) {
		t.Errorf("%d era_difference findings for %d differences", diffs, len(cmp.Differences))
	}
	f := findingByID(t, rep, "echo/wrong_type/q#era_difference")
	if f.Severity != report.SeverityError || f.Tool != "echo" || f.CaseID != "echo/wrong_type/q" ||
		!strings.HasSuffix(f.Message, "modern: rejected (-32602); legacy: accepted") {
		t.Errorf("finding %+v", f)
	}
	if !strings.Contains(f.Reproducer.JSONRPC, stateless.MetaProtocolVersion) {
		t.Errorf("the JSON-RPC line is not the modern era's: %s", f.Reproducer.JSONRPC)
	}
	out := runShell(t, f.Reproducer.Shell)
	modern, legacy, ok := strings.Cut(out, "# legacy era (2025-11-25)")
	if !ok || !strings.HasPrefix(modern, "# modern era (2026-07-28)") || !strings.Contains(modern, "-32602") || !strings.Contains(legacy, `"answered echo"`) {
		t.Errorf("reproducer %s printed %q; want the modern refusal, then the legacy success", f.Reproducer.Shell, out)
	}
	// Validation is not the score's only worry here: a silent accept in
	// the other era is an error finding, no failure, so no cap or callout.
	if len(rep.Critical) > 0 {
		t.Errorf("critical callout %q for differences that are no failure", rep.Critical)
	}
}

// TestEraBothCleanServerDiffersInNothing: a go-sdk server judged the same
// in both eras has no difference and no era_difference finding.
func TestEraBothCleanServerDiffersInNothing(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "clean", eraBoth)
	cmp := rep.EraComparison
	if cmp == nil || cmp.Era != EraLegacy || cmp.Note != "" || cmp.Compared == 0 {
		t.Fatalf("comparison %+v; want the legacy era compared", cmp)
	}
	if len(cmp.Differences) != 0 || cmp.Differences == nil {
		t.Errorf("differences %+v; want an empty list", cmp.Differences)
	}
	if len(cmp.Failures) != 0 || len(cmp.ToolsOnlyInOtherEra) != 0 || len(cmp.ToolsMissingInOtherEra) != 0 {
		t.Errorf("failures %+v, tools only in the legacy era %q, missing there %q; want none", cmp.Failures, cmp.ToolsOnlyInOtherEra, cmp.ToolsMissingInOtherEra)
	}
	for _, f := range rep.Findings {
		if f.Code == report.CodeEraDifference || strings.Contains(f.ID, "@") {
			t.Errorf("finding %s", f.ID)
		}
	}
	if rep.Grade == nil || cmp.Grade == nil || *rep.Grade != *cmp.Grade {
		t.Errorf("grades %v and %v; want one grade in both eras", rep.Grade, cmp.Grade)
	}
}

// TestEraBothOnAServerOfOneEra: a server that speaks one era is audited in
// that one, once, and the comparison says why there was no other.
func TestEraBothOnAServerOfOneEra(t *testing.T) {
	parallel(t)
	for _, tc := range []struct {
		fixture, era, other, why string
	}{
		{"legacy-only", EraLegacy, EraModern, "not audited in the modern era, so no verdicts were compared: --era modern: the server does not speak the stateless 2026-07-28 era"},
		{"modern-only", EraModern, EraLegacy, "not audited in the legacy era, so no verdicts were compared: the server answered initialize with JSON-RPC error -32601"},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			rep := runFixture(t, tc.fixture, eraBoth)
			cmp := rep.EraComparison
			if rep.Server.Era != tc.era || cmp == nil || cmp.Era != tc.other {
				t.Fatalf("audited in %q, comparison %+v; want %s, the other %s", rep.Server.Era, cmp, tc.era, tc.other)
			}
			if !strings.HasPrefix(cmp.Note, tc.why) || cmp.Score != nil || cmp.Compared != 0 || len(cmp.Differences) != 0 {
				t.Errorf("comparison %+v; want a note starting %q", cmp, tc.why)
			}
			if !rep.Graded || rep.Interrupted {
				t.Errorf("graded %v, interrupted %v: one era is no failure", rep.Graded, rep.Interrupted)
			}
		})
	}
}

// TestEraBothReachingNeither: a target reached in neither era is a
// connection error that says why for each.
func TestEraBothReachingNeither(t *testing.T) {
	parallel(t)
	cfg := Config{Command: []string{"/nonexistent/mcp-server"}, Era: EraBoth, Version: "test"}
	_, err := Run(t.Context(), cfg)
	if err == nil || !strings.Contains(err.Error(), "in the modern era: ") || !strings.Contains(err.Error(), "; in the legacy era: ") {
		t.Fatalf("err %v; want ErrConnect naming both eras", err)
	}
	if strings.Count(err.Error(), ErrConnect.Error()) != 1 {
		t.Errorf("err %v repeats %q", err, ErrConnect)
	}
}

// TestEraBothFailsOnFailuresOfTheLegacyEra: hostile-era-tools is polite
// in the modern era and, in the legacy one, lists a second tool and exits
// on the bad inputs of both. Each crash is a crash finding of the legacy
// era (critical, so the default gate fails), with a reproducer that
// speaks that era; a crash on a shared case is an era_difference finding
// too; and the comparison names the tool only the legacy era lists.
func TestEraBothFailsOnFailuresOfTheLegacyEra(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "hostile-era-tools", eraBoth)
	cmp := rep.EraComparison
	if cmp == nil || cmp.Era != EraLegacy || rep.Server.Era != EraModern {
		t.Fatalf("audited in %q, comparison %+v; want modern, then legacy", rep.Server.Era, cmp)
	}
	if got := strings.Join(cmp.ToolsOnlyInOtherEra, ","); got != "legacy_echo" || len(cmp.ToolsMissingInOtherEra) != 0 {
		t.Errorf("tools only in the legacy era %q, missing there %q; want legacy_echo, none", got, cmp.ToolsMissingInOtherEra)
	}
	if n := verdictCounts(rep)[report.Crash]; n != 0 {
		t.Errorf("%d crashes in the modern audit, want 0", n)
	}
	for _, id := range []string{"legacy_echo/wrong_type/q#crash@legacy", "echo/wrong_type/q#crash@legacy"} {
		f := findingByID(t, rep, id)
		if f.Code != string(report.Crash) || f.Severity != report.SeverityCritical || f.CaseID != strings.TrimSuffix(id, "#crash@legacy") ||
			!strings.HasPrefix(f.Message, "in the legacy era only: the server crashed (exit)") {
			t.Errorf("finding %+v", f)
		}
		// The legacy era's reproducer: the handshake, then the call
		// without the stateless envelope.
		if !strings.Contains(f.Reproducer.Shell, `"method":"initialize"`) || strings.Contains(f.Reproducer.JSONRPC, "io.modelcontextprotocol/protocolVersion") {
			t.Errorf("reproducer of %s does not speak the legacy era: %+v", id, f.Reproducer)
		}
	}
	findingByID(t, rep, "echo/wrong_type/q#era_difference")
	var crashes int
	for _, f := range rep.Findings {
		if f.Code == string(report.Crash) {
			crashes++
		}
	}
	if want := cmp.Summary.Crash; crashes != want || want == 0 {
		t.Errorf("%d crash findings for the legacy audit's %d crashes", crashes, want)
	}
	if got := strings.Join(rep.Critical, "\n"); !strings.Contains(got, "legacy_echo (legacy era)") || !strings.Contains(got, "echo (legacy era)") {
		t.Errorf("critical %q; want both tools of the legacy era", got)
	}
	if res := score.Check(rep, score.Gates{FailOn: score.DefaultFailOn(), Default: true}); res.Passed {
		t.Errorf("the default gate passed a server that crashes in the legacy era")
	}
	if res := score.Check(rep, score.Gates{FailOn: []string{string(report.Crash)}}); res.Passed || !strings.Contains(strings.Join(res.Failures, "\n"), "legacy_echo/wrong_type/q#crash@legacy") {
		t.Errorf("--fail-on crash: %+v", res)
	}
}

// TestEraBothInterrupted: an --era both run stopped during either audit,
// or between them, returns the report it has as a partial one (not
// graded), saying that the legacy era was not audited.
func TestEraBothInterrupted(t *testing.T) {
	// Not parallel: it checks that its own runs leave no server
	// process, which only a test running alone can tell.
	for _, tc := range []struct {
		name string
		stop func(Event) bool
	}{
		{"during the modern audit", func(e Event) bool { return e.Kind == EventCase }},
		{"before the legacy audit", func(e Event) bool { return e.Kind == EventEra && e.Reason == EraLegacy }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			cfg := Config{Command: []string{fixture.Build(t, "clean")}, Era: EraBoth, StartupTimeout: 20 * time.Second, Version: "test",
				Progress: func(e Event) {
					if tc.stop(e) {
						cancel()
					}
				}}
			rep, err := Run(ctx, cfg)
			if !errors.Is(err, ErrInterrupted) || rep == nil {
				t.Fatalf("Run = %v, %v; want the partial report and ErrInterrupted", rep, err)
			}
			cmp := rep.EraComparison
			if !rep.Interrupted || rep.Graded || cmp == nil || cmp.Note != "not audited in the legacy era: the run was interrupted first" {
				t.Errorf("interrupted %v, graded %v, comparison %+v", rep.Interrupted, rep.Graded, cmp)
			}
			assertNoChildren(t)
		})
	}
}
