package engine

import (
	"context"

	"github.com/mcp-fuzz/mcp-fuzz/internal/concurrency"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// concurrencyPhase runs the concurrency checks (see [concurrency.Run]) of a
// on sessions of their own (see [phases]).
func concurrencyPhase(ctx context.Context, a *audit) []report.Check {
	cfg := a.cfg
	o := concurrency.Options{
		N:              cfg.Concurrency,
		Timeout:        cfg.Timeout,
		CallTimeout:    cfg.callTimeout,
		StartupTimeout: cfg.StartupTimeout,
		MaxResponse:    cfg.MaxResponse,
		StderrTail:     (&runner{leak: a.cn.Leak}).stderrTail,
	}
	if cfg.Progress != nil {
		o.Planned = func(total int, what string) {
			cfg.Progress(Event{Kind: EventPhase, Total: total, Reason: what})
		}
		o.Checked = func(c *report.Check) { cfg.Progress(Event{Kind: EventCheck, Check: c}) }
	}
	checks, late := concurrency.Run(ctx, a.cn, a.rep.Tools, a.tools, o)
	a.lateAnswers += late
	return checks
}
