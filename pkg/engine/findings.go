package engine

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/mcpheader"
	"github.com/mcp-fuzz/mcp-fuzz/internal/render/escape"
	"github.com/mcp-fuzz/mcp-fuzz/internal/secret"
	"github.com/mcp-fuzz/mcp-fuzz/internal/session"
	"github.com/mcp-fuzz/mcp-fuzz/internal/stateless"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// findings lists one finding per failing case verdict and per flag, worst
// first, then by tool and case order.
func findings(rep *report.Report, cfg Config) []report.Finding {
	out := []report.Finding{}
	for _, t := range rep.Tools {
		for _, c := range t.Cases {
			if code, ok := report.LookupCode(string(c.Verdict)); ok && !code.Flag && !code.Check {
				out = append(out, newFinding(rep, cfg, t.Name, c, code))
			}
			for _, f := range c.Flags {
				if code, ok := report.LookupCode(f); ok && code.Flag {
					out = append(out, newFinding(rep, cfg, t.Name, c, code))
				}
			}
		}
	}
	if rep.ServerViolationCount > 0 {
		out = append(out, serverFinding(rep, cfg))
	}
	out = append(out, checkFindings(rep, cfg)...)
	sort.SliceStable(out, func(i, j int) bool {
		return out[i].Severity.Rank() < out[j].Severity.Rank()
	})
	return out
}

func newFinding(rep *report.Report, cfg Config, toolName string, c report.Case, code report.Code) report.Finding {
	msg := code.Message
	if c.Crash != nil && c.Crash.How != "" {
		msg += " (" + strings.ReplaceAll(c.Crash.How, "_", " ") + ")"
	}
	detail := c.Detail
	if code.Name == report.FlagSlow || code.Name == report.FlagBloated {
		// The flag's own part of the detail: its message already says
		// what the flag is.
		if part, ok := flagDetail(detail, code.Name); ok {
			detail = part
		}
	}
	if detail != "" {
		msg += ": " + detail
	}
	if len(msg) > maxFindingMessage {
		msg = cutUTF8(msg, maxFindingMessage) + "… (see the case's detail)"
	}
	return report.Finding{
		ID:         c.ID + "#" + code.Name,
		Severity:   code.Severity,
		Code:       code.Name,
		Tool:       toolName,
		CaseID:     c.ID,
		Message:    msg,
		Reproducer: reproduce(rep, cfg, toolName, c),
	}
}

// Bounds on what a finding carries, so that findings stay small whatever the
// case: a reproducer longer than maxCallLine is an `mcp-fuzz replay` command
// instead, and a message is cut at maxFindingMessage bytes.
const (
	maxCallLine       = 4096
	maxFindingMessage = 2048
)

