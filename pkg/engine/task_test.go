package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// verdicts counts the verdicts of every case of rep.
func verdicts(rep *report.Report) map[report.Verdict]int {
	out := map[report.Verdict]int{}
	for _, c := range cases(rep) {
		out[c.Verdict]++
	}
	return out
}

func TestTaskOnlyToolIsCalledAsATask(t *testing.T) {
	parallel(t)
	for _, tc := range []struct {
		mode string
		want report.Verdict // a verdict at least one case must have
		none bool           // no case may fail
	}{
		{mode: "clean", want: report.OK, none: true},
		{mode: "lax", want: report.Accepted},
		{mode: "stuck", want: report.Hang},
		{mode: "crash", want: report.Crash},
		{mode: "malformed", want: report.ProtocolViolation},
		// The specification bounds no taskId: a stateless server may
		// encode its state into one of a kilobyte or more.
		{mode: "long-id", want: report.OK, none: true},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			rep := runFixture(t, "tasks", func(c *Config) {
				c.Command = append(c.Command, "-mode", tc.mode)
				c.Cases = 3
			})
			if len(rep.Tools) != 1 || !rep.Tools[0].Tested {
				t.Fatalf("research not tested: %+v", rep.Tools)
			}
			got := verdicts(rep)
			if got[tc.want] == 0 {
				t.Errorf("no %s case: %v", tc.want, got)
			}
			if tc.mode == "stuck" {
				for _, c := range withVerdict(rep, report.Hang) {
					if !strings.Contains(c.Detail, `was still "working" after`) {
						t.Errorf("hang detail does not say how far the task got: %s", c.Detail)
					}
				}
			}
			if fs := failures(rep); tc.none && len(fs) > 0 {
				t.Errorf("clean task server got failures: %+v", fs)
			}
			for _, c := range cases(rep) {
				if !c.Task {
					t.Errorf("case %s not marked task", c.ID)
				}
			}
			for _, f := range rep.Findings {
				if f.CaseID == "" {
					continue
				}
				r := f.Reproducer
				if !strings.Contains(r.JSONRPC, `"task":{"ttl":2000}`) || !strings.Contains(r.JSONRPC, "tasks/get") || !strings.Contains(r.JSONRPC, "tasks/result") || !strings.Contains(r.Shell, "replay") {
					t.Errorf("finding %s: reproducer does not show the task's steps: %+v", f.ID, r)
				}
			}
		})
	}
}

func TestTaskModernEraIsSkipped(t *testing.T) {
	parallel(t)
	if r := taskSkipReason(tool{Name: "t", TaskSupport: "required"}, EraModern); r != TaskModernReason {
		t.Errorf("modern era: %q", r)
	}
	if r := taskSkipReason(tool{Name: "t", TaskSupport: "required"}, EraLegacy); r != "" {
		t.Errorf("legacy era: %q", r)
	}
}

// TestPollIntervalClamped: the server's pollInterval, however large or
// small, gives a wait within the bounds (a huge one overflowed a Duration).
func TestPollIntervalClamped(t *testing.T) {
	parallel(t)
	f := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		in   *float64
		want time.Duration
	}{
		{nil, time.Second},
		{f(500.0), 500 * time.Millisecond},
		{f(0.0), minPollInterval},
		{f(-1e300), minPollInterval},
		{f(1e300), maxPollInterval},
		{f(1e13), maxPollInterval},
	} {
		if got := pollInterval(&taskInfo{PollInterval: tc.in}); got != tc.want {
			t.Errorf("pollInterval(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
