package engine

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
	"github.com/mcp-fuzz/mcp-fuzz/internal/repro"
	"github.com/mcp-fuzz/mcp-fuzz/internal/stateless"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// verdictCounts counts the cases of rep by verdict.
func verdictCounts(rep *report.Report) map[report.Verdict]int {
	n := map[report.Verdict]int{}
	for _, c := range cases(rep) {
		n[c.Verdict]++
	}
	return n
}

// runShell runs a reproducer's shell line and returns its stdout.
func runShell(t *testing.T, line string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "sh", "-c", line).Output()
	if err != nil && ctx.Err() != nil {
		t.Fatalf("reproducer %s: %v", line, err)
	}
	return string(out)
}

func TestModernOnlyAuto(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "modern-only", nil)
	if rep.Server.Era != EraModern || rep.Server.ProtocolVersion != ModernProtocolVersion {
		t.Fatalf("era %q, version %q; want modern %s", rep.Server.Era, rep.Server.ProtocolVersion, ModernProtocolVersion)
	}
	if got := strings.Join(rep.Server.SupportedVersions, ","); got != ModernProtocolVersion {
		t.Errorf("supportedVersions %q", got)
	}
	if rep.Server.Name != "modern-only" || rep.Server.Version != "1.0.0" {
		t.Errorf("server info from discover's _meta: %q %q", rep.Server.Name, rep.Server.Version)
	}
	if d := rep.Discovery; d.ToolsTTLMs == nil || *d.ToolsTTLMs != 60000 || d.ToolsCacheScope != "private" || d.Tools != 2 {
		t.Errorf("discovery %+v", d)
	}
	for _, name := range []string{"echo", "confirm"} {
		if v := validCase(t, rep, name).Verdict; v != report.OK {
			t.Errorf("%s: valid call %s, want ok", name, v)
		}
	}
	if f := failures(rep); len(f) > 0 {
		t.Errorf("failures on a well-behaved modern server: %+v", f)
	}

	// A reproducer of this era sends the call alone, with the envelope,
	// and works as printed.
	c := validCase(t, rep, "confirm")
	r := repro.Case(rep, reproTarget(Config{Command: []string{fixture.Build(t, "modern-only")}}), "echo", report.Case{ID: "echo/valid", Arguments: json.RawMessage(`{"q":"x"}`)})
	if strings.Contains(r.Shell, "initialize") || !strings.Contains(r.Shell, stateless.MetaProtocolVersion) {
		t.Fatalf("modern reproducer: %s", r.Shell)
	}
	if out := runShell(t, r.Shell); !strings.Contains(out, `"answered echo"`) || !strings.Contains(out, `"id":2`) {
		t.Errorf("reproducer %s printed %q", r.Shell, out)
	}
	_ = c
}

// TestInputRequiredRoundTrip: confirm's first answer asks for an
// elicitation; mcp-fuzz declines it, retries with the requestState, and
// judges the real answer.
func TestInputRequiredRoundTrip(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "modern-only", func(c *Config) { c.Tools = []string{"confirm"}; c.Cases = 3 })
	if v := validCase(t, rep, "confirm").Verdict; v != report.OK {
		t.Fatalf("confirm valid call: %s", v)
	}
}

func TestLegacyOnlyAuto(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "legacy-only", nil)
	if rep.Server.Era != EraLegacy || rep.Server.ProtocolVersion != "2025-11-25" || len(rep.Server.SupportedVersions) != 0 {
		t.Fatalf("server %+v: want legacy 2025-11-25", rep.Server)
	}
	if !strings.Contains(rep.Server.EraReason, "JSON-RPC error -32601") {
		t.Errorf("eraReason %q does not say server/discover was refused", rep.Server.EraReason)
	}
	if v := validCase(t, rep, "echo").Verdict; v != report.OK {
		t.Errorf("echo valid call %s", v)
	}
}

func TestEraModernOnLegacyOnly(t *testing.T) {
	// Not parallel: it checks that its own runs leave no server
	// process, which only a test running alone can tell.
	cfg := Config{Command: []string{fixture.Build(t, "legacy-only")}, Era: EraModern, StartupTimeout: 20 * time.Second, Version: "test"}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := Run(ctx, cfg)
	if !errors.Is(err, ErrConnect) || !strings.Contains(err.Error(), "does not speak") || !strings.Contains(err.Error(), "-32601") {
		t.Fatalf("Run(--era modern, legacy-only) = %v; want a connect error saying why", err)
	}
	assertNoChildren(t)
}

func TestEraLegacyOnModernOnly(t *testing.T) {
	// Not parallel: it checks that its own runs leave no server
	// process, which only a test running alone can tell.
	cfg := Config{Command: []string{fixture.Build(t, "modern-only")}, Era: EraLegacy, StartupTimeout: 20 * time.Second, Version: "test"}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := Run(ctx, cfg)
	if !errors.Is(err, ErrConnect) || !strings.Contains(err.Error(), "initialize") {
		t.Fatalf("Run(--era legacy, modern-only) = %v; want a connect error naming initialize", err)
	}
	assertNoChildren(t)
}

