package engine

import (
	"sync"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// When a violation happened that no tools/call was in flight for: the
// server's stray violations (see [report.ServerViolation]). One written
// during a call belongs to that call's case instead.
const (
	phaseBeforeInit   = "at startup"        // from start until the initialize answer is read (a line right after it may still land here)
	phaseDiscovery    = "during tools/list" // discovery: tools/list and the other lists
	phaseBetweenCalls = "between calls"     // after initialize, outside any tools/call
	// phaseClosing is not a when: violations while mcp-fuzz closes the
	// session are dropped.
	phaseClosing = "closing"
)

// strayLog collects the violations outside any tools/call over every
// session of a run: the first [report.MaxServerViolations], already redacted and
// cut like a case's, and how many there were in all.
type strayLog struct {
	mu    sync.Mutex
	kept  []report.ServerViolation
	count int
}

func (l *strayLog) add(when, desc string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.count++
	if len(l.kept) < report.MaxServerViolations {
		l.kept = append(l.kept, report.ServerViolation{When: when, Excerpt: desc})
	}
}

// snapshot returns how many violations there were and the kept ones.
func (l *strayLog) snapshot() (int, []report.ServerViolation) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.count, append([]report.ServerViolation(nil), l.kept...)
}