// reproduce builds the JSON-RPC line and a shell one-liner for a case; for a
// case whose arguments the report compacted (or whose call line would be
// long), an `mcp-fuzz replay` command instead.
func reproduce(rep *report.Report, cfg Config, toolName string, c report.Case) report.Reproducer {
	if c.Task {
		return reproduceTask(rep, cfg, toolName, c)
	}
	if c.ArgumentsDigest != nil || len(c.Arguments) > report.MaxInlineArguments {
		r := report.Reproducer{Shell: replayCommand(cfg, c.ID)}
		if c.ArgumentsDigest != nil && c.ArgumentsDigest.Pattern != nil {
			var meta json.RawMessage
			if rep.Server.Era == EraModern {
				meta = reproEnvelope(rep.Server.ProtocolVersion)
			}
			r.Generator = generatorCommand(toolName, c.ArgumentsDigest.Pattern, meta)
		}
		return r
	}
	// Escaped so the line survives every report format unchanged.
	call := string(escape.JSON(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":%s}`, reproParams(rep, toolName, c.Arguments))))
	if len(call) > maxCallLine {
		return report.Reproducer{Shell: replayCommand(cfg, c.ID)}
	}
	r := report.Reproducer{JSONRPC: call}
	switch {
	case len(cfg.Command) > 0 && rep.Server.Era == EraModern:
		// Stateless: no handshake, the envelope is in the call itself.
		cd, prefix := shellContext(cfg)
		r.Shell = fmt.Sprintf("%s{ printf '%%s\\n' %s; sleep 2; } | %s%s",
			cd, repeatedCalls(rep, toolName, c), prefix, shellJoin(cfg.Command))
	case len(cfg.Command) > 0:
		cd, prefix := shellContext(cfg)
		r.Shell = fmt.Sprintf("%s{ printf '%%s\\n' %s %s %s; sleep 2; } | %s%s",
			cd, shellQuote(reproInit), shellQuote(reproInitialized), repeatedCalls(rep, toolName, c), prefix, shellJoin(cfg.Command))
	case cfg.URL != "" && rep.Server.Era == EraModern:
		// Stateless: one POST, no session, the routing headers.
		h := curlHeaders(cfg)
		r.Shell = fmt.Sprintf(`curl -s %s %s -H %s -H 'Mcp-Method: tools/call' -H %s%s -d %s`,
			shellQuote(secret.RedactURL(cfg.URL)), h, shellQuote("Mcp-Protocol-Version: "+mcpheader.Token(rep.Server.ProtocolVersion)), shellQuote("Mcp-Name: "+mcpheader.NameValue(toolName)),
			paramCurlHeaders(cfg.params, toolName, c.Arguments), shellQuote(call))
	case cfg.URL != "":
		r.Shell = sessionCurl(cfg, rep.Server.ProtocolVersion, call)
	}
	if cfg.TemporaryProgram {
		// The program the pipe would start is gone: replay the case
		// against the report's target instead.
		r.Shell = replayCommand(cfg, c.ID)
	}
	return r
}

// sessionCurl is the curl line that sends line as the 2025 era does over
// HTTP: a session opened with initialize, the initialized notification,
// then line on that session, each with the negotiated version.
func sessionCurl(cfg Config, version, line string) string {
	u := shellQuote(secret.RedactURL(cfg.URL))
	h := curlHeaders(cfg)
	// The version is the server's word: quoted like any server text.
	pvHeader := shellQuote("Mcp-Protocol-Version: " + mcpheader.Token(version))
	return fmt.Sprintf(`sid=$(curl -si %s %s -d %s | tr -d '\r' | sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: //p'); `+
		`curl -s %s %s -H "Mcp-Session-Id: $sid" -H %s -d %s >/dev/null; `+
		`curl -s %s %s -H "Mcp-Session-Id: $sid" -H %s -d %s`,
		u, h, shellQuote(reproInit), u, h, pvHeader, shellQuote(reproInitialized), u, h, pvHeader, shellQuote(line))
}

// reproInit and reproInitialized are the 2025 era's handshake as every
// reproducer that needs one sends it: initialize with id 1, then the
// initialized notification.
var reproInit = fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"mcp-fuzz-repro","version":"0"}}}`, session.LegacyVersion)

const reproInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`

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
		lines[i] = shellQuote(string(escape.JSON(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, i+2, reproParams(rep, toolName, c.Arguments)))))
	}
	return strings.Join(lines, "; sleep 1; printf '%s\\n' ")
}

// curlHeaders are the headers every curl reproducer sends: the content
// types, and the user's --header names with their values left to
// environment variables (no secret is printed).
func curlHeaders(cfg Config) string {
	return `-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream'` + userCurlHeaders(cfg)
}

// userCurlHeaders are the user's --header names as curl words, each after
// a space, their values left to environment variables in double quotes (so
// that the shell expands them), and, when the run sent a bearer token, the
// Authorization header that --bearer makes, its token left to
// $MCP_FUZZ_BEARER. No value is ever printed.
func userCurlHeaders(cfg Config) string {
	var h string
	for _, hd := range cfg.Headers {
		n, _, _ := parseHeader(hd)
		if cfg.Bearer != "" && strings.EqualFold(n, "Authorization") {
			continue // --bearer replaces it, as on the wire
		}
		h += " -H " + headerFromEnv(n)
	}
	if cfg.Bearer != "" {
		h += ` -H "Authorization: Bearer $` + BearerEnv + `"`
	}
	return h
}

// BearerEnv is the environment variable that holds the bearer token when
// --bearer is not given, and the one reproducers name in its place.
const BearerEnv = "MCP_FUZZ_BEARER"

// shellContext is what a stdio reproducer puts before the server command:
// "cd DIR && " for --cwd, and "env KEY=\"$KEY\" " for --env, the values
// left to shell variables so that no secret is printed.
func shellContext(cfg Config) (cd, prefix string) {
	var env strings.Builder
	for _, kv := range cfg.Env {
		k, _, _ := cutEnv(kv)
		env.WriteString(k + "=\"$" + k + "\" ")
	}
	if env.Len() > 0 {
		prefix = "env " + env.String()
	}
	if cfg.Cwd != "" {
		cd = "cd " + shellQuote(cfg.Cwd) + " && "
	}
	return cd, prefix
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
	return "python3 -c " + shellQuote(string(escape.JSON([]byte(program))))
}

