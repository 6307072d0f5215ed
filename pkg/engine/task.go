package engine

import (
	"fmt"

	"github.com/mcp-fuzz/mcp-fuzz/internal/render/escape"
	"github.com/mcp-fuzz/mcp-fuzz/internal/session"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// reproduceTask is the reproducer of a case of a task-only tool: its
// JSON-RPC lines are the three steps (the task-augmented call, tasks/get
// and tasks/result, TASK_ID standing for the taskId of the call's
// answer), and its shell command is `mcp-fuzz replay`, which makes them
// all: the id is only known once the server answers, and the polling
// depends on the statuses it reports.
func reproduceTask(rep *report.Report, cfg Config, toolName string, c report.Case) report.Reproducer {
	r := report.Reproducer{Shell: replayCommand(cfg, c.ID)}
	if c.ArgumentsDigest != nil || len(c.Arguments) > report.MaxInlineArguments {
		return r
	}
	limit := cfg.callTimeout(toolName)
	call := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":%s}`, session.TaskParams(reproParams(rep, toolName, c.Arguments), limit))
	if len(call) > maxCallLine {
		return r
	}
	r.JSONRPC = string(escape.JSON(call)) +
		` then {"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"TASK_ID"}} until its status is not "working",` +
		` then {"jsonrpc":"2.0","id":4,"method":"tasks/result","params":{"taskId":"TASK_ID"}}`
	return r
}
