package engine

import (
	"fmt"
	"slices"
	"sort"

	"github.com/mcp-fuzz/mcp-fuzz/internal/oracle"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// Defaults of the latency and size thresholds (docs/BEHAVIOUR.md#checks-beyond-single-calls).
const (
	DefaultSlowMs     = 5000
	DefaultBloatChars = 20000
)

// Noise floors of the relative rules: 3× a median of a few milliseconds is
// scheduling jitter, not a slow tool, and an answer of a few kilobytes is an
// ordinary one, however short the others are (a 6 KB listing beside two
// one-line answers is not bloated). The latency floor is 250 ms because on a loaded machine
// (measured: server-memory while `go test ./...` ran on 2 cores) single
// calls of tools whose median is 5 ms took 118, 119 and 171 ms: a floor of
// 100 ms turned that noise into slow findings in one run and none in the
// next (Performance 89 or 100). Medians of several runs (--repeat) damp the same noise from the
// other side.
const (
	relativeSlowFloorMs     = 250
	relativeBloatFloorChars = 8000
	relativeMinTools        = 3
	relativeFactor          = 3
)

// flagPerformance marks the valid call of each tool slow or bloated: above
// the absolute thresholds, or above 3× the server's median over at least
// three tools. Latency is the median of the call's timed runs (its p50, see
// [report.Timing]), compared with --slow-ms and with the median of the
// tools' p50s.
func flagPerformance(tools []report.Tool, slowMs float64, bloatChars int) {
	var valid []*report.Case
	for i := range tools {
		for j := range tools[i].Cases {
			c := &tools[i].Cases[j]
			if c.Kind == report.KindValid && c.Verdict.Answered() {
				valid = append(valid, c)
			}
		}
	}
	var latencies, sizes []float64
	for _, c := range valid {
		latencies = append(latencies, latency(c))
		sizes = append(sizes, float64(c.Size))
	}
	medDur, medSize := median(latencies), median(sizes)
	relative := len(valid) >= relativeMinTools
	for i, c := range valid {
		ms := latencies[i]
		switch {
		case ms > slowMs:
			c.Flags = append(c.Flags, report.FlagSlow)
			c.Detail = oracle.JoinDetail(c.Detail, fmt.Sprintf("%s: %s, above --slow-ms %.0f", report.FlagSlow, latencyText(c, ms), slowMs))
		case relative && ms >= relativeSlowFloorMs && ms > relativeFactor*medDur:
			c.Flags = append(c.Flags, report.FlagSlow)
			c.Detail = oracle.JoinDetail(c.Detail, fmt.Sprintf("%s: %s, over 3× the server's median of %.1f ms", report.FlagSlow, latencyText(c, ms), medDur))
		}
		switch {
		case slices.Contains(c.Flags, report.FlagBloated):
			// Already flagged: an answer over the response cap.
		case c.Size > bloatChars:
			c.Flags = append(c.Flags, report.FlagBloated)
			c.Detail = oracle.JoinDetail(c.Detail, fmt.Sprintf("%s: %d characters, above --bloat-chars %d", report.FlagBloated, c.Size, bloatChars))
		case relative && c.Size >= relativeBloatFloorChars && float64(c.Size) > relativeFactor*medSize:
			c.Flags = append(c.Flags, report.FlagBloated)
			c.Detail = oracle.JoinDetail(c.Detail, fmt.Sprintf("%s: %d characters, over 3× the server's median of %.0f", report.FlagBloated, c.Size, medSize))
		}
	}
}

// latency is the valid call's p50 over its timed runs, or its one duration
// when it has no timing (a report of an older version).
func latency(c *report.Case) float64 {
	if c.Timing != nil && c.Timing.Runs > 0 {
		return c.Timing.P50Ms
	}
	return c.DurationMs
}

// latencyText says "p50 812 ms over 3 runs" or "812 ms in 1 run".
func latencyText(c *report.Case, ms float64) string {
	if c.Timing != nil && c.Timing.Runs > 1 {
		return fmt.Sprintf("p50 %.0f ms over %d runs", ms, c.Timing.Runs)
	}
	return fmt.Sprintf("%.0f ms in 1 run", ms)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
