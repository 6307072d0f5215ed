package serve

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-fuzz/mcp-fuzz/internal/audit"
	"github.com/mcp-fuzz/mcp-fuzz/internal/boundedfile"
	"github.com/mcp-fuzz/mcp-fuzz/internal/render"
	"github.com/mcp-fuzz/mcp-fuzz/internal/words"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// AuditInput is the input of audit and audit_destructive.
type AuditInput struct {
	Target
	Cases              int      `json:"cases,omitempty" jsonschema:"per-tool case budget (default 40, at most 200)"`
	TimeoutSeconds     int      `json:"timeout_seconds,omitempty" jsonschema:"per-call timeout in seconds; a call without an answer by then is a hang (default 10, at most 60)"`
	MaxDurationSeconds int      `json:"max_duration_seconds,omitempty" jsonschema:"deadline of the whole audit in seconds (default 300, at most 900); past it the audit stops and returns a partial, ungraded report"`
	Tools              []string `json:"tools,omitempty" jsonschema:"glob patterns of tool names to audit (default: all that may be called)"`
	SkipTools          []string `json:"skip_tools,omitempty" jsonschema:"glob patterns of tool names never to call"`
	Protocol           bool     `json:"protocol,omitempty" jsonschema:"also run the protocol probes (unknown method, unknown tool, garbage cursor, ping, wrong-typed params)"`
	Security           *bool    `json:"security,omitempty" jsonschema:"security cases (default true): path traversal, command, code and SQL injection and request-forgery payloads, a flaw reported only with its evidence; false leaves them out"`
	Seed               int64    `json:"seed,omitempty" jsonschema:"case generation seed (default 1): the same seed gives the same cases"`
	ReportFormat       string   `json:"report_format,omitempty" jsonschema:"format of the report returned inline: markdown (default), json or none"`
	MaxReportChars     int      `json:"max_report_chars,omitempty" jsonschema:"cut the inline report at this many characters (default 8000, at most 200000); write output_path for the whole report"`
	OutputPath         string   `json:"output_path,omitempty" jsonschema:"write the full report to this new file (an absolute path; an existing file is never overwritten), format from the extension: .json (needed by replay and render_report), .md, .sarif, .xml (JUnit), .jsonl, .svg"`
}

// AuditOutput is what audit returns.
type AuditOutput struct {
	Server     ServerInfo           `json:"server"`
	Graded     bool                 `json:"graded" jsonschema:"false when nothing was tested (or the audit was cut short): never read an ungraded run as a pass"`
	Score      *int                 `json:"score" jsonschema:"overall score 0-100, null when not graded"`
	Grade      *string              `json:"grade" jsonschema:"A to F, null when not graded"`
	Dimensions map[string]Dimension `json:"dimensions" jsonschema:"robustness, validation, errorQuality, liveness, performance, schema"`
	Caps       []Cap                `json:"caps" jsonschema:"grade caps that applied, and why"`
	Critical   []string             `json:"critical,omitempty" jsonschema:"why the critical callout is raised (crash, hang, protocol violation, leak)"`
	Summary    report.Summary       `json:"summary"`
	Tools      []ToolResult         `json:"tools" jsonschema:"each tool: audited, or why not (at most 100)"`
	// Findings are the first findings, most severe first.
	Findings        []Finding `json:"findings" jsonschema:"the first findings (at most 25), each with the caseId replay takes"`
	FindingsTotal   int       `json:"findings_total"`
	EndedEarly      string    `json:"ended_early,omitempty" jsonschema:"set when the run stopped before every case ran, saying why"`
	Report          string    `json:"report,omitempty" jsonschema:"the report in report_format, possibly cut (see report_truncated)"`
	ReportFormat    string    `json:"report_format"`
	ReportTruncated bool      `json:"report_truncated"`
	ReportPath      string    `json:"report_path,omitempty" jsonschema:"where the full report was written (output_path)"`
	Note            string    `json:"note,omitempty"`
}

// ServerInfo identifies the audited server.
type ServerInfo struct {
	Name            string `json:"name"`
	Version         string `json:"version"`
	ProtocolVersion string `json:"protocol_version"`
	Era             string `json:"era,omitempty"`
}

