// Package repro makes a report's findings and the reproducer each one
// carries (docs/BEHAVIOUR.md#outputs-and-the-report): a JSON-RPC line and a
// shell line that work as printed, or an `mcp-fuzz replay` command, with
// every secret left to a shell variable. It reads the report and a
// [Target], and sends nothing; the engine and the check families use its
// shell quoting, params and origins for the requests they record.
package repro

import (
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/mcpheader"
)

// Target is what a reproducer needs to know of the audited server, as the
// report may show it: names stand in for every secret value.
type Target struct {
	// Command is the stdio server's program and arguments; empty for a
	// server reached by URL.
	Command []string
	// Cwd is the stdio server's working directory (--cwd).
	Cwd string
	// Env are the names of the variables set for the server (--env), in
	// order: reproducers leave their values to the shell.
	Env []string
	// PassEnv are the names of the variables passed on from the caller's
	// environment (--pass-env).
	PassEnv []string
	// URL is the HTTP server's endpoint with its credentials redacted;
	// empty for a stdio server.
	URL string
	// Headers are the names of the user's HTTP headers (--header), in
	// order: reproducers read their values from [HeaderEnv] variables.
	Headers []string
	// Bearer says that the run sent a bearer token (--bearer), which
	// reproducers read from [BearerEnv].
	Bearer bool
	// TemporaryProgram says that Command[0] is a build that is gone once
	// mcp-fuzz exits: a case's shell reproducer is an `mcp-fuzz replay`
	// of the report's target rather than a pipe into that program.
	TemporaryProgram bool
	// ReplayEra, when set, is the era a replay reproducer asks for with
	// --era: the reproducers of an era_difference finding replay the case
	// in each era.
	ReplayEra string
	// Params are the x-mcp-header bindings of the tools, by name, when the
	// run's calls carried Mcp-Param headers: reproducers send them too.
	Params map[string][]mcpheader.Binding
	// CallTimeout is the deadline of one call of a tool (--timeout, or the
	// tool's own): the ttl a task reproducer asks for. Nil asks for 0.
	CallTimeout func(tool string) time.Duration
}

// callTimeout is t.CallTimeout(tool), 0 without one.
func (t Target) callTimeout(tool string) time.Duration {
	if t.CallTimeout == nil {
		return 0
	}
	return t.CallTimeout(tool)
}
