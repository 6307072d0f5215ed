package repro

import (
	"fmt"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/render/escape"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// lifecycleFinding is the finding of a failed lifecycle check: id
// "lifecycle/NOUN#code" (no tool's case caused it), its message the steps
// that led to it, its reproducer the check's calls in order.
func lifecycleFinding(rep *report.Report, t Target, c report.Check, code report.Code) report.Finding {
	return report.Finding{
		ID:         c.ID + "#" + c.Code,
		Severity:   code.Severity,
		Code:       c.Code,
		Message:    checkMessage(c, code, ": "+c.Detail),
		Reproducer: reproduceLifecycle(rep, t, c),
	}
}

// reproduceLifecycle sends a lifecycle check's calls in order to the
// server command (after initialize in the legacy era). The ids in them are
// the ones the server returned during the run: a server that numbers its
// resources the same way after a fresh start gives them again.
func reproduceLifecycle(rep *report.Report, t Target, c report.Check) report.Reproducer {
	var r report.Reproducer
	if len(c.Request) > 0 {
		r.JSONRPC = string(escape.JSON(c.Request))
	}
	if len(t.Command) == 0 || len(c.Calls) == 0 {
		return r
	}
	var lines []string
	if rep.Server.Era != report.EraModern {
		lines = append(lines, initialize, initialized)
	}
	for _, call := range c.Calls {
		lines = append(lines, string(escape.JSON(call)))
	}
	quoted := make([]string, len(lines))
	for i, l := range lines {
		quoted[i] = ShellQuote(l)
	}
	cd, prefix := shellContext(t)
	r.Shell = fmt.Sprintf("%s{ printf '%%s\\n' %s; sleep 2; } | %s%s", cd, strings.Join(quoted, " "), prefix, ShellJoin(t.Command))
	return r
}