// Dimension is one scored aspect of the server.
type Dimension struct {
	Score  *int   `json:"score" jsonschema:"0-100, null when not measured"`
	Reason string `json:"reason"`
}

// Cap is a grade cap that applied.
type Cap struct {
	Grade  string `json:"grade"`
	Reason string `json:"reason"`
}

// ToolResult says how one tool fared.
type ToolResult struct {
	Name       string `json:"name"`
	Tested     bool   `json:"tested"`
	SkipReason string `json:"skip_reason,omitempty"`
	Confirmed  bool   `json:"confirmed" jsonschema:"its valid call succeeded, so its rejections of bad input count as validation"`
	Cases      int    `json:"cases"`
}

// Finding is one finding, without its reproducer (see the full report).
type Finding struct {
	ID       string `json:"id"`
	Severity string `json:"severity"`
	Code     string `json:"code"`
	Tool     string `json:"tool,omitempty"`
	CaseID   string `json:"case_id,omitempty"`
	Message  string `json:"message"`
}

// Bounds of audit: the table's (package options), and those of its result.
var (
	defaultCases       = paramDefault[int]("cases")
	maxCases           = paramMax[int]("cases")
	defaultCallTimeout = paramDefault[time.Duration]("timeout")
	maxCallTimeout     = paramMax[time.Duration]("timeout")
	defaultSeed        = paramDefault[int64]("seed")
	defaultDuration    = paramDefault[time.Duration]("max-duration")
	maxDuration        = paramMax[time.Duration]("max-duration")
	defaultReportChars = paramDefault[int]("max-report-chars")
	maxReportChars     = paramMax[int]("max-report-chars")
	defaultReport      = paramDefault[string]("report-format")
	reportFormats      = paramValues("report-format")
)

const (
	maxFindings = 25
	maxTools    = 100
)

const auditDescription = `Audit an MCP server: start it (command, an argv array, over stdio; or url over HTTP), call its tools with one valid and many deliberately broken inputs derived from their schemas, and score how it behaves. Returns the score (0-100), grade (A-F), dimension scores, grade caps, verdict counts, the first findings (each with a case_id for replay) and the report (markdown or json, cut at max_report_chars; set output_path to a .json file for the full report, which replay and render_report read).

Calls only tools the target annotates readOnlyHint: true; tools and skip_tools narrow that set and never add a tool that is not read-only (use audit_destructive for those). It still starts the target process and sends its read-only tools hostile inputs, so it is not read-only itself. Bounded by timeout_seconds per call and max_duration_seconds overall; cancelling the request stops the audit. Secrets (headers, bearer, secret-looking env values) are redacted from the result.`

const auditDestructiveDescription = `Audit an MCP server like audit, but call EVERY tool, including those that are not annotated read-only (delete, write, send, execute...), with hostile inputs. Only for a disposable test instance: never against a server that can run shell commands, send messages or touch real data (files, databases, accounts). tools narrows which tools are called (an explicit match is called whatever its annotations). Same inputs and result as audit.`

func addAudit(s *mcp.Server, h *handlers) {
	mcp.AddTool(s, &mcp.Tool{
		Name:        "audit",
		Description: auditDescription,
		InputSchema: auditSchema(),
		Annotations: &mcp.ToolAnnotations{
			Title: "Audit an MCP server (read-only tools only)",
			// It starts a process and calls the target's tools: not
			// read-only. It calls only tools the target declares
			// read-only, so it destroys nothing the target did not
			// declare harmless, and output_path only ever creates a
			// new file.
			ReadOnlyHint:    false,
			DestructiveHint: ptr(false),
			IdempotentHint:  false,
			OpenWorldHint:   ptr(true),
		},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in AuditInput) (*mcp.CallToolResult, AuditOutput, error) {
		out, err := h.audit(ctx, in, false)
		return nil, out, err
	})
	mcp.AddTool(s, &mcp.Tool{
		Name:        "audit_destructive",
		Description: auditDestructiveDescription,
		InputSchema: auditSchema(),
		Annotations: &mcp.ToolAnnotations{
			Title:           "Audit an MCP server, calling destructive tools too",
			ReadOnlyHint:    false,
			DestructiveHint: ptr(true),
			IdempotentHint:  false,
			OpenWorldHint:   ptr(true),
		},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in AuditInput) (*mcp.CallToolResult, AuditOutput, error) {
		out, err := h.audit(ctx, in, true)
		return nil, out, err
	})
}

