package engine

import (
	"fmt"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/mcpheader"
	"github.com/mcp-fuzz/mcp-fuzz/internal/secret"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// serverFindingID is the stable id of the finding of the server's stray
// violations, so that baselines and expected findings can name it.
func serverFindingID(transport string) string {
	if transport == "stdio" {
		return "server/stdout#" + string(report.ProtocolViolation)
	}
	return "server/wire#" + string(report.ProtocolViolation)
}

// serverFinding is the one finding of the server's stray violations: a
// protocol violation of no tool and no case, with a reproducer that shows
// the server's first output lines.
func serverFinding(rep *report.Report, cfg Config) report.Finding {
	code, _ := report.LookupCode(string(report.ProtocolViolation))
	parts := make([]string, 0, len(rep.ServerViolations)+1)
	for _, v := range rep.ServerViolations {
		parts = append(parts, v.When+": "+v.Excerpt)
	}
	if more := rep.ServerViolationCount - len(rep.ServerViolations); more > 0 {
		parts = append(parts, fmt.Sprintf("and %d more", more))
	}
	msg := fmt.Sprintf("%s outside any tool call (%s): %s", code.Message,
		plural(rep.ServerViolationCount, "violation", "violations"), strings.Join(parts, "; "))
	if len(msg) > maxFindingMessage {
		msg = cutUTF8(msg, maxFindingMessage) + "… (see serverViolations)"
	}
	return report.Finding{
		ID:         serverFindingID(rep.Target.Transport),
		Severity:   code.Severity,
		Code:       code.Name,
		Message:    msg,
		Reproducer: reproduceStartup(rep, cfg),
	}
}

// reproduceStartup is a shell one-liner that starts the server, sends
// initialize and shows the first lines it writes: a line before the answer,
// or one that is not JSON-RPC, is the defect. Over HTTP, the initialize
// request with its response headers.
func reproduceStartup(rep *report.Report, cfg Config) report.Reproducer {
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	switch {
	case len(cfg.Command) > 0 && rep.Server.Era == EraModern:
		env := string(reproEnvelope(rep.Server.ProtocolVersion))
		disc := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":` + env + `}}`
		list := `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":` + env + `}}`
		cd, prefix := shellContext(cfg)
		return report.Reproducer{Shell: fmt.Sprintf("%s{ printf '%%s\\n' %s %s; sleep 2; } | %s%s | head -n 20 | cut -c1-300",
			cd, shellQuote(disc), shellQuote(list), prefix, shellJoin(cfg.Command))}
	case len(cfg.Command) > 0:
		cd, prefix := shellContext(cfg)
		return report.Reproducer{Shell: fmt.Sprintf("%s{ printf '%%s\\n' %s %s %s; sleep 2; } | %s%s | head -n 20 | cut -c1-300",
			cd, shellQuote(reproInit), shellQuote(reproInitialized), shellQuote(list), prefix, shellJoin(cfg.Command))}
	case cfg.URL != "" && rep.Server.Era == EraModern:
		h := curlHeaders(cfg)
		disc := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":` + string(reproEnvelope(rep.Server.ProtocolVersion)) + `}}`
		return report.Reproducer{Shell: fmt.Sprintf("curl -si %s %s -H %s -H 'Mcp-Method: server/discover' -d %s | head -n 40",
			shellQuote(secret.RedactURL(cfg.URL)), h, shellQuote("Mcp-Protocol-Version: "+mcpheader.Token(rep.Server.ProtocolVersion)), shellQuote(disc))}
	case cfg.URL != "":
		h := curlHeaders(cfg)
		return report.Reproducer{Shell: fmt.Sprintf("curl -si %s %s -d %s | head -n 40", shellQuote(secret.RedactURL(cfg.URL)), h, shellQuote(reproInit))}
	}
	return report.Reproducer{}
}
