package engine

import (
	"context"
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"

	"github.com/mcp-fuzz/mcp-fuzz/internal/leak"
	"github.com/mcp-fuzz/mcp-fuzz/internal/lint"
	"github.com/mcp-fuzz/mcp-fuzz/internal/repro"
	"github.com/mcp-fuzz/mcp-fuzz/internal/secret"
	"github.com/mcp-fuzz/mcp-fuzz/internal/session"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

func (c Config) settings() report.Settings {
	return report.Settings{
		Cases:              c.Cases,
		SlowMs:             c.SlowMs,
		BloatChars:         c.BloatChars,
		TimeoutMs:          c.Timeout.Milliseconds(),
		StartupTimeoutMs:   c.StartupTimeout.Milliseconds(),
		IncludeDestructive: c.IncludeDestructive,
		Sequential:         c.Sequential,
		Tools:              c.Tools,
		SkipTools:          c.SkipTools,
		Profile:            c.Profile,
		Era:                c.Era,
		Protocol:           c.Protocol,
		MaxResponseBytes:   c.MaxResponse,
		MaxHangs:           max(c.MaxHangs, 0),
		Parallel:           c.Parallel,
		Repeat:             c.Repeat,
		NoCalls:            c.NoCalls,
		NoSecurity:         c.NoSecurity,
		Concurrency:        c.Concurrency,
		ExampleTools:       slices.Sorted(maps.Keys(c.Examples)),
	}
}

// shown is c as the report and its reproducers may spell it: the command's
// words, the URL and the working directory with every secret of d redacted.
// Environment values and headers are never spelled out.
func (c Config) shown(d *leak.Detector) Config {
	if len(c.Command) > 0 {
		c.Command = slices.Clone(c.Command)
		for i, a := range c.Command {
			c.Command[i] = d.Redact(a)
		}
		if c.TemporaryProgram {
			c.Command[0] = filepath.Base(c.Command[0])
		}
	}
	c.URL = d.Redact(secret.RedactURL(c.URL))
	c.Cwd = d.Redact(c.Cwd)
	return c
}

// target is what the report records of c's target: call it on c.shown, so
// that no secret reaches it.
func (c Config) target(transport string) report.Target {
	t := report.Target{Transport: transport, URL: c.URL, Cwd: c.Cwd}
	if len(c.Command) > 0 {
		t.Command = repro.ShellJoin(c.Command)
		t.Args = slices.Clone(c.Command)
	}
	t.Env = append(c.envNames(), c.PassEnv...)
	t.Headers = c.headerNames()
	t.Bearer = c.Bearer != ""
	return t
}

// staticLint runs the metadata rules (docs/BEHAVIOUR.md#static-lint) over what discovery found.
func staticLint(s *session.Session, tools []tool) []report.Lint {
	caps := map[string]json.RawMessage{}
	_ = json.Unmarshal(s.Init.Capabilities, &caps)
	_, hasTools := caps["tools"]
	srv := lint.Server{
		Name:            s.Init.ServerInfo.Name,
		Version:         s.Init.ServerInfo.Version,
		Instructions:    s.Init.Instructions,
		ToolsCapability: hasTools,
		Source:          lint.SourceInitialize,
	}
	if s.Era == EraModern {
		srv.Source = lint.SourceDiscover
	}
	return lint.Check(srv, lintTools(tools))
}

// lintTools are tools as the lint rules read them.
func lintTools(tools []tool) []lint.Tool {
	lt := make([]lint.Tool, len(tools))
	for i, t := range tools {
		in, out := t.Compiled()
		lt[i] = lint.Tool{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: t.InputSchema, OutputSchema: t.OutputSchema, Annotations: t.Annotations, Input: in, Output: out}
	}
	return lt
}

// relistLint lists the tools again on the audit's live session, once the
// tools ran, and reports every tool that changed since the first listing
// (tool_changed; docs/BEHAVIOUR.md#static-lint): a tool that turns into
// another after it was approved. Nothing when no session is left.
func (a *audit) relistLint(ctx context.Context) []report.Lint {
	if a.live == nil || a.live.s == nil || ctx.Err() != nil {
		return nil
	}
	s := a.live.s
	lctx, cancel := context.WithTimeout(ctx, a.cfg.StartupTimeout)
	defer cancel()
	s.SetPhase(session.PhaseDiscovery)
	again, err := session.ListTools(lctx, s)
	s.SetPhase(session.PhaseBetweenCalls)
	if err != nil {
		return nil
	}
	changed := lint.Changed(lintTools(a.tools), lintTools(again))
	if listChanged(s) {
		// A server that says its list changes (tools.listChanged) may add
		// tools as it goes; a listed tool that turns into another is
		// still reported.
		changed = slices.DeleteFunc(changed, func(l report.Lint) bool {
			return !slices.ContainsFunc(a.tools, func(t tool) bool { return t.Name == l.Tool })
		})
	}
	return append(changed, poisonedLater(s, again, changed)...)
}

// poisonedLater are the metadata-text rules' findings (hidden characters,
// words aimed at the model) on the tools that changed, as the later
// listing gives them: what a rug pull turned them into.
func poisonedLater(s *session.Session, again []tool, changed []report.Lint) []report.Lint {
	var tools []tool
	for _, t := range again {
		if slices.ContainsFunc(changed, func(l report.Lint) bool { return l.Tool == t.Name }) {
			tools = append(tools, t)
		}
	}
	var out []report.Lint
	for _, l := range staticLint(s, tools) {
		if l.Code == "hidden_characters" || l.Code == "model_directed_text" {
			l.Message += " (in the tools listed again after the calls)"
			out = append(out, l)
		}
	}
	return out
}

// listChanged reports whether the server declared tools.listChanged.
func listChanged(s *session.Session) bool {
	var caps struct {
		Tools struct {
			ListChanged bool `json:"listChanged"`
		} `json:"tools"`
	}
	return json.Unmarshal(s.Init.Capabilities, &caps) == nil && caps.Tools.ListChanged
}