// options builds the audit options of in: destructive calls every tool,
// otherwise tools only narrows the read-only ones.
func (h *handlers) options(in AuditInput, destructive bool) (audit.Options, error) {
	st, err := in.settings()
	if err != nil {
		return audit.Options{}, err
	}
	cases := in.Cases
	if cases <= 0 {
		cases = defaultCases
	}
	cases = min(cases, maxCases)
	timeout := clampDuration(in.TimeoutSeconds, defaultCallTimeout, maxCallTimeout)
	seed := in.Seed
	if seed == 0 {
		seed = defaultSeed
	}
	for key, v := range map[string]any{
		"cases": cases, "timeout": timeout, "seed": seed, "tools": in.Tools, "skip-tools": in.SkipTools,
		"protocol": in.Protocol, "include-destructive": destructive,
	} {
		st.Given.Set(key, v)
	}
	if in.Security != nil {
		st.Given.Set("security", *in.Security)
	}
	o, err := audit.Build(st, argNames, h.o.LookupEnv)
	if err != nil {
		return o, errors.New(audit.Describe(err, argNames))
	}
	o.Engine.LookupEnv = h.o.LookupEnv
	o.Engine.OwnSecrets = h.own()
	o.Engine.Version = h.o.Version
	o.Engine.ToolsOnlyNarrow = !destructive
	o.Engine.NotReadOnlyHint = notReadOnlyHint
	return o, nil
}

// notReadOnlyHint is how an agent calls a tool not annotated read-only
// (the skip reason's parenthesis): tools only narrows audit's selection,
// so the command line's --tools NAME has no equivalent here.
const notReadOnlyHint = "only audit_destructive calls it"

// audit runs one audit for the tool audit (destructive false) or
// audit_destructive.
func (h *handlers) audit(ctx context.Context, in AuditInput, destructive bool) (AuditOutput, error) {
	redact := in.redactor(h.o.LookupEnv, h.own())
	format := in.ReportFormat
	switch {
	case format == "":
		format = defaultReport
	case !slices.Contains(reportFormats, format):
		return AuditOutput{}, fmt.Errorf("report_format %q: use %s", format, words.OrList(reportFormats))
	}
	var outFormat render.Format
	if in.OutputPath != "" {
		var err error
		if outFormat, err = render.ForPath(in.OutputPath); err != nil {
			return AuditOutput{}, fmt.Errorf("output_path: %w", err)
		}
	}
	if in.OutputPath != "" {
		if _, err := os.Lstat(in.OutputPath); err == nil {
			return AuditOutput{}, fmt.Errorf("output_path %s exists: choose a new path (audit never overwrites a file)", in.OutputPath)
		}
	}
	o, err := h.options(in, destructive)
	if err != nil {
		return AuditOutput{}, errors.New(redact(err.Error()))
	}
	// The directory of output_path is opened before the target starts and
	// the report written into it: the target cannot redirect the report
	// by replacing the directory with a symbolic link during the audit.
	var dest *boundedfile.Dest
	var destErr error
	if in.OutputPath != "" {
		if dest, destErr = boundedfile.OpenDest(in.OutputPath); destErr == nil {
			defer dest.Close()
		}
	}
	ctx, cancel := context.WithTimeout(ctx, clampDuration(in.MaxDurationSeconds, defaultDuration, maxDuration))
	defer cancel()
	res := audit.Run(ctx, o)
	rep := res.Report
	if rep == nil {
		if res.Err == nil {
			res.Err = errors.New("the audit produced no report")
		}
		return AuditOutput{}, fmt.Errorf("audit: %s", redact(res.Err.Error()))
	}
	out := summarize(rep)
	if res.Interrupted() || ctx.Err() != nil {
		out.Note = "the audit was stopped (max_duration_seconds or cancellation) before every case ran: the report is partial and not graded. "
	}
	if in.OutputPath != "" {
		if outFormat.Name == "json" {
			engine.SetReportPath(rep, in.OutputPath)
		}
		b, err := outFormat.Render(rep, render.Options{})
		if err == nil {
			err = destErr
		}
		if err == nil {
			err = writeNew(dest, b)
		}
		if errors.Is(err, fs.ErrExist) {
			// Made during the run, by the target say: kept all the same.
			return AuditOutput{}, fmt.Errorf("output_path %s exists: choose a new path (audit never overwrites a file)", in.OutputPath)
		}
		if err != nil {
			return AuditOutput{}, fmt.Errorf("writing output_path: %w", err)
		}
		out.ReportPath = in.OutputPath
		if dest.Moved() {
			out.Note += "The directory of output_path was moved or replaced during the audit: the report was written in the directory that was there when the audit started, not where output_path leads now. "
		}
	}
	limit := in.MaxReportChars
	if limit <= 0 {
		limit = defaultReportChars
	}
	limit = min(limit, maxReportChars)
	out.ReportFormat = format
	if format != "none" {
		text, err := renderText(rep, format)
		if err != nil {
			return AuditOutput{}, err
		}
		hint := auditCutHint
		if out.ReportPath != "" {
			hint = "the whole report is at report_path"
		}
		out.Report, out.ReportTruncated = cut(text, limit, hint)
	}
	switch {
	case out.ReportPath == "":
		out.Note += "Set output_path to a .json file to keep the full report for replay and render_report."
	case outFormat.Name != "json":
		out.Note += "replay and render_report read a .json report: set output_path to a .json file for them."
	default:
		out.Note += "The full report is at report_path: replay a finding with replay {report_path, case_id}, or render it with render_report."
	}
	out.Note = strings.TrimSpace(out.Note)
	return out, nil
}

