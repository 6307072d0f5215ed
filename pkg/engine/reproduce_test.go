package engine

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/leak"
	"github.com/mcp-fuzz/mcp-fuzz/internal/repro"
	"github.com/mcp-fuzz/mcp-fuzz/internal/session"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// A secret written into the server command, its working directory or the
// URL's query never reaches a reproducer or the report's target: both spell
// the config's redacted view.
func TestReproducersKeepSecretsOut(t *testing.T) {
	parallel(t)
	const token, other, query = "tok-canary-1234567890", "tok-canary-sec-0987654321", "abcdefgh12345678"
	lookup := func(k string) (string, bool) { return other, k == "SECRET_X" }
	c := report.Case{ID: "t/valid", Kind: report.KindValid, Verdict: report.Crash, Arguments: []byte(`{"q":1}`)}
	big := report.Case{ID: "t/oversize/q#string", Kind: report.KindOversize, Verdict: report.Crash,
		ArgumentsDigest: &report.ArgumentsDigest{Kind: "object", Bytes: 70000}}
	rep := &report.Report{Tools: []report.Tool{{Name: "t", Tested: true, Cases: []report.Case{c, big}}}}
	for _, cfg := range []Config{
		{Command: []string{"srv", "--token", token, "--other=" + other}, Cwd: "/srv/" + token,
			Env: []string{"API_TOKEN=" + token}, PassEnv: []string{"SECRET_X"}, Secrets: []string{"SECRET_X"}, LookupEnv: lookup},
		{URL: "http://127.0.0.1:9/mcp?client_secret=" + query + "&token=" + token, Bearer: token},
	} {
		d := leak.NewDetector(cfg.secrets())
		target, _ := json.Marshal(cfg.shown(d).target("stdio"))
		for _, secret := range []string{token, other, query} {
			if strings.Contains(string(target), secret) {
				t.Errorf("the target shows a secret: %s", target)
			}
		}
		for _, f := range findings(rep, cfg.shown(d)) {
			all := f.Reproducer.Shell + f.Reproducer.JSONRPC + f.Reproducer.Generator
			for _, secret := range []string{token, other, query} {
				if strings.Contains(all, secret) {
					t.Errorf("reproducer of %s shows a secret: %s", f.ID, all)
				}
			}
		}
	}
}

// TestTemporaryProgramReproducers: when the server's program is a go run
// build that is gone after the run, a case's shell reproducer replays it
// against the report's target (no path after --), the report names the
// program by its base name, and the JSON-RPC line stays.
func TestTemporaryProgramReproducers(t *testing.T) {
	parallel(t)
	cfg := Config{Command: []string{"/tmp/go-build123/b001/exe/mcp-fuzz", "demo-server"}, TemporaryProgram: true}
	shown := cfg.shown(leak.NewDetector(nil))
	if shown.Command[0] != "mcp-fuzz" || cfg.Command[0] != "/tmp/go-build123/b001/exe/mcp-fuzz" {
		t.Fatalf("shown command %q (run command %q)", shown.Command, cfg.Command)
	}
	rep := &report.Report{Server: report.Server{ProtocolVersion: "2025-11-25", Era: EraLegacy}}
	c := report.Case{ID: "t/null/x", Kind: report.KindNull, Arguments: []byte(`{"x":null}`)}
	r := repro.Case(rep, reproTarget(shown), "t", c)
	if want := "mcp-fuzz replay " + report.ReportPlaceholder + " t/null/x"; r.Shell != want || r.JSONRPC == "" {
		t.Errorf("reproducer %+v, want shell %q and the JSON-RPC line", r, want)
	}
	if got := shown.target("stdio"); got.Command != "mcp-fuzz demo-server" {
		t.Errorf("target %+v", got)
	}
}

// The target reproducers see has only the names of the environment's
// variables, the headers and the bearer token, never their values.
func TestReproTargetKeepsValuesOut(t *testing.T) {
	parallel(t)
	for _, cfg := range []Config{
		{URL: "http://127.0.0.1:1/mcp", Headers: []string{"X-Tenant: tenant-s3cret-value"}, Bearer: "bearer-s3cret-token"},
		{Command: []string{"./srv"}, Env: []string{"API_KEY=s3cret"}, PassEnv: []string{"HOME"}, Cwd: "/work dir"},
	} {
		target := reproTarget(cfg)
		if s := fmt.Sprintf("%+v", target); strings.Contains(s, "s3cret") {
			t.Errorf("the reproducers' target holds a secret: %s", s)
		}
		if len(cfg.Headers) > 0 && (!slices.Equal(target.Headers, []string{"X-Tenant"}) || !target.Bearer) {
			t.Errorf("headers %q, bearer %v", target.Headers, target.Bearer)
		}
		if len(cfg.Env) > 0 && !slices.Equal(target.Env, []string{"API_KEY"}) {
			t.Errorf("env %q", target.Env)
		}
	}
}

// Reproducers name the bearer token's variable as the documented one, and
// the engine's public constants spell out the session's values.
func TestCopiedConstantsMatch(t *testing.T) {
	parallel(t)
	if repro.BearerEnv != BearerEnv {
		t.Errorf("reproducers read the bearer token from $%s, not $%s", repro.BearerEnv, BearerEnv)
	}
	// The engine's public constants spell the session's values out, so that
	// a library user's documentation shows them.
	if EraAuto != session.EraAuto || ModernProtocolVersion != session.ModernProtocolVersion {
		t.Errorf("engine says era %q and version %q, the session %q and %q", EraAuto, ModernProtocolVersion, session.EraAuto, session.ModernProtocolVersion)
	}
}
