package repro

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// A case whose arguments the report compacted is reproduced by a replay
// command, which SetReportPath points at the JSON report.
func TestReproduceCompactedCase(t *testing.T) {
	t.Parallel()
	big := json.RawMessage(`{"q":"` + strings.Repeat("x", 64<<10) + `"}`)
	args, digest := report.CompactArguments(big)
	c := report.Case{ID: "search/oversize/q#string", Arguments: args, ArgumentsDigest: digest}
	for _, tc := range []struct {
		target Target
		want   string
	}{
		{Target{Command: []string{"node", "server.js"}},
			`mcp-fuzz replay REPORT.json 'search/oversize/q#string' -- node server.js`},
		{Target{Command: []string{"./srv"}, Env: []string{"API_KEY"}, PassEnv: []string{"HOME"}, Cwd: "/work dir"},
			`mcp-fuzz replay REPORT.json 'search/oversize/q#string' --env API_KEY="$API_KEY" --pass-env HOME --cwd '/work dir' -- ./srv`},
		{Target{URL: "http://localhost:3000/mcp", Headers: []string{"X-Api-Key"}},
			`mcp-fuzz replay REPORT.json 'search/oversize/q#string' --url http://localhost:3000/mcp --header "X-Api-Key: $X_API_KEY"`},
	} {
		r := Case(&report.Report{}, tc.target, "search", c)
		if r.JSONRPC != "" || r.Shell != tc.want {
			t.Errorf("reproducer = %+v\nwant shell %s", r, tc.want)
		}
	}

	// A tool name too long for a JSON-RPC line of a few KiB gets the replay form too.
	long := strings.Repeat("n", 5000)
	if r := Case(&report.Report{}, Target{Command: []string{"srv"}}, long, report.Case{ID: long + "/valid", Arguments: json.RawMessage(`{}`)}); r.JSONRPC != "" || !strings.HasPrefix(r.Shell, "mcp-fuzz replay ") {
		t.Errorf("a 5,000-byte tool name gave a %d-byte JSON-RPC line", len(r.JSONRPC))
	}

	rep := &report.Report{Findings: []report.Finding{
		{Reproducer: Case(&report.Report{}, Target{Command: []string{"srv"}}, "search", c)},
		{Reproducer: Case(&report.Report{}, Target{Command: []string{"srv"}}, "search", report.Case{ID: "search/valid", Arguments: json.RawMessage(`{"q":"REPORT.json "}`)})},
	}}
	SetReportPath(rep, "out dir/run.json")
	if got, want := rep.Findings[0].Reproducer.Shell, `mcp-fuzz replay 'out dir/run.json' 'search/oversize/q#string' -- srv`; got != want {
		t.Errorf("after SetReportPath: %s, want %s", got, want)
	}
	if !strings.Contains(rep.Findings[1].Reproducer.Shell, `{"q":"REPORT.json "}`) {
		t.Errorf("SetReportPath changed a shell one-liner: %s", rep.Findings[1].Reproducer.Shell)
	}
}
