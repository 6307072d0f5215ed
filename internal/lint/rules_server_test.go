package lint

import (
	"strings"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

func TestToolsCapabilityButNone(t *testing.T) {
	noCap := cleanServer
	noCap.ToolsCapability = false
	runRule(t, "tools_capability_but_none", []ruleCase{
		{name: "capability and no tools", tools: []Tool{}, want: 1, contains: `"tools" capability`},
		{name: "capability and a tool", want: 0},
		{name: "no capability and no tools", srv: &noCap, tools: []Tool{}, want: 0},
	})
}

func TestNoServerInfo(t *testing.T) {
	noName, noVersion, neither := cleanServer, cleanServer, cleanServer
	noName.Name = ""
	noVersion.Version = ""
	neither.Name, neither.Version = "", ""
	runRule(t, "no_server_info", []ruleCase{
		{name: "no name", srv: &noName, want: 1, contains: `no "name"`},
		{name: "no version", srv: &noVersion, want: 1, contains: `no "version"`},
		{name: "neither", srv: &neither, want: 1, contains: `no "name" and no "version"`},
		{name: "both", want: 0},
	})
}

func TestNoInstructions(t *testing.T) {
	none := cleanServer
	none.Instructions = ""
	runRule(t, "no_instructions", []ruleCase{
		{name: "none", srv: &none, want: 1},
		{name: "given", want: 0},
	})
}

// The modern era's server describes itself in server/discover, which has no
// initialize: the server rules name the request the server answered.
func TestServerRulesNameTheEra(t *testing.T) {
	bare := Server{ToolsCapability: true}
	cases := []struct {
		source      string
		instr, info string // what the messages must contain
		notContain  string
	}{
		{SourceInitialize, `the initialize result has no "instructions"`, `serverInfo in the initialize result has no "name" and no "version"`, "server/discover"},
		{SourceDiscover, `the server/discover result has no "instructions"`, `the server info in the server/discover result (_meta "io.modelcontextprotocol/serverInfo") has no "name"`, "initialize"},
		{"", `initialize or server/discover`, `serverInfo of initialize, or the serverInfo _meta of server/discover`, ""},
	}
	for _, c := range cases {
		srv := bare
		srv.Source = c.source
		got := map[string]report.Lint{}
		for _, l := range Check(srv, []Tool{cleanTool()}) {
			got[l.Code] = l
		}
		for code, want := range map[string]string{"no_instructions": c.instr, "no_server_info": c.info} {
			l, ok := got[code]
			if !ok {
				t.Errorf("source %q: no %s finding", c.source, code)
				continue
			}
			if !strings.Contains(l.Message, want) {
				t.Errorf("source %q: %s message %q lacks %q", c.source, code, l.Message, want)
			}
			if c.notContain != "" && (strings.Contains(l.Message, c.notContain) || strings.Contains(l.Hint, c.notContain)) {
				t.Errorf("source %q: %s names %s: %q / %q", c.source, code, c.notContain, l.Message, l.Hint)
			}
		}
	}
}
