package engine

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/leak"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// TestHTTPReproducersExpandHeadersAndBearer: every curl reproducer names
// the user's header values and the bearer token as shell variables in
// double quotes, so that running it as printed sends them; the values
// themselves are never printed.
func TestHTTPReproducersExpandHeadersAndBearer(t *testing.T) {
	parallel(t)
	cfg := Config{URL: "http://127.0.0.1:1/mcp", Headers: []string{"X-Tenant: tenant-s3cret-value"}, Bearer: "bearer-s3cret-token"}
	c := report.Case{ID: "t/valid", Kind: report.KindValid, Arguments: []byte(`{}`)}
	for _, era := range []string{EraLegacy, EraModern} {
		rep := &report.Report{Server: report.Server{ProtocolVersion: "2025-11-25", Era: era}}
		for name, shell := range map[string]string{
			"case":    reproduce(rep, cfg, "t", c).Shell,
			"startup": reproduceStartup(rep, cfg).Shell,
			"check":   reproduceCheck(rep, cfg, report.Check{ID: "x", Request: []byte(`{"jsonrpc":"2.0","id":9,"method":"ping"}`)}).Shell,
			"http":    reproduceCheck(rep, cfg, report.Check{ID: "y", HTTP: "GET /mcp"}).Shell,
		} {
			for _, want := range []string{`-H "X-Tenant: $X_TENANT"`, `-H "Authorization: Bearer $MCP_FUZZ_BEARER"`} {
				if !strings.Contains(shell, want) {
					t.Errorf("%s era, %s reproducer lacks %s: %s", era, name, want, shell)
				}
			}
			if strings.Contains(shell, "s3cret") {
				t.Errorf("%s era, %s reproducer prints a secret: %s", era, name, shell)
			}
			// Run as printed, with curl printing its arguments: the shell
			// puts the variables' values in.
			cmd := exec.Command("sh", "-c", `curl() { printf '%s\n' "$@"; }; `+shell)
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "X_TENANT=acme", "MCP_FUZZ_BEARER=tok"}
			out, _ := cmd.Output()
			for _, want := range []string{"X-Tenant: acme\n", "Authorization: Bearer tok\n"} {
				if !strings.Contains(string(out), want) {
					t.Errorf("%s era, %s reproducer run as printed does not send %q:\n%s", era, name, want, out)
				}
			}
		}
	}
	// replay reads the token from $MCP_FUZZ_BEARER itself: not on its
	// command line, where ps shows it.
	if r := replayCommand(cfg, "t/valid"); !strings.Contains(r, `--header "X-Tenant: $X_TENANT"`) || strings.Contains(r, "s3cret") || strings.Contains(r, "--bearer") {
		t.Errorf("replay command: %s", r)
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
	r := reproduce(rep, shown, "t", c)
	if want := "mcp-fuzz replay " + report.ReportPlaceholder + " t/null/x"; r.Shell != want || r.JSONRPC == "" {
		t.Errorf("reproducer %+v, want shell %q and the JSON-RPC line", r, want)
	}
	if got := shown.target("stdio"); got.Command != "mcp-fuzz demo-server" {
		t.Errorf("target %+v", got)
	}
}
