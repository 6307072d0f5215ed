// Command task-only is a raw fixture server with one tool that declares
// "execution": {"taskSupport": "required"} and answers a plain tools/call
// with JSON-RPC error -32601 ("task augmentation required"), plus one normal
// tool. It advertises the tasks capability but does not run tasks.
package main

import (
	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/rawserver"
)

func tools() []any {
	report := rawserver.Tool("long_report", "Build a long report on a topic; must be run as a task.", rawserver.OneString())
	report["execution"] = map[string]any{"taskSupport": "required"}
	return []any{
		report,
		rawserver.Tool("quick_status", "Report the service status at once.", rawserver.OneString()),
	}
}

func call(_ *rawserver.Server, req *rawserver.Request) (any, error) {
	p, err := rawserver.DecodeCall(req)
	if err != nil {
		return nil, err
	}
	switch p.Name {
	case "long_report":
		if p.Task != nil {
			return nil, &rawserver.Error{Code: -32601, Message: "task execution is not implemented by this fixture"}
		}
		return nil, &rawserver.Error{Code: -32601, Message: "task augmentation required: call long_report as a task"}
	case "quick_status":
		return rawserver.Text("all systems nominal"), nil
	}
	return nil, rawserver.UnknownTool(p.Name)
}

func main() {
	rawserver.Main(&rawserver.Server{
		Name:         "task-only",
		Version:      "1.0.0",
		Instructions: "Fixture: long_report must be called as a task.",
		Capabilities: map[string]any{
			"tools": map[string]any{},
			"tasks": map[string]any{"requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}}},
		},
		Methods: map[string]rawserver.Handler{
			"tools/list": func(*rawserver.Server, *rawserver.Request) (any, error) {
				return map[string]any{"tools": tools()}, nil
			},
			"tools/call": call,
		},
	})
}