// summarize is the bounded summary of rep.
func summarize(rep *report.Report) AuditOutput {
	out := AuditOutput{
		Server:     ServerInfo{Name: rep.Server.Name, Version: rep.Server.Version, ProtocolVersion: rep.Server.ProtocolVersion, Era: rep.Server.Era},
		Graded:     rep.Graded,
		Score:      rep.Score,
		Grade:      rep.Grade,
		Dimensions: map[string]Dimension{},
		Caps:       []Cap{},
		Critical:   rep.Critical,
		Summary:    rep.Summary,
		Tools:      []ToolResult{},
		Findings:   []Finding{},
		EndedEarly: rep.EndedEarly,
	}
	for k, d := range rep.Dimensions {
		out.Dimensions[k] = Dimension{Score: d.Score, Reason: d.Reason}
	}
	for _, c := range rep.Caps {
		out.Caps = append(out.Caps, Cap{Grade: c.Grade, Reason: c.Reason})
	}
	for i, t := range rep.Tools {
		if i == maxTools {
			break
		}
		out.Tools = append(out.Tools, ToolResult{Name: t.Name, Tested: t.Tested, SkipReason: t.SkipReason, Confirmed: t.Confirmed, Cases: len(t.Cases)})
	}
	out.FindingsTotal = len(rep.Findings)
	for _, f := range bySeverity(rep.Findings) {
		if len(out.Findings) == maxFindings {
			break
		}
		out.Findings = append(out.Findings, Finding{ID: f.ID, Severity: string(f.Severity), Code: f.Code, Tool: f.Tool, CaseID: f.CaseID, Message: f.Message})
	}
	return out
}

// writeNew writes data to a new file at d's path, whole or not at all,
// in the directory d opened: audit creates files and never overwrites one
// (nor a symbolic link), which keeps it additive (destructiveHint false).
func writeNew(d *boundedfile.Dest, data []byte) error {
	return d.Write(data, boundedfile.Options{Perm: 0o644, NoReplace: true})
}

// auditSchema is the input schema of audit and audit_destructive.
func auditSchema() any { return inputSchema[AuditInput](nil) }
