package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/mcp-fuzz/mcp-fuzz/internal/casegen"
	"github.com/mcp-fuzz/mcp-fuzz/internal/oracle"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// repeatValid times the valid call of t again after its first run (rc),
// until cfg.Repeat runs in all, and records the runs' p50 and p95 in
// rc.Timing. A valid call that got no answer has no timing; one that did
// not succeed, or a tool not [mcptool.Tool.Repeatable], is timed once.
//
// Repeats stop at the first run that does not succeed. A run that crashed,
// hung or broke the protocol is never hidden: it becomes the case's verdict
// (the same call on the same input failed), its detail saying which run it
// was and how the first one went; the session logic of [runner.runCase]
// applies to it as to any case. A run that merely did not succeed (an
// error answer) leaves the first run's verdict and is told in the timing's
// note. Flags a later run raised (a leak, a panic on stderr) are added to
// the case. A run that never reached the server, which had exited right
// after answering the run before, makes that run the failed one (see
// [runner.blame]).
func (r *runner) repeatValid(ctx context.Context, t tool, c casegen.Case, rc *report.Case, fromExample bool, validate func(json.RawMessage) error) {
	if !rc.Verdict.Answered() {
		return
	}
	durations := []float64{rc.DurationMs}
	note, failedRun := "", 0
	defer func() {
		rc.Timing = timing(durations, note)
		rc.Timing.FailedRun = failedRun
	}()
	switch {
	case r.cfg.Repeat <= 1:
		return
	case !rc.Verdict.Confirms():
		note = fmt.Sprintf("timed once: the call was %s, not a success", rc.Verdict)
		return
	case !t.Repeatable():
		note = "timed once: the tool is not annotated readOnlyHint or idempotentHint, so calling it again may not be harmless"
		return
	}
	for run := 2; run <= r.cfg.Repeat; run++ {
		if ctx.Err() != nil || r.s == nil {
			note = fmt.Sprintf("stopped after %s: the run was interrupted", plural(run-1, "run", "runs"))
			return
		}
		again := report.Case{ID: rc.ID, Kind: rc.Kind, Flags: []string{}}
		if r.owner != nil {
			r.owner.run = run
		}
		if gone := r.callCase(ctx, t, c, &again, fromExample, validate, true); gone != nil {
			// The server exited right after answering the run before,
			// without reading this one: that run is the crash (see
			// [runner.blame]), not this one, which never reached it.
			r.blame(gone)
			if gone.prev != nil && gone.prev.target() == rc {
				failedRun = gone.prev.run
				note = fmt.Sprintf("stopped at run %d: the server %s right after answering it", failedRun, gone.how())
			} else {
				note = fmt.Sprintf("stopped after %s: the server had %s before run %d was sent", plural(run-1, "run", "runs"), gone.how(), run)
			}
			return
		}
		added := addFlags(rc, again.Flags)
		switch {
		case again.Verdict.Confirms():
			durations = append(durations, again.DurationMs)
			if added {
				rc.Detail = oracle.JoinDetail(rc.Detail, fmt.Sprintf("run %d of %d: %s", run, r.cfg.Repeat, orText(again.Detail, string(again.Verdict))))
			}
		case again.Verdict.Failure():
			first, firstMs := rc.Verdict, rc.DurationMs
			rc.Verdict, rc.ErrorCode, rc.Crash = again.Verdict, again.ErrorCode, again.Crash
			rc.Response, rc.Size, rc.DurationMs = again.Response, again.Size, again.DurationMs
			rc.Detail = fmt.Sprintf("run %d of %d of the same call: %s (the first run was %s in %.0f ms)",
				run, r.cfg.Repeat, orText(again.Detail, string(again.Verdict)), first, firstMs)
			note = fmt.Sprintf("stopped at run %d: %s", run, again.Verdict)
			failedRun = run
			return
		default:
			note = fmt.Sprintf("stopped at run %d: %s (%s)", run, again.Verdict, excerpt(orText(again.Detail, "no detail"), 200))
			return
		}
	}
}

// addFlags adds to rc the flags it does not have yet, saying whether there
// were any.
func addFlags(rc *report.Case, flags []string) bool {
	added := false
	for _, f := range flags {
		if !slices.Contains(rc.Flags, f) {
			rc.Flags = append(rc.Flags, f)
			added = true
		}
	}
	return added
}

// timing is the median (p50) and the 95th percentile (nearest rank) of the
// durations of the timed runs.
func timing(durations []float64, note string) *report.Timing {
	s := slices.Clone(durations)
	sort.Float64s(s)
	p95 := s[int(math.Ceil(0.95*float64(len(s))))-1]
	return &report.Timing{Runs: len(s), P50Ms: median(s), P95Ms: p95, Note: note}
}

func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
