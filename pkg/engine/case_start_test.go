package engine

import (
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// Each sent case records when its first call began, in order within a
// tool run on one worker.
func TestCasesRecordWhenTheyStarted(t *testing.T) {
	parallel(t)
	rep := runFixture(t, "clean", nil)
	for _, tl := range rep.Tools {
		last := 0.0
		for _, c := range tl.Cases {
			if c.Verdict == report.NotRun {
				continue
			}
			if c.StartedMs <= 0 || c.StartedMs < last {
				t.Errorf("%s started at %v ms, after a case that started at %v ms", c.ID, c.StartedMs, last)
			}
			last = c.StartedMs
		}
	}
}
