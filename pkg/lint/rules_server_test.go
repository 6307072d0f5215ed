package lint

import "testing"

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
