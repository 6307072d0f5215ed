package repro

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/mcpheader"
	"github.com/mcp-fuzz/mcp-fuzz/internal/mcptool"
	"github.com/mcp-fuzz/mcp-fuzz/internal/render/escape"
	"github.com/mcp-fuzz/mcp-fuzz/internal/session"
	"github.com/mcp-fuzz/mcp-fuzz/internal/stateless"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// Case builds the JSON-RPC line and a shell one-liner for case c of tool
// toolName; for a case whose arguments the report compacted (or whose call
// line would be long), an `mcp-fuzz replay` command instead.
func Case(rep *report.Report, t Target, toolName string, c report.Case) report.Reproducer {
	if c.Task {
		return reproduceTask(rep, t, toolName, c)
	}
	if c.ArgumentsDigest != nil || len(c.Arguments) > report.MaxInlineArguments {
		r := report.Reproducer{Shell: replayCommand(t, c.ID)}
		if c.ArgumentsDigest != nil && c.ArgumentsDigest.Pattern != nil {
			var meta json.RawMessage
			if rep.Server.Era == report.EraModern {
				meta = Envelope(rep.Server.ProtocolVersion)
			}
			r.Generator = generatorCommand(toolName, c.ArgumentsDigest.Pattern, meta)
		}
		return r
	}
	// Escaped so the line survives every report format unchanged.
	call := string(escape.JSON(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":%s}`, Params(rep, toolName, c.Arguments))))
	if len(call) > maxCallLine {
		return report.Reproducer{Shell: replayCommand(t, c.ID)}
	}
	r := report.Reproducer{JSONRPC: call}
	switch {
	case len(t.Command) > 0 && rep.Server.Era == report.EraModern:
		// Stateless: no handshake, the envelope is in the call itself.
		cd, prefix := shellContext(t)
		r.Shell = fmt.Sprintf("%s{ printf '%%s\\n' %s; sleep 2; } | %s%s",
			cd, repeatedCalls(rep, toolName, c), prefix, ShellJoin(t.Command))
	case len(t.Command) > 0:
		cd, prefix := shellContext(t)
		r.Shell = fmt.Sprintf("%s{ printf '%%s\\n' %s %s %s; sleep 2; } | %s%s",
			cd, ShellQuote(initialize), ShellQuote(initialized), repeatedCalls(rep, toolName, c), prefix, ShellJoin(t.Command))
	case t.URL != "" && rep.Server.Era == report.EraModern:
		// Stateless: one POST, no session, the routing headers.
		h := curlHeaders(t)
		r.Shell = fmt.Sprintf(`curl -s %s %s -H %s -H 'Mcp-Method: tools/call' -H %s%s -d %s`,
			ShellQuote(t.URL), h, ShellQuote("Mcp-Protocol-Version: "+mcpheader.Token(rep.Server.ProtocolVersion)), ShellQuote("Mcp-Name: "+mcpheader.NameValue(toolName)),
			paramCurlHeaders(t.Params, toolName, c.Arguments), ShellQuote(call))
	case t.URL != "":
		r.Shell = sessionCurl(t, rep.Server.ProtocolVersion, call)
	}
	if t.TemporaryProgram {
		// The program the pipe would start is gone: replay the case
		// against the report's target instead.
		r.Shell = replayCommand(t, c.ID)
	}
	if c.Kind == report.KindSecurity && !t.TemporaryProgram {
		r.Shell = withScratch(rep.Scratch, c.ID, r.Shell)
	}
	return r
}

// initialize and [initialized] are the 2025 era's handshake as every
// reproducer that needs one sends it: initialize with id 1, then the
// initialized notification.
var initialize = fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"mcp-fuzz-repro","version":"0"}}}`, session.LegacyVersion)

// initialized is the initialized notification that follows [initialize].
const initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`

// repeatedCalls is the tools/call line of c, shell-quoted, as the last
// words of a printf; for a valid call that failed on a later run (see
// [report.Timing]), that many calls with ids 2, 3, …, a second apart (a
// server may handle requests that arrive together at once), since the
// first runs succeeded.
func repeatedCalls(rep *report.Report, toolName string, c report.Case) string {
	n := 1
	if c.Timing != nil && c.Timing.FailedRun > 1 {
		n = c.Timing.FailedRun
	}
	lines := make([]string, n)
	for i := range lines {
		lines[i] = ShellQuote(string(escape.JSON(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, i+2, Params(rep, toolName, c.Arguments)))))
	}
	return strings.Join(lines, "; sleep 1; printf '%s\\n' ")
}

// generatorCommand is a python3 one-liner that prints the tools/call line
// whose arguments the pattern spells out: the oversize payload as
// 'A'*65536 rather than 64 KiB of shell. A Go JSON string is a valid Python
// string literal (its only escapes are \", \\, \n, \r, \t and \uXXXX).
func generatorCommand(toolName string, pattern []report.PatternPart, meta json.RawMessage) string {
	name, _ := json.Marshal(toolName)
	params := `{"name":`
	if meta != nil {
		// The modern era's envelope, as every request of the run carried it.
		params = `{"_meta":` + string(meta) + `,"name":`
	}
	head, _ := json.Marshal(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":` + params + string(name) + `,"arguments":`)
	terms := []string{string(head)}
	for _, p := range pattern {
		t, _ := json.Marshal(p.Text)
		if p.Repeat > 1 {
			terms = append(terms, fmt.Sprintf("%s*%d", t, p.Repeat))
		} else {
			terms = append(terms, string(t))
		}
	}
	terms = append(terms, `"}}\n"`)
	program := "import sys; sys.stdout.buffer.write((" + strings.Join(terms, "+") + ").encode())"
	return "python3 -c " + ShellQuote(string(escape.JSON([]byte(program))))
}

// reproduceTask is the reproducer of a case of a task-only tool: its
// JSON-RPC lines are the three steps (the task-augmented call, tasks/get
// and tasks/result, TASK_ID standing for the taskId of the call's
// answer), and its shell command is `mcp-fuzz replay`, which makes them
// all: the id is only known once the server answers, and the polling
// depends on the statuses it reports.
func reproduceTask(rep *report.Report, t Target, toolName string, c report.Case) report.Reproducer {
	r := report.Reproducer{Shell: replayCommand(t, c.ID)}
	if c.ArgumentsDigest != nil || len(c.Arguments) > report.MaxInlineArguments {
		return r
	}
	limit := t.callTimeout(toolName)
	call := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":%s}`, mcptool.TaskParams(Params(rep, toolName, c.Arguments), limit))
	if len(call) > maxCallLine {
		return r
	}
	r.JSONRPC = string(escape.JSON(call)) +
		` then {"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"TASK_ID"}} until its status is not "working",` +
		` then {"jsonrpc":"2.0","id":4,"method":"tasks/result","params":{"taskId":"TASK_ID"}}`
	return r
}

// Params are the params of a reproducer's tools/call: in the modern
// era with the _meta envelope of the version the audit negotiated.
func Params(rep *report.Report, toolName string, args json.RawMessage) json.RawMessage {
	p := mcptool.CallParams(toolName, args)
	if rep == nil || rep.Server.Era != report.EraModern {
		return p
	}
	env := Envelope(rep.Server.ProtocolVersion)
	if withEnv, err := stateless.WithMembers(p, "_meta", env); err == nil {
		return withEnv
	}
	return p
}

// Envelope is the _meta envelope a reproducer sends.
func Envelope(version string) json.RawMessage {
	return stateless.Envelope(version, "mcp-fuzz-repro", "0")
}
