package engine

import (
	"fmt"
	"slices"
	"sort"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// Defaults of the latency and size thresholds (SPEC §7.1).
const (
	DefaultSlowMs     = 5000
	DefaultBloatChars = 20000
)

// Noise floors of the relative rules: 3× a sub-millisecond median is
// scheduling jitter, not a slow tool, and 3× a 40-character median is still a
// short answer.
const (
	relativeSlowFloorMs     = 100
	relativeBloatFloorChars = 1000
	relativeMinTools        = 3
	relativeFactor          = 3
)

// flagPerformance marks the valid call of each tool slow or bloated: above
// the absolute thresholds, or above 3× the server's median over at least
// three tools.
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
	var durations, sizes []float64
	for _, c := range valid {
		durations = append(durations, c.DurationMs)
		sizes = append(sizes, float64(c.Size))
	}
	medDur, medSize := median(durations), median(sizes)
	relative := len(valid) >= relativeMinTools
	for _, c := range valid {
		switch {
		case c.DurationMs > slowMs:
			c.Flags = append(c.Flags, report.FlagSlow)
			c.Detail = joinDetail(c.Detail, fmt.Sprintf("slow: %.0f ms, above --slow-ms %.0f", c.DurationMs, slowMs))
		case relative && c.DurationMs >= relativeSlowFloorMs && c.DurationMs > relativeFactor*medDur:
			c.Flags = append(c.Flags, report.FlagSlow)
			c.Detail = joinDetail(c.Detail, fmt.Sprintf("slow: %.0f ms, over 3× the server's median of %.1f ms", c.DurationMs, medDur))
		}
		switch {
		case slices.Contains(c.Flags, report.FlagBloated):
			// Already flagged: an answer over the response cap.
		case c.Size > bloatChars:
			c.Flags = append(c.Flags, report.FlagBloated)
			c.Detail = joinDetail(c.Detail, fmt.Sprintf("bloated: %d characters, above --bloat-chars %d", c.Size, bloatChars))
		case relative && c.Size >= relativeBloatFloorChars && float64(c.Size) > relativeFactor*medSize:
			c.Flags = append(c.Flags, report.FlagBloated)
			c.Detail = joinDetail(c.Detail, fmt.Sprintf("bloated: %d characters, over 3× the server's median of %.0f", c.Size, medSize))
		}
	}
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

func joinDetail(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}
