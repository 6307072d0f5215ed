package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/audit"
	"github.com/mcp-fuzz/mcp-fuzz/internal/options"
	"github.com/mcp-fuzz/mcp-fuzz/internal/render/escape"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// planFlags are the flags of a run that list, cases and init refuse: they
// call nothing, gate nothing and write no report.
var planFlags = []struct {
	flag string
	set  func(options.Values) bool
}{
	{"-o", given("output")},
	{"--no-calls", given("no-calls")},
	{"--sequential", given("sequential")},
	{"--protocol", given("protocol")},
	{"--concurrency", given("concurrency")},
	{"--repeat", given("repeat")},
	{"--parallel", given("parallel")},
	{"--verbose", func(v options.Values) bool { return v.True("verbose") }},
	{"--fail-under", given("fail-under", "fail-under-dimensions")},
	{"--fail-on", given("fail-on")},
	{"--baseline", func(v options.Values) bool { return v.Has("baseline") || v.True("fail-on-new") }},
	{"--sarif-location", given("sarif-location", "sarif-category")},
}

// given says whether any of keys was given.
func given(keys ...string) func(options.Values) bool {
	return func(v options.Values) bool {
		return slices.ContainsFunc(keys, v.Has)
	}
}

// planOptions parses the flags of the subcommand name (list, cases,
// init) and builds the options; ok is false when they are wrong, with the
// exit code, the error reported.
func (a *App) planOptions(name string, args []string) (o audit.Options, code int, ok bool) {
	st, _, err := parseArgs(args)
	if err == nil {
		for _, f := range planFlags {
			if f.set(st.Given) {
				err = fmt.Errorf("%s takes no %s: it calls nothing and writes no report", name, f.flag)
				break
			}
		}
	}
	if format := st.Given.String("format"); err == nil && format != "text" && format != "json" {
		err = fmt.Errorf("%s --format %s: want text or json", name, format)
	}
	if err != nil {
		return o, a.usageError(err), false
	}
	return a.build(st)
}

// plan lists the target of o without calling anything (see
// [engine.Plan]); ok is false when it failed, with the exit code, the
// error reported.
func (a *App) plan(ctx context.Context, o audit.Options) (p *engine.Preview, code int, ok bool) {
	p, err := engine.Plan(ctx, o.Engine)
	switch {
	case ctx.Err() != nil:
		fmt.Fprintf(a.Stderr, "mcp-fuzz: interrupted (%v)\n", context.Cause(ctx))
		return nil, audit.InterruptedCode(ctx), false
	case errors.Is(err, engine.ErrConfig):
		return nil, a.usageError(errors.New(o.Describe(err))), false
	case err != nil:
		fmt.Fprintf(a.Stderr, "mcp-fuzz: %s\n", escape.Terminal(err.Error(), 0))
		return nil, ExitConnect, false
	}
	return p, ExitOK, true
}

// runList is `mcp-fuzz list [flags] -- CMD`: the tools, whether a run
// would call each and why, and the lint findings, calling nothing.
func (a *App) runList(ctx context.Context, args []string) int {
	return a.runPlan(ctx, "list", args, listJSON, writeList)
}

// runCases is `mcp-fuzz cases [flags] -- CMD`: the cases a run would send
// each tool it calls, calling nothing.
func (a *App) runCases(ctx context.Context, args []string) int {
	return a.runPlan(ctx, "cases", args, casesJSON, writeCases)
}

// runPlan plans the target of subcommand name's args and prints the plan
// as asJSON gives it (--format json) or as text writes it.
func (a *App) runPlan(ctx context.Context, name string, args []string, asJSON func(*engine.Preview) any, text func(io.Writer, *engine.Preview)) int {
	o, code, ok := a.planOptions(name, args)
	if !ok {
		return code
	}
	p, code, ok := a.plan(ctx, o)
	if !ok {
		return code
	}
	if o.Format == "json" {
		return a.writeJSON(asJSON(p))
	}
	text(a.Stdout, p)
	return ExitOK
}

func (a *App) writeJSON(v any) int {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		fmt.Fprintf(a.Stderr, "mcp-fuzz: %v\n", err)
		return ExitUsage
	}
	_, _ = a.Stdout.Write(append(b, '\n'))
	return ExitOK
}

