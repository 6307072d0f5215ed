package engine

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcp-fuzz/mcp-fuzz/internal/casegen"
	"github.com/mcp-fuzz/mcp-fuzz/internal/lifecycle"
	"github.com/mcp-fuzz/mcp-fuzz/internal/repro"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// LifecycleGroup is one resource whose create, read and delete tools are
// named by the user ([Config.Lifecycle]) rather than found by name.
type LifecycleGroup struct {
	// Resource is the noun the checks speak of ("entity": the check
	// lifecycle/entity); "" reads it from Create's name as detection would
	// (create_entities: entity), else the name itself.
	Resource             string
	Create, Read, Delete string
	// ReadArg and DeleteArg name the argument of Read and Delete that
	// takes the id; "" finds it as for a detected group (id, NOUN_id,
	// name, their lists, ...).
	ReadArg, DeleteArg string
}

// maxResourceLen bounds a resource's noun (it is part of check ids).
const maxResourceLen = 64

// validLifecycle checks the mapped groups: three tool names each, a
// resource that has words and is not mapped twice.
func validLifecycle(groups []LifecycleGroup) error {
	seen := map[string]int{}
	for i, m := range groups {
		bad := func(format string, args ...any) error {
			return &ConfigError{Format: "{Lifecycle} [%d]: " + format, Args: append([]any{i}, args...)}
		}
		if m.Create == "" || m.Read == "" || m.Delete == "" {
			return bad("needs create, read and delete: the names of the tools that make, read and delete one resource")
		}
		if m.Read == m.Delete || m.Create == m.Delete || m.Create == m.Read {
			return bad("create, read and delete must be three different tools (got %s, %s, %s)", m.Create, m.Read, m.Delete)
		}
		n := lifecycle.Mapping(m).Noun()
		if n == "" || len(n) > maxResourceLen {
			return bad("resource %q: want a noun of letters and digits, at most %d bytes", excerpt(orText(m.Resource, m.Create), 64), maxResourceLen)
		}
		if j, dup := seen[n]; dup {
			return bad("resource %s is mapped twice (also [%d]); give each group its own resource", n, j)
		}
		seen[n] = i
	}
	return nil
}

// lifecyclePhase runs the lifecycle checks (see [lifecycle.Plan]) of a
// on its live session (see [phases]), after every tool ran, and records
// what they found to check in its report.
func lifecyclePhase(ctx context.Context, a *audit) []report.Check {
	r := a.live
	// A case of the audit is no longer the owner of what this session
	// answers.
	r.owner, r.last = nil, nil
	mapped := make([]lifecycle.Mapping, len(r.cfg.Lifecycle))
	for i, m := range r.cfg.Lifecycle {
		mapped[i] = lifecycle.Mapping(m)
	}
	plan := lifecycle.NewPlan(a.tools, r.cfg.skipReason, mapped)
	r.progress(Event{Kind: EventPhase, Total: len(plan.Groups) + len(plan.Skipped),
		Reason: fmt.Sprintf("lifecycle checks (--sequential): %s detected", plural(len(plan.Groups), "group", "groups"))})
	checks := plan.Run(ctx, lifecycleCaller{r: r, rep: a.rep}, lifecycle.Options{
		Examples: r.cfg.Examples,
		Seed:     r.cfg.Seed,
		Audited:  a.rep.Tools,
		MaxHangs: maxCheckHangs,
	})
	for i := range checks {
		r.progress(Event{Kind: EventCheck, Check: &checks[i]})
	}
	a.rep.Lifecycle = &report.Lifecycle{Groups: len(plan.Groups), Summary: plan.Summary}
	return checks
}

// lifecycleCaller is the lifecycle checks' [lifecycle.Caller]: the
// runner of the audit's first worker, its session still open, and the
// report so far (its era shapes the reproducer's calls).
type lifecycleCaller struct {
	r   *runner
	rep *report.Report
}

func (c lifecycleCaller) Call(ctx context.Context, t tool, args json.RawMessage) lifecycle.Answer {
	r := c.r
	rc := report.Case{ID: t.Name + "/lifecycle", Kind: report.KindValid, Flags: []string{}}
	if !r.ensureSession(ctx) {
		rc.Verdict, rc.Detail = report.NotRun, orText(r.endedEarly, "no session")
		return lifecycle.Answer{Case: rc}
	}
	r.lastAnswer = nil
	r.timedOut = false
	r.runCase(ctx, t, casegen.Case{ID: rc.ID, Tool: t.Name, Kind: casegen.Valid, Arguments: args}, &rc, false, t.OutputValidator())
	out := lifecycle.Answer{Case: rc, TimedOut: r.timedOut}
	if a := r.lastAnswer; a != nil {
		out.Text, out.Structured = a.Text, a.StructRaw
	}
	return out
}

func (c lifecycleCaller) Live() bool { return c.r.s != nil }

func (c lifecycleCaller) Redact(s string) string { return c.r.leak.Redact(s) }

func (c lifecycleCaller) Params(tool string, args json.RawMessage) json.RawMessage {
	return repro.Params(c.rep, tool, args)
}
