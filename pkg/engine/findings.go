package engine

import (
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/repro"
	"github.com/mcp-fuzz/mcp-fuzz/internal/secret"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// findings lists the findings of rep, worst first, with their reproducers
// for the target of cfg (see [repro.Findings]).
func findings(rep *report.Report, cfg Config) []report.Finding {
	return repro.Findings(rep, reproTarget(cfg))
}

// reproTarget is what reproducers may say of the target of cfg: call it
// on cfg.shown, so that no secret reaches it. Only names stand for the
// values of the environment, the headers and the bearer token.
func reproTarget(cfg Config) repro.Target {
	t := repro.Target{
		Command:          cfg.Command,
		Cwd:              cfg.Cwd,
		PassEnv:          cfg.PassEnv,
		URL:              secret.RedactURL(cfg.URL),
		Bearer:           cfg.Bearer != "",
		TemporaryProgram: cfg.TemporaryProgram,
		Params:           cfg.params,
		CallTimeout:      cfg.callTimeout,
	}
	t.Env, t.Headers = cfg.envNames(), cfg.headerNames()
	return t
}

// BearerEnv is the environment variable that holds the bearer token when
// --bearer is not given, and the one reproducers name in its place.
const BearerEnv = "MCP_FUZZ_BEARER"

// SetReportPath names the JSON report at path in the replay reproducers of
// rep's findings, which say [report.ReportPlaceholder] until the report is
// written somewhere.
func SetReportPath(rep *report.Report, path string) { repro.SetReportPath(rep, path) }

// HeaderEnv is the environment variable that reproducers (and replay)
// read the value of header from: X-Tenant's is X_TENANT.
func HeaderEnv(header string) string { return repro.HeaderEnv(header) }

// envNames are the names of the --env variables, without their values.
func (c Config) envNames() []string {
	var names []string
	for _, kv := range c.Env {
		k, _, _ := strings.Cut(kv, "=")
		names = append(names, k)
	}
	return names
}

// headerNames are the names of the --header headers, without their values.
func (c Config) headerNames() []string {
	var names []string
	for _, h := range c.Headers {
		n, _, _ := parseHeader(h)
		names = append(names, n)
	}
	return names
}