// replayPrefix starts every replay reproducer; [SetReportPath] puts the
// real path in place of the placeholder.
const replayPrefix = "mcp-fuzz replay " + report.ReportPlaceholder + " "

// replayCommand is the `mcp-fuzz replay` command that re-runs case caseID
// against the target of cfg, regenerating its arguments from the report.
// Secrets are shell variables, as in the other reproducers.
func replayCommand(cfg Config, caseID string) string {
	var b strings.Builder
	b.WriteString(replayPrefix + shellQuote(caseID))
	if cfg.replayEra != "" {
		b.WriteString(" --era " + cfg.replayEra)
	}
	switch {
	case len(cfg.Command) > 0:
		for _, kv := range cfg.Env {
			k, _, _ := cutEnv(kv)
			b.WriteString(" --env " + shellQuote(k) + "=\"$" + k + "\"")
		}
		for _, k := range cfg.PassEnv {
			b.WriteString(" --pass-env " + shellQuote(k))
		}
		if cfg.Cwd != "" {
			b.WriteString(" --cwd " + shellQuote(cfg.Cwd))
		}
		if !cfg.TemporaryProgram {
			// Else the report's own target, which replay starts from
			// this binary when it is the demo server.
			b.WriteString(" -- " + shellJoin(cfg.Command))
		}
	case cfg.URL != "":
		b.WriteString(" --url " + shellQuote(secret.RedactURL(cfg.URL)))
		for _, hd := range cfg.Headers {
			n, _, _ := parseHeader(hd)
			b.WriteString(" --header " + headerFromEnv(n))
		}
		// A bearer token is read from $MCP_FUZZ_BEARER by replay itself:
		// not on its command line, where ps would show it.
	}
	return b.String()
}

// SetReportPath names the JSON report at path in the replay reproducers of
// rep's findings, which say [report.ReportPlaceholder] until the report is
// written somewhere.
func SetReportPath(rep *report.Report, path string) {
	named := "mcp-fuzz replay " + shellQuote(path) + " "
	for i := range rep.Findings {
		r := &rep.Findings[i].Reproducer
		if rest, ok := strings.CutPrefix(r.Shell, replayPrefix); ok {
			r.Shell = named + rest
		}
		// An era_difference finding's replays, one per era in a subshell.
		r.Shell = strings.ReplaceAll(r.Shell, "( "+replayPrefix, "( "+named)
	}
}

// headerFromEnv is a shell word for the header "name: $NAME", the value
// left to the shell variable named after the header.
func headerFromEnv(name string) string {
	esc := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`").Replace(name)
	return `"` + esc + ": $" + envName(name) + `"`
}

// HeaderEnv is the environment variable that reproducers (and replay)
// read the value of header from: X-Tenant's is X_TENANT.
func HeaderEnv(header string) string { return envName(header) }

// envName turns a header name into a shell variable name for reproducers,
// so secrets never appear in them.
func envName(header string) string {
	return strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(header))
}

func cutEnv(kv string) (string, string, bool) { return strings.Cut(kv, "=") }

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:@%+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

// reproParams are the params of a reproducer's tools/call: in the modern
// era with the _meta envelope of the version the audit negotiated.
func reproParams(rep *report.Report, toolName string, args json.RawMessage) json.RawMessage {
	p := session.CallParams(toolName, args)
	if rep == nil || rep.Server.Era != EraModern {
		return p
	}
	env := reproEnvelope(rep.Server.ProtocolVersion)
	if withEnv, err := stateless.WithMembers(p, "_meta", env); err == nil {
		return withEnv
	}
	return p
}

// reproEnvelope is the _meta envelope a reproducer sends.
func reproEnvelope(version string) json.RawMessage {
	return stateless.Envelope(version, "mcp-fuzz-repro", "0")
}

// paramCurlHeaders are the -H words of a reproducer for the Mcp-Param
// headers of a call of toolName with args, sorted; "" when there are none.
// Names were validated as HTTP tokens; values are visible ASCII; both are
// shell-quoted all the same.
func paramCurlHeaders(table map[string][]mcpheader.Binding, toolName string, args json.RawMessage) string {
	h := mcpheader.Headers(table[toolName], args)
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(h)) {
		b.WriteString(" -H " + shellQuote(k+": "+h.Get(k)))
	}
	return b.String()
}
