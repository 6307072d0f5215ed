package serve

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-fuzz/mcp-fuzz/internal/audit"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// ReplayInput is the input of replay.
type ReplayInput struct {
	ReportPath     string   `json:"report_path" jsonschema:"a JSON report written by audit's output_path (or mcp-fuzz -o FILE.json)"`
	CaseID         string   `json:"case_id" jsonschema:"the case to re-run: a finding's case_id (e.g. search/wrong_type/limit) or its id (search/wrong_type/limit#crash)"`
	Env            []string `json:"env,omitempty" jsonschema:"variables (NAME=VALUE) for the stdio server (reports never store them). Secrets: never echoed back"`
	Headers        []string `json:"headers,omitempty" jsonschema:"HTTP headers 'Name: value' (reports never store them). Secrets: never echoed back"`
	Bearer         string   `json:"bearer,omitempty" jsonschema:"bearer token for an HTTP target. A secret: never echoed back"`
	TimeoutSeconds int      `json:"timeout_seconds,omitempty" jsonschema:"timeout of the call in seconds (default 10, at most 60)"`
}

// ReplayOutput is what replay returns.
type ReplayOutput struct {
	CaseID     string `json:"case_id"`
	Tool       string `json:"tool"`
	OldVerdict string `json:"old_verdict"`
	OldDetail  string `json:"old_detail,omitempty"`
	NewVerdict string `json:"new_verdict"`
	NewDetail  string `json:"new_detail,omitempty"`
	Changed    bool   `json:"changed"`
}

const replayDescription = `Re-run one case of a saved JSON report (audit's output_path) against the target the report recorded, and return the old and new verdicts: check whether a finding is fixed. Starts the target again and sends it the recorded call (oversize arguments are regenerated from the report's seed).

Declared possibly destructive: it re-sends whatever call the report recorded, and a report of audit_destructive (or of the command line's --include-destructive or --tools) may name a tool that changes data. Replays of audit's reports call read-only tools only. Secrets are not stored in reports: pass env, headers or bearer again when the target needs them.`

func addReplay(s *mcp.Server, h *handlers) {
	mcp.AddTool(s, &mcp.Tool{
		Name:        "replay",
		Description: replayDescription,
		InputSchema: inputSchema[ReplayInput](nil),
		Annotations: &mcp.ToolAnnotations{
			Title:           "Replay one case of a saved report",
			ReadOnlyHint:    false,
			DestructiveHint: ptr(true),
			IdempotentHint:  false,
			OpenWorldHint:   ptr(true),
		},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in ReplayInput) (*mcp.CallToolResult, ReplayOutput, error) {
		out, err := h.replay(ctx, in)
		return nil, out, err
	})
}

// replay re-runs in.CaseID as `mcp-fuzz replay REPORT CASE-ID` does.
func (h *handlers) replay(ctx context.Context, in ReplayInput) (ReplayOutput, error) {
	rep, err := report.ReadFile(in.ReportPath)
	if err != nil {
		return ReplayOutput{}, fmt.Errorf("reading report_path: %w", err)
	}
	caseID, era := audit.ReplayTarget(in.CaseID)
	tool, old, ok := audit.ReplayCase(rep, caseID, era)
	if !ok {
		return ReplayOutput{}, fmt.Errorf("%s has no case %q", in.ReportPath, caseID)
	}
	t := Target{Command: rep.Target.Args, URL: rep.Target.URL, Cwd: rep.Target.Cwd, Env: in.Env, Headers: in.Headers, Bearer: in.Bearer, Era: era}
	redact := t.redactor(h.o.LookupEnv, h.own())
	st, err := t.settings()
	if err != nil {
		return ReplayOutput{}, fmt.Errorf("the report records no target: %w", err)
	}
	st.Given.Set("timeout", clampDuration(in.TimeoutSeconds, defaultCallTimeout, maxCallTimeout))
	o, err := audit.Build(st, argNames, h.o.LookupEnv)
	if err != nil {
		return ReplayOutput{}, errors.New(redact(audit.Describe(err, argNames)))
	}
	cfg := o.Engine
	cfg.LookupEnv, cfg.Version = h.o.LookupEnv, h.o.Version
	cfg.OwnSecrets = h.own()
	// Compacted arguments are regenerated with the options of the
	// recorded run.
	if rep.Seed != 0 {
		cfg.Seed = rep.Seed
	}
	if rep.Config.Cases != 0 {
		cfg.Cases = rep.Config.Cases
	}
	if rep.Config.Profile != "" {
		cfg.Profile = rep.Config.Profile
	}
	if era == "" && (rep.Server.Era == engine.EraModern || rep.Server.Era == engine.EraLegacy) && len(cfg.Command) > 0 {
		cfg.Era = rep.Server.Era
	}
	cfg.Learned = audit.LearnedArgs(rep, tool)
	now, err := engine.Replay(ctx, cfg, tool, old)
	if err != nil {
		return ReplayOutput{}, fmt.Errorf("replay: %s", redact(err.Error()))
	}
	return ReplayOutput{
		CaseID: caseID, Tool: tool,
		OldVerdict: string(old.Verdict), OldDetail: old.Detail,
		NewVerdict: string(now.Verdict), NewDetail: redact(now.Detail),
		Changed: now.Verdict != old.Verdict,
	}, nil
}
