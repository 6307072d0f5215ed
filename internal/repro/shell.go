package repro

import (
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// shellContext is what a stdio reproducer puts before the server command:
// "cd DIR && " for --cwd, and "env KEY=\"$KEY\" " for --env, the values
// left to shell variables so that no secret is printed.
func shellContext(t Target) (cd, prefix string) {
	var env strings.Builder
	for _, k := range t.Env {
		env.WriteString(k + "=\"$" + k + "\" ")
	}
	if env.Len() > 0 {
		prefix = "env " + env.String()
	}
	if t.Cwd != "" {
		cd = "cd " + ShellQuote(t.Cwd) + " && "
	}
	return cd, prefix
}

// ShellQuote quotes s for a POSIX shell.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:@%+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ShellJoin is args as one shell command line, each word quoted.
func ShellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = ShellQuote(a)
	}
	return strings.Join(q, " ")
}

// replayPrefix starts every replay reproducer; [SetReportPath] puts the
// real path in place of the placeholder.
const replayPrefix = "mcp-fuzz replay " + report.ReportPlaceholder + " "

// replayCommand is the `mcp-fuzz replay` command that re-runs case caseID
// against t, regenerating its arguments from the report. Secrets are
// shell variables, as in the other reproducers.
func replayCommand(t Target, caseID string) string {
	var b strings.Builder
	b.WriteString(replayPrefix + ShellQuote(caseID))
	if t.ReplayEra != "" {
		b.WriteString(" --era " + t.ReplayEra)
	}
	switch {
	case len(t.Command) > 0:
		for _, k := range t.Env {
			b.WriteString(" --env " + ShellQuote(k) + "=\"$" + k + "\"")
		}
		for _, k := range t.PassEnv {
			b.WriteString(" --pass-env " + ShellQuote(k))
		}
		if t.Cwd != "" {
			b.WriteString(" --cwd " + ShellQuote(t.Cwd))
		}
		if !t.TemporaryProgram {
			// Else the report's own target, which replay starts from
			// this binary when it is the demo server.
			b.WriteString(" -- " + ShellJoin(t.Command))
		}
	case t.URL != "":
		b.WriteString(" --url " + ShellQuote(t.URL))
		for _, n := range t.Headers {
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
	named := "mcp-fuzz replay " + ShellQuote(path) + " "
	for i := range rep.Findings {
		r := &rep.Findings[i].Reproducer
		if rest, ok := strings.CutPrefix(r.Shell, replayPrefix); ok {
			r.Shell = named + rest
		}
		// An era_difference finding's replays, one per era in a subshell.
		r.Shell = strings.ReplaceAll(r.Shell, "( "+replayPrefix, "( "+named)
	}
}
