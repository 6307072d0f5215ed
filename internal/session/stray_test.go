package session

import (
	"fmt"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// The stray log keeps the first few violations and counts the rest, however
// many a hostile server writes.
func TestStrayLogBounded(t *testing.T) {
	t.Parallel()
	var l StrayLog
	for i := range 10000 {
		l.add(PhaseBetweenCalls, fmt.Sprint("line ", i))
	}
	n, kept := l.Snapshot()
	if n != 10000 || len(kept) != report.MaxServerViolations || kept[0].Excerpt != "line 0" {
		t.Errorf("count %d, kept %d (%v)", n, len(kept), kept[:1])
	}
}

// A violation during a tools/call is its case's; one after the call ended
// is the server's, between calls; never both or neither.
func TestViolationPhases(t *testing.T) {
	t.Parallel()
	s := (&Dialer{Stray: &StrayLog{}}).newSession()
	s.record("banner", nil)
	s.SetPhase(PhaseDiscovery)
	s.record("during list", nil)
	s.SetPhase(PhaseBetweenCalls)
	before, _ := s.BeginCall()
	s.record("in call", []string{"API_TOKEN"})
	got, secrets := s.EndCall(before)
	s.record("after", nil)
	if len(got) != 1 || got[0] != "in call" || len(secrets) != 1 {
		t.Errorf("call's violations = %q, secrets %q", got, secrets)
	}
	s.Close()
	s.record("cut off by the close", nil)
	n, kept := s.stray.Snapshot()
	want := []report.ServerViolation{{When: PhaseBeforeInit, Excerpt: "banner"}, {When: PhaseDiscovery, Excerpt: "during list"}, {When: PhaseBetweenCalls, Excerpt: "after"}}
	if n != 3 || fmt.Sprint(kept) != fmt.Sprint(want) {
		t.Errorf("stray = %d %v, want %v", n, kept, want)
	}
}