// TestDemoBothEras audits the demo server in each era: the verdicts must
// not depend on the era, and a modern reproducer works as printed.
func TestDemoBothEras(t *testing.T) {
	parallel(t)
	if testing.Short() {
		t.Skip("audits the demo twice")
	}
	bin := fixture.Program(t, "./cmd/mcp-fuzz", "mcp-fuzz")
	counts := map[string]map[report.Verdict]int{}
	reps := map[string]*report.Report{}
	for _, era := range []string{EraLegacy, EraModern} {
		// 3 s: with 1 s a valid call of the demo timed out on a loaded
		// machine under -race, and the eras seemed to differ.
		cfg := Config{Command: []string{bin, "demo-server"}, Era: era, Timeout: 3 * time.Second, StartupTimeout: 20 * time.Second, Version: "test"}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		rep, err := Run(ctx, cfg)
		cancel()
		if err != nil {
			t.Fatalf("demo, era %s: %v", era, err)
		}
		if rep.Server.Era != era {
			t.Fatalf("demo asked for %s spoke %s", era, rep.Server.Era)
		}
		counts[era], reps[era] = verdictCounts(rep), rep
		t.Logf("demo %s: %v", era, counts[era])
	}
	for v, n := range counts[EraLegacy] {
		if counts[EraModern][v] != n {
			t.Errorf("verdict %s: %d legacy, %d modern", v, n, counts[EraModern][v])
		}
	}
	if len(counts[EraModern]) != len(counts[EraLegacy]) {
		t.Errorf("verdicts differ: legacy %v, modern %v", counts[EraLegacy], counts[EraModern])
	}
	ran := false
	for _, f := range reps[EraModern].Findings {
		if f.Code != "accepted" || f.Reproducer.Shell == "" {
			continue
		}
		if strings.Contains(f.Reproducer.Shell, "initialize") {
			t.Errorf("modern reproducer sends initialize: %s", f.Reproducer.Shell)
		}
		out := runShell(t, f.Reproducer.Shell)
		if !strings.Contains(out, `"id":2,"result"`) {
			t.Errorf("reproducer %s printed %q, want the call's result", f.Reproducer.Shell, out)
		}
		ran = true
		break
	}
	if !ran {
		t.Error("no accepted finding with a reproducer on the demo")
	}
}

// TestLegacyDiesOnDiscover: a legacy server that exits when asked
// server/discover is started again and audited in the legacy era, as a
// current client falls back to initialize on any failure of discover.
func TestLegacyDiesOnDiscover(t *testing.T) {
	// Not parallel: it checks that its own runs leave no server
	// process, which only a test running alone can tell.
	rep := runFixture(t, "legacy-only", func(c *Config) { c.Env = []string{"LEGACY_ONLY_DIE=1"} })
	if rep.Server.Era != EraLegacy || validCase(t, rep, "echo").Verdict != report.OK {
		t.Fatalf("era %q, echo %s", rep.Server.Era, validCase(t, rep, "echo").Verdict)
	}
	if !strings.Contains(rep.Server.EraReason, "before answering server/discover") {
		t.Errorf("eraReason %q does not say the server died of server/discover", rep.Server.EraReason)
	}
	cfg := Config{Command: []string{fixture.Build(t, "legacy-only")}, Env: []string{"LEGACY_ONLY_DIE=1"}, Era: EraModern, StartupTimeout: 20 * time.Second, Version: "test"}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := Run(ctx, cfg); !errors.Is(err, ErrConnect) || !strings.Contains(err.Error(), "before answering server/discover") {
		t.Fatalf("--era modern: %v", err)
	}
	assertNoChildren(t)
}

// TestModernStartupReproducer: the reproducer of a server violation in the
// modern era discovers and lists with the envelope, no handshake, and
// works as printed.
func TestModernStartupReproducer(t *testing.T) {
	parallel(t)
	rep := &report.Report{Server: report.Server{Era: EraModern, ProtocolVersion: ModernProtocolVersion}}
	r := repro.Startup(rep, reproTarget(Config{Command: []string{fixture.Build(t, "modern-only")}}))
	if strings.Contains(r.Shell, "initialize") {
		t.Fatalf("reproducer: %s", r.Shell)
	}
	out := runShell(t, r.Shell)
	if !strings.Contains(out, `"supportedVersions"`) || !strings.Contains(out, `"tools":[`) {
		t.Errorf("reproducer %s printed %q", r.Shell, out)
	}
}

// A server that, offered the current revision, speaks only a 2025 one is
// told so; one that speaks the current revision is not.
func TestLegacyOnlyIsALint(t *testing.T) {
	parallel(t)
	has := func(rep *report.Report) bool {
		return slices.ContainsFunc(rep.Lint, func(l report.Lint) bool {
			return l.Code == "legacy_revision_only" && l.Severity == report.SeverityWarning
		})
	}
	if rep := runFixture(t, "legacy-only", nil); !has(rep) {
		t.Errorf("legacy-only server: no legacy_revision_only in %+v", rep.Lint)
	}
	if rep := runFixture(t, "clean", nil); has(rep) {
		t.Error("a server of the current revision got legacy_revision_only")
	}
	if rep := runFixture(t, "legacy-only", func(c *Config) { c.Era = EraLegacy }); has(rep) {
		t.Error("--era legacy, asked for by the user, got legacy_revision_only")
	}
}