// listedTool is a tool as list --json shows it: no schema, no cases.
type listedTool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	ReadOnly    *bool  `json:"readOnlyHint,omitempty"`
	Destructive *bool  `json:"destructiveHint,omitempty"`
	Idempotent  *bool  `json:"idempotentHint,omitempty"`
	TaskSupport string `json:"taskSupport,omitempty"`
	Called      bool   `json:"called"`
	CallReason  string `json:"callReason,omitempty"`
	SkipReason  string `json:"skipReason,omitempty"`
	Cases       int    `json:"cases"`
	Dropped     int    `json:"droppedCases,omitempty"`
}

// lintCounts counts lint findings by severity.
type lintCounts struct {
	Error   int `json:"error"`
	Warning int `json:"warning"`
	Info    int `json:"info"`
}

func countLint(ls []report.Lint) lintCounts {
	var c lintCounts
	for _, l := range ls {
		switch l.Severity {
		case report.SeverityError:
			c.Error++
		case report.SeverityWarning:
			c.Warning++
		default:
			c.Info++
		}
	}
	return c
}

func listJSON(p *engine.Preview) any {
	tools := make([]listedTool, len(p.Tools))
	for i, t := range p.Tools {
		tools[i] = listedTool{Name: t.Name, Description: t.Description, ReadOnly: t.ReadOnly, Destructive: t.Destructive, Idempotent: t.Idempotent,
			TaskSupport: t.TaskSupport, Called: t.Called, CallReason: t.CallReason, SkipReason: t.SkipReason, Cases: len(t.Cases), Dropped: t.Dropped}
	}
	lint := p.Lint
	if lint == nil {
		lint = []report.Lint{}
	}
	return struct {
		Target      report.Target    `json:"target"`
		Server      report.Server    `json:"server"`
		Discovery   report.Discovery `json:"discovery"`
		Tools       []listedTool     `json:"tools"`
		LintSummary lintCounts       `json:"lintSummary"`
		Lint        []report.Lint    `json:"lint"`
	}{p.Target, p.Server, p.Disc, tools, countLint(p.Lint), lint}
}

func casesJSON(p *engine.Preview) any {
	type tool struct {
		Name         string        `json:"name"`
		Called       bool          `json:"called"`
		CallReason   string        `json:"callReason,omitempty"`
		SkipReason   string        `json:"skipReason,omitempty"`
		GeneratorGap string        `json:"generatorGap,omitempty"`
		Dropped      int           `json:"droppedCases,omitempty"`
		Cases        []report.Case `json:"cases"`
	}
	tools := make([]tool, len(p.Tools))
	for i, t := range p.Tools {
		tools[i] = tool{Name: t.Name, Called: t.Called, CallReason: t.CallReason, SkipReason: t.SkipReason, GeneratorGap: t.GeneratorGap, Dropped: t.Dropped, Cases: t.Cases}
		if !t.Called {
			tools[i].Cases, tools[i].Dropped = []report.Case{}, 0
		}
	}
	return struct {
		Target report.Target `json:"target"`
		Server report.Server `json:"server"`
		Seed   int64         `json:"seed"`
		Tools  []tool        `json:"tools"`
	}{p.Target, p.Server, p.Seed, tools}
}

// serverLine is "server NAME VERSION · era E (VERSION)" for list and cases.
func serverLine(w io.Writer, p *engine.Preview) {
	name := strings.TrimSpace(escape.Terminal(p.Server.Name+" "+p.Server.Version, 120))
	if name == "" {
		name = "(no name)"
	}
	fmt.Fprintf(w, "server  %s · %s era (%s) · %s\n", name, escape.Terminal(p.Server.Era, 20), escape.Terminal(p.Server.ProtocolVersion, 40), p.Target.Transport)
}

// hints spells the annotations that decide whether a run calls t.
func hints(t engine.PreviewedTool) string {
	var out []string
	for _, h := range []struct {
		name string
		v    *bool
	}{{"readOnlyHint", t.ReadOnly}, {"destructiveHint", t.Destructive}, {"idempotentHint", t.Idempotent}} {
		if h.v != nil {
			out = append(out, fmt.Sprintf("%s: %t", h.name, *h.v))
		}
	}
	if t.TaskSupport != "" {
		out = append(out, "taskSupport: "+escape.Terminal(t.TaskSupport, 20))
	}
	if len(out) == 0 {
		return "no annotations"
	}
	return strings.Join(out, ", ")
}

// maxListedLint is how many lint findings list shows one by one.
const maxListedLint = 20

