package engine

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/mcp-fuzz/mcp-fuzz/internal/leak"
	"github.com/mcp-fuzz/mcp-fuzz/internal/session"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// pool runs the tools of a target on cfg.Parallel independent sessions (one
// server process each over stdio). Each tool runs whole on one session, and
// the report lists the tools in discovery order whatever finished first, so
// the verdicts and their order do not depend on Parallel for a server whose
// tools do not share state. (One exception: a valid call learned from the
// answer of a read-only tool run before it, which is only kept with
// Parallel 1; see [learning].) The discovery calls of learning that must
// be reported (see [discoveryCalls]) are added to their listing tool's
// cases once every tool ran; with Parallel above 1 each session makes its
// own, so there may be one per session.
type pool struct {
	cfg  Config
	cn   *session.Dialer
	leak *leak.Detector
	// first is the session opened for discovery; the first worker uses it.
	first *session.Session
	// lint holds each tool's lint from case generation, in tool order.
	lint [][]report.Lint

	// lateAnswers sums the counts of the runners but live once the run is
	// over.
	lateAnswers int
	// live is the first worker's runner, its session still open (nil
	// when it broke): the protocol checks go on with it, and closing it
	// is up to them (see [checkRun.close]).
	live *runner
	// discovery holds the discovery calls of learning to report, shared by
	// the runners.
	discovery *discoveryCalls

	progressMu sync.Mutex
}

func newPool(cfg Config, cn *session.Dialer, first *session.Session, d *leak.Detector) *pool {
	return &pool{cfg: cfg, cn: cn, leak: d, first: first, discovery: newDiscoveryCalls()}
}

// run calls every tool and returns them in order, with why the run ended
// early ("" when it did not). A tool that never started (the run was
// interrupted or every reconnect failed) is left out when interrupted and
// reported with not-run cases otherwise.
func (p *pool) run(ctx context.Context, tools []tool) ([]report.Tool, string) {
	out := make([]report.Tool, len(tools))
	done := make([]bool, len(tools))
	cut := make([]bool, len(tools)) // interrupted before all its cases ran
	p.lint = make([][]report.Lint, len(tools))
	workers := max(1, min(p.cfg.Parallel, len(tools)))
	runners := make([]*runner, workers)
	progress := p.cfg.Progress
	if progress != nil && workers > 1 {
		progress = func(e Event) {
			p.progressMu.Lock()
			defer p.progressMu.Unlock()
			p.cfg.Progress(e)
		}
	}
	if progress != nil {
		progress(Event{Kind: EventTools, Total: len(tools)})
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		cfg := p.cfg
		cfg.Progress = progress
		r := &runner{cfg: cfg, cn: p.cn, leak: p.leak, learn: newLearning(tools, p.first.Init.Capabilities, p.discovery)}
		if w == 0 {
			r.s = p.first
		}
		runners[w] = r
		wg.Add(1)
		go func() {
			defer wg.Done()
			if w > 0 {
				// The first worker's session is left open for the
				// protocol checks (see [pool.live]).
				defer r.closeSession()
			}
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= len(tools) {
					return
				}
				p.lint[i] = r.runTool(ctx, tools[i], &out[i])
				r.progress(Event{Kind: EventToolDone, Tool: tools[i].Name})
				done[i] = true
				cut[i] = ctx.Err() != nil
			}
		}()
	}
	wg.Wait()
	p.live = runners[0]
	for _, r := range runners[1:] {
		p.lateAnswers += r.lateAnswers
	}

	var endedEarly string
	for _, r := range runners {
		if r.endedEarly != "" {
			endedEarly = r.endedEarly
			break
		}
	}
	kept := out[:0]
	unfinished := 0
	for i := range out {
		if !done[i] || cut[i] {
			unfinished++
		}
		// The discovery calls learning made to a listing tool, for other
		// tools, are cases of the listing tool: after its own, in the order
		// they ran. A listing tool not run to its turn is reported with
		// them alone.
		if extra := p.discovery.cases(tools[i].Name); len(extra) > 0 {
			if !done[i] {
				out[i] = report.Tool{Name: tools[i].Name, Description: tools[i].Description, Tested: true, Cases: []report.Case{}}
				done[i] = true
			}
			out[i].Cases = append(out[i].Cases, extra...)
		}
		if done[i] {
			kept = append(kept, out[i])
		}
	}
	if ctx.Err() != nil {
		endedEarly = fmt.Sprintf("interrupted (%v); %d of %d tools were not run to the end", context.Cause(ctx), unfinished, len(tools))
	}
	return kept, endedEarly
}
