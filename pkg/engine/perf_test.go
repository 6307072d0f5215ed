package engine

import (
	"fmt"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// validWith is an ok valid case whose runs had p50 p50 ms (runs > 0), or a
// case of an older report with only a duration (runs 0).
func validWith(durationMs, p50 float64, runs int) report.Case {
	c := report.Case{Kind: report.KindValid, Verdict: report.OK, DurationMs: durationMs, Flags: []string{}}
	if runs > 0 {
		c.Timing = &report.Timing{Runs: runs, P50Ms: p50, P95Ms: max(p50, durationMs)}
	}
	return c
}

func TestFlagPerformanceLatency(t *testing.T) {
	parallel(t)
	for _, tc := range []struct {
		name   string
		cases  []report.Case // one tool each
		slowMs float64
		want   []bool // slow, per tool
		detail string // of the first slow tool
	}{
		{
			name:   "a slow first run with a fast p50 is not slow",
			cases:  []report.Case{validWith(900, 20, 3), validWith(10, 10, 3), validWith(12, 12, 3)},
			slowMs: 500, want: []bool{false, false, false},
		},
		{
			name:   "the p50 above --slow-ms is slow, however fast the first run",
			cases:  []report.Case{validWith(5, 812, 3), validWith(10, 10, 3)},
			slowMs: 500, want: []bool{true, false},
			detail: "slow: p50 812 ms over 3 runs, above --slow-ms 500",
		},
		{
			name:   "one run says so",
			cases:  []report.Case{validWith(812, 812, 1)},
			slowMs: 500, want: []bool{true},
			detail: "slow: 812 ms in 1 run, above --slow-ms 500",
		},
		{
			name:   "a report without timing uses the duration",
			cases:  []report.Case{validWith(812, 0, 0)},
			slowMs: 500, want: []bool{true},
		},
		{
			name: "over 3x the median of p50s but under the 250 ms floor is noise",
			// Loaded machine: 200 ms against a median of 5 ms.
			cases:  []report.Case{validWith(5, 200, 3), validWith(5, 5, 3), validWith(5, 5, 3)},
			slowMs: 5000, want: []bool{false, false, false},
		},
		{
			name:   "over the floor and over 3x the median of p50s is slow",
			cases:  []report.Case{validWith(5, 300, 3), validWith(5, 50, 3), validWith(900, 60, 3)},
			slowMs: 5000, want: []bool{true, false, false},
			detail: "slow: p50 300 ms over 3 runs, over 3× the server's median of 60.0 ms",
		},
		{
			name:   "the relative rule needs three tools",
			cases:  []report.Case{validWith(5, 300, 3), validWith(5, 5, 3)},
			slowMs: 5000, want: []bool{false, false},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tools := make([]report.Tool, len(tc.cases))
			for i, c := range tc.cases {
				tools[i] = report.Tool{Name: fmt.Sprint("t", i), Tested: true, Cases: []report.Case{c}}
			}
			flagPerformance(tools, tc.slowMs, DefaultBloatChars)
			detail := ""
			for i, tl := range tools {
				c := tl.Cases[0]
				if got := c.HasFlag(report.FlagSlow); got != tc.want[i] {
					t.Errorf("tool %d slow = %v, want %v (detail %q)", i, got, tc.want[i], c.Detail)
				}
				if detail == "" && c.HasFlag(report.FlagSlow) {
					detail = c.Detail
				}
			}
			if tc.detail != "" && detail != tc.detail {
				t.Errorf("detail = %q, want %q", detail, tc.detail)
			}
		})
	}
}

func TestTimingPercentiles(t *testing.T) {
	parallel(t)
	for _, tc := range []struct {
		runs     []float64
		p50, p95 float64
	}{
		{[]float64{7}, 7, 7},
		{[]float64{30, 10, 20}, 20, 30},
		{[]float64{40, 10, 20, 30}, 25, 40},
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 100}, 10.5, 19},
	} {
		got := timing(tc.runs, "")
		if got.Runs != len(tc.runs) || got.P50Ms != tc.p50 || got.P95Ms != tc.p95 {
			t.Errorf("timing(%v) = %+v, want p50 %v p95 %v", tc.runs, got, tc.p50, tc.p95)
		}
	}
}

// A few kilobytes beside short answers is an ordinary answer; well past
// the floor and 3× the median is bloated.
func TestFlagPerformanceSize(t *testing.T) {
	parallel(t)
	sized := func(n int) report.Case {
		c := validWith(5, 5, 1)
		c.Size = n
		return c
	}
	for _, tc := range []struct {
		name  string
		sizes []int
		want  []bool
	}{
		{"a 6 KB answer beside two short ones", []int{6000, 40, 60}, []bool{false, false, false}},
		{"12 KB beside short ones", []int{12000, 40, 60}, []bool{true, false, false}},
		{"over --bloat-chars alone", []int{25000}, []bool{true}},
	} {
		tools := make([]report.Tool, len(tc.sizes))
		for i, n := range tc.sizes {
			tools[i] = report.Tool{Name: fmt.Sprint("t", i), Tested: true, Cases: []report.Case{sized(n)}}
		}
		flagPerformance(tools, DefaultSlowMs, DefaultBloatChars)
		for i, tl := range tools {
			if got := tl.Cases[0].HasFlag(report.FlagBloated); got != tc.want[i] {
				t.Errorf("%s: tool %d bloated = %v, want %v (%s)", tc.name, i, got, tc.want[i], tl.Cases[0].Detail)
			}
		}
	}
}
