package repro

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/mcpheader"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// modernVersion is the version of the modern era's reports.
const modernVersion = "2026-07-28"

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

// TestHTTPReproducersExpandHeadersAndBearer: every curl reproducer names
// the user's header values and the bearer token as shell variables in
// double quotes, so that running it as printed sends them.
func TestHTTPReproducersExpandHeadersAndBearer(t *testing.T) {
	t.Parallel()
	target := Target{URL: "http://127.0.0.1:1/mcp", Headers: []string{"X-Tenant"}, Bearer: true}
	c := report.Case{ID: "t/valid", Kind: report.KindValid, Arguments: []byte(`{}`)}
	for _, era := range []string{report.EraLegacy, report.EraModern} {
		rep := &report.Report{Server: report.Server{ProtocolVersion: "2025-11-25", Era: era}}
		for name, shell := range map[string]string{
			"case":    Case(rep, target, "t", c).Shell,
			"startup": Startup(rep, target).Shell,
			"check":   Check(rep, target, report.Check{ID: "x", Request: []byte(`{"jsonrpc":"2.0","id":9,"method":"ping"}`)}).Shell,
			"http":    Check(rep, target, report.Check{ID: "y", HTTP: "GET /mcp"}).Shell,
		} {
			for _, want := range []string{`-H "X-Tenant: $X_TENANT"`, `-H "Authorization: Bearer $MCP_FUZZ_BEARER"`} {
				if !strings.Contains(shell, want) {
					t.Errorf("%s era, %s reproducer lacks %s: %s", era, name, want, shell)
				}
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
	if r := replayCommand(target, "t/valid"); !strings.Contains(r, `--header "X-Tenant: $X_TENANT"`) || strings.Contains(r, "--bearer") {
		t.Errorf("replay command: %s", r)
	}
}

// TestReproducerQuotesTheServersVersion: the protocolVersion a legacy HTTP
// server answered goes into the curl reproducer's header; a hostile one
// must not break out of the quoting (it is dropped, being no version token).
func TestReproducerQuotesTheServersVersion(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), "pwned")
	hostile := `2025-11-25' -H "X: $(touch ` + marker + `)" '`
	rep := &report.Report{Server: report.Server{ProtocolVersion: hostile, Era: report.EraLegacy}}
	target := Target{URL: "http://127.0.0.1:1/mcp"}
	c := report.Case{ID: "t/valid", Kind: report.KindValid, Arguments: []byte(`{}`)}
	for _, era := range []string{report.EraLegacy, report.EraModern} {
		rep.Server.Era = era
		r := Case(rep, target, "t", c)
		// (Inside the modern era's JSON body the text is quoted, not dropped.)
		if era == report.EraLegacy && strings.Contains(r.Shell, "$(touch") {
			t.Errorf("%s era: the server's version reached the reproducer: %s", era, r.Shell)
		}
		// Run it: curl fails to connect, but nothing the server chose runs.
		cmd := exec.Command("sh", "-c", r.Shell)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
		_ = cmd.Run()
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("%s era: running the reproducer ran the server's command: %s", era, r.Shell)
		}
	}
	if got := mcpheader.Token("2025-11-25"); got != "2025-11-25" {
		t.Errorf("mcpheader.Token(2025-11-25) = %q", got)
	}
	for _, bad := range []string{"", "a\r\nX: y", "2025 11", strings.Repeat("9", 65), "v'1"} {
		if got := mcpheader.Token(bad); got != "" {
			t.Errorf("mcpheader.Token(%q) = %q, want empty", bad, got)
		}
	}
}

// TestParamReproducerQuoting: the Mcp-Param headers of a reproducer are
// shell words that reach curl unchanged, and a name that is no HTTP token
// never reaches the line.
func TestParamReproducerQuoting(t *testing.T) {
	t.Parallel()
	rep := &report.Report{Server: report.Server{Era: report.EraModern, ProtocolVersion: modernVersion}}
	target := Target{URL: "http://127.0.0.1:9/mcp", Params: map[string][]mcpheader.Binding{"t": {
		{Path: []string{"a"}, Name: "It's`$x`|~"},
		{Path: []string{"b"}, Name: "Evil\r\nX-Injected: 1"},
		{Path: []string{"c"}, Name: "C"},
	}}}
	c := report.Case{ID: "t/valid", Arguments: json.RawMessage(`{"a":"it's $(id) \"q\"","b":"v","c":"zürich"}`)}
	line := Case(rep, target, "t", c).Shell
	if strings.Contains(line, "Injected") || strings.ContainsAny(line, "\r\n") {
		t.Fatalf("hostile name in %s", line)
	}
	// curl replaced by a function that prints its arguments, one a line.
	out := runShell(t, `curl() { for a; do printf '%s\n' "$a"; done; }; `+line)
	for _, want := range []string{"Mcp-Param-It's`$x`|~: it's $(id) \"q\"", "Mcp-Param-C: =?base64?esO8cmljaA==?="} {
		if !strings.Contains(out, "\n"+want+"\n") {
			t.Errorf("curl did not get %q:\n%s", want, out)
		}
	}
}

// A check's plain HTTP request is reproduced bounded as the check was: a
// JSON GET by the checks' timeout (5 s), an event stream, which may never
// end, by the time the check listened to it (3 s).
func TestHTTPCheckReproducerIsBounded(t *testing.T) {
	t.Parallel()
	target := Target{URL: "http://127.0.0.1:1/mcp"}
	for accept, want := range map[string]string{"application/json": "--max-time 5 ", "text/event-stream": "--max-time 3 "} {
		r := Check(&report.Report{}, target, report.Check{ID: "compliance/x", HTTP: "GET /mcp", Headers: []string{"Accept: " + accept}})
		if !strings.Contains(r.Shell, want) {
			t.Errorf("Accept %s: %s lacks %s", accept, r.Shell, want)
		}
	}
}