func writeList(w io.Writer, p *engine.Preview) {
	serverLine(w, p)
	called := 0
	for _, t := range p.Tools {
		if t.Called {
			called++
		}
	}
	fmt.Fprintf(w, "tools   %d listed · %d would be called · %d not called\n", len(p.Tools), called, len(p.Tools)-called)
	for _, t := range p.Tools {
		// No line starts with server text: in a workflow step a line
		// starting with "::" is a command.
		fmt.Fprintf(w, "\ntool  %s  (%s)\n", escape.Terminal(t.Name, 80), hints(t))
		if d := escape.Terminal(t.Description, 100); d != "" {
			fmt.Fprintf(w, "  desc  %s\n", d)
		}
		if t.Called {
			budget := plural(len(t.Cases), "case", "cases")
			if t.Dropped > 0 {
				budget += fmt.Sprintf(" (%d more over the --cases budget)", t.Dropped)
			}
			fmt.Fprintf(w, "  call  %s; %s\n", escape.Terminal(t.CallReason, 200), budget)
		} else {
			fmt.Fprintf(w, "  skip  %s\n", escape.Terminal(strings.TrimPrefix(t.SkipReason, "not called: "), 240))
		}
		if t.GeneratorGap != "" {
			fmt.Fprintf(w, "  gap   the generated valid call does not validate: %s\n", escape.Terminal(t.GeneratorGap, 200))
		}
	}
	c := countLint(p.Lint)
	fmt.Fprintf(w, "\nlint    %s · %s · %s\n", plural(c.Error, "error", "errors"), plural(c.Warning, "warning", "warnings"), plural(c.Info, "info", "info"))
	lints := slices.Clone(p.Lint)
	rank := map[report.Severity]int{report.SeverityError: 0, report.SeverityWarning: 1}
	slices.SortStableFunc(lints, func(x, y report.Lint) int {
		rx, okx := rank[x.Severity]
		ry, oky := rank[y.Severity]
		if !okx {
			rx = 2
		}
		if !oky {
			ry = 2
		}
		return rx - ry
	})
	for i, l := range lints {
		if i == maxListedLint {
			fmt.Fprintf(w, "  ... and %d more (mcp-fuzz --no-calls reports them all)\n", len(lints)-i)
			break
		}
		where := ""
		if l.Tool != "" {
			where = " " + escape.Terminal(l.Tool, 60)
		}
		fmt.Fprintf(w, "  %-7s %s%s: %s\n", l.Severity, escape.Terminal(l.Code, 40), where, escape.Terminal(l.Message, 160))
	}
}

// maxShownArguments is how many characters of a case's arguments cases
// shows on its line.
const maxShownArguments = 120

func writeCases(w io.Writer, p *engine.Preview) {
	serverLine(w, p)
	fmt.Fprintf(w, "seed    %d\n", p.Seed)
	// The tools not called come last, grouped by reason.
	var reasons []string
	skipped := map[string][]string{}
	for _, t := range p.Tools {
		name := escape.Terminal(t.Name, 80)
		if !t.Called {
			r := escape.Terminal(strings.TrimPrefix(t.SkipReason, "not called: "), 240)
			if skipped[r] == nil {
				reasons = append(reasons, r)
			}
			skipped[r] = append(skipped[r], name)
			continue
		}
		dropped := ""
		if t.Dropped > 0 {
			dropped = fmt.Sprintf(", %d more over the --cases budget", t.Dropped)
		}
		fmt.Fprintf(w, "\ntool  %s: %s%s (called: %s)\n", name, plural(len(t.Cases), "case", "cases"), dropped, escape.Terminal(t.CallReason, 200))
		if t.GeneratorGap != "" {
			fmt.Fprintf(w, "  the valid call does not validate, and is not sent (generator_gap): %s\n", escape.Terminal(t.GeneratorGap, 200))
		}
		width := 0
		for _, c := range t.Cases {
			width = max(width, len([]rune(escape.Terminal(c.ID, 100))))
		}
		for _, c := range t.Cases {
			forbidden := "allowed  "
			if c.Forbidden {
				forbidden = "forbidden"
			}
			if c.Kind == report.KindValid {
				forbidden = "         "
			}
			args := string(c.Arguments)
			if c.ArgumentsDigest != nil {
				args = "(" + c.ArgumentsDigest.String() + ")"
			}
			fmt.Fprintf(w, "  %-16s  %s  %-*s  %s\n", c.Kind, forbidden, width, escape.Terminal(c.ID, 100), escape.Terminal(args, maxShownArguments))
		}
	}
	for _, r := range reasons {
		fmt.Fprintf(w, "\nnot called (%s): %s\n", r, strings.Join(skipped[r], ", "))
	}
}
