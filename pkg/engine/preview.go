package engine

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/casegen"
	"github.com/mcp-fuzz/mcp-fuzz/internal/lint"
	"github.com/mcp-fuzz/mcp-fuzz/internal/session"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// Preview is what a run with a [Config] would do, found without calling
// anything: the target's tools, whether each would be called and why (or
// why not), and the cases it would send. See [Plan].
type Preview struct {
	Target report.Target `json:"target"`
	Server report.Server `json:"server"`
	// Run says how the server was contained, as in a report.
	Run  *report.Run      `json:"run,omitempty"`
	Disc report.Discovery `json:"discovery"`
	// Lint is what a static audit ([Config.NoCalls]) reports about the
	// metadata: the rules of package lint over every tool.
	Lint  []report.Lint   `json:"lint"`
	Seed  int64           `json:"seed"`
	Tools []PreviewedTool `json:"tools"`
}

// PreviewedTool is one listed tool in a [Preview].
type PreviewedTool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// The annotations that decide whether a run calls the tool; nil when
	// the server left them out.
	ReadOnly    *bool  `json:"readOnlyHint,omitempty"`
	Destructive *bool  `json:"destructiveHint,omitempty"`
	Idempotent  *bool  `json:"idempotentHint,omitempty"`
	TaskSupport string `json:"taskSupport,omitempty"`
	// InputSchema is the tool's input schema as listed (redacted).
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	// Called is true when a run would call the tool, for CallReason;
	// otherwise SkipReason says why not, as the run's report would.
	Called     bool   `json:"called"`
	CallReason string `json:"callReason,omitempty"`
	SkipReason string `json:"skipReason,omitempty"`
	// Cases are the cases generated for the tool (whether or not it would
	// be called), the valid call first, arguments over 1 KiB compacted as
	// in a report; Dropped counts those over the case budget.
	Cases        []report.Case `json:"cases"`
	Dropped      int           `json:"droppedCases,omitempty"`
	GeneratorGap string        `json:"generatorGap,omitempty"`
	// Valid is the valid call's arguments in full (a user example's when
	// the configuration has one), for example skeletons.
	Valid json.RawMessage `json:"-"`
}

// Plan connects to the target of cfg and lists it, as [Run] does, and then
// sends nothing else: it returns which tools a run with cfg would call,
// why, and the cases it would generate for every tool. The error is as
// Run's: [ErrConfig] for a configuration the target refutes (a tool
// pattern that matches nothing), [ErrConnect] when the target could not be
// listed. [EraBoth] plans as [EraAuto]: both eras list the same tools and
// generate the same cases.
func Plan(ctx context.Context, cfg Config) (*Preview, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	cfg.NoSecurity = true // security cases are planned on a valid call's answer
	cfg, removeScratch, err := cfg.withScratch()
	if err != nil {
		return nil, err
	}
	defer removeScratch()
	defer cfg.boxed()()
	if cfg.Era == EraBoth {
		cfg.Era = EraAuto
	}
	st, err := start(ctx, cfg)
	if err != nil {
		return nil, err
	}
	s, tools := st.s, st.tools
	defer s.Close()
	if err := cfg.checkMatches(tools); err != nil {
		return nil, err
	}
	shown := cfg.shown(st.leak)
	p := &Preview{
		Target: shown.target(st.cn.Transport),
		Server: s.Server(st.leak.Redact),
		Run:    cfg.boxes.run(),
		Disc:   st.disc,
		Lint:   slices.Concat(session.VersionLint(s.Era, s.Init.ProtocolVersion), st.lint, staticLint(s, tools), session.ParamLint(tools, st.cn.MirrorsParams())),
		Seed:   cfg.Seed,
	}
	for _, t := range tools {
		schema, _ := t.Compiled()
		p.Lint = append(p.Lint, lint.SchemaProblems(t.Name, schema)...)
		pt := PreviewedTool{
			Name: t.Name, Description: t.Description, InputSchema: t.InputSchema,
			ReadOnly: t.ReadOnly, Destructive: t.Destructive, Idempotent: t.Idempotent, TaskSupport: t.TaskSupport,
		}
		pt.SkipReason = cfg.skipReason(t)
		if pt.SkipReason == "" {
			pt.SkipReason = taskSkipReason(t, s.Era)
		}
		if pt.SkipReason == "" {
			pt.SkipReason = st.cn.ParamSkipReason(t)
		}
		if pt.Called = pt.SkipReason == ""; pt.Called {
			pt.CallReason = cfg.callReason(t)
		}
		example := cfg.Examples[t.Name]
		plan := casegen.Generate(t.Name, schema, casegen.Options{
			Seed:       cfg.Seed,
			Budget:     cfg.Cases,
			Example:    example,
			Aggressive: cfg.Profile == "aggressive",
		})
		pt.Dropped, pt.GeneratorGap = plan.Dropped, plan.GeneratorGap
		pt.Cases = make([]report.Case, len(plan.Cases))
		for i, c := range plan.Cases {
			pt.Cases[i] = reportCase(c)
			pt.Cases[i].Flags = nil
		}
		if len(plan.Cases) > 0 {
			pt.Valid = plan.Cases[0].Arguments
		}
		p.Tools = append(p.Tools, pt)
	}
	redactWritten(p, keepingNames(st.leak, tools))
	return p, nil
}

// callReason says why t is called by a run with c, when [Config.skipReason]
// says it is.
func (c Config) callReason(t tool) string {
	switch {
	case matchIndex(c.Tools, t.Name) >= 0:
		from := c.ToolsFrom
		if from == "" {
			from = "--tools " + strings.Join(c.Tools, ",")
		}
		return "matched by " + from
	case slices.Contains(c.AlsoCall, t.Name):
		return "per-tool include: true in the config file"
	case t.ReadOnly != nil && *t.ReadOnly:
		return "annotated readOnlyHint: true"
	case c.IncludeDestructive:
		return "--include-destructive"
	}
	return ""
}
